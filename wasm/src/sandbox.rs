//! `sandbox`: what the agent's commands may write once they run, in the words of agent.yml — a
//! mode (`"read-only"`, `"workspace-write"`, `"full-access"`) or `{ mode, writable_roots,
//! network }`. The in-memory shell enforces it (`openagent-memenv`); the edit tools are checked
//! by the core. Read through the core's own `SandboxPolicy` deserializer, so the words and the
//! errors are the native host's.

use openagent_core::sandbox::SandboxPolicy;
use serde_json::Value;

/// The `sandbox` option: absent or `null` is the default (workspace-write, the network off).
pub fn read(value: Option<&Value>) -> Result<SandboxPolicy, String> {
    match value {
        None | Some(Value::Null) => Ok(SandboxPolicy::default()),
        Some(value) => serde_json::from_value(value.clone()).map_err(|e| ["`sandbox`: ", &e.to_string()].concat()),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use openagent_core::sandbox::{Network, SandboxMode};
    use serde_json::json;

    use super::*;

    #[test]
    fn a_sandbox_is_a_mode_or_the_full_form_and_workspace_write_when_absent() {
        assert_eq!(read(None).unwrap(), SandboxPolicy::default());
        assert_eq!(read(Some(&Value::Null)).unwrap(), SandboxPolicy::default());
        assert_eq!(read(Some(&json!("read-only"))).unwrap(), SandboxPolicy::new(SandboxMode::ReadOnly));
        assert_eq!(read(Some(&json!("full-access"))).unwrap(), SandboxPolicy::full_access());
        let full = json!({"mode": "workspace-write", "writable_roots": ["/data"], "network": ["crates.io"]});
        let policy = read(Some(&full)).unwrap();
        assert_eq!((policy.writable_roots, policy.network), (vec!["/data".to_owned()], Network::Hosts(vec!["crates.io".into()])));
        assert_eq!(read(Some(&json!({"mode": "workspace-write", "network": "on"}))).unwrap().network, Network::On);
    }

    #[test]
    fn a_bad_sandbox_names_the_option_and_what_to_give() {
        let error = read(Some(&json!("sandboxed"))).unwrap_err();
        assert!(error.starts_with("`sandbox`: unknown sandbox mode `sandboxed`"), "{error}");
        assert!(error.contains("read-only, workspace-write, full-access"), "{error}");
        let error = read(Some(&json!({"mode": "workspace-write", "network": "sometimes"}))).unwrap_err();
        assert!(error.starts_with("`sandbox`: ") && error.contains("`off`, `on` or a list of hosts"), "{error}");
        let error = read(Some(&json!({"mode": "workspace-write", "network": ["https://x.org/"]}))).unwrap_err();
        assert!(error.contains("not a host name"), "{error}");
        assert!(read(Some(&json!({"mode": "read-only", "roots": []}))).unwrap_err().contains("unknown field `roots`"));
        assert!(read(Some(&json!(true))).unwrap_err().contains("a sandbox is a mode"));
    }
}
