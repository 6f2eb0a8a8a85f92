//! `sandbox`: what the agent's commands may write once they run, in the words of agent.yml — a
//! mode (`"read-only"`, `"workspace-write"`, `"full-access"`) or `{ mode, writable_roots,
//! network }`. The in-memory shell enforces it (`openagent-memenv`); the edit tools are checked
//! by the core.
//!
//! Read by hand, as the other options are: the core's `SandboxPolicy` deserializer (through a
//! `serde_json::Value`, with an untagged enum for the network) cost the browser bundle 14 KB
//! gzipped. The modes, the host names and the policy's consistency are still the core's checks
//! (`SandboxMode::parse`, `SandboxPolicy::check`), and a test holds this reader to the core's
//! deserializer: the same policies, the same refusals.

use openagent_core::sandbox::{Network, SandboxMode, SandboxPolicy};
use serde_json::Value;

use crate::options::Fields;

const FIELDS: &[&str] = &["mode", "writable_roots", "network"];

/// The `sandbox` option: absent or `null` is the default (workspace-write, the network off).
pub fn read(value: Option<&Value>) -> Result<SandboxPolicy, String> {
    policy(value).map_err(|e| ["`sandbox`: ", &e].concat())
}

fn policy(value: Option<&Value>) -> Result<SandboxPolicy, String> {
    let policy = match value {
        None | Some(Value::Null) => return Ok(SandboxPolicy::default()),
        Some(Value::String(mode)) => SandboxPolicy::new(SandboxMode::parse(mode)?),
        Some(full @ Value::Object(_)) => {
            let fields = Fields::of(full, FIELDS)?;
            let mode = match fields.0.get("mode") {
                Some(Value::String(mode)) => SandboxMode::parse(mode)?,
                Some(_) => return Err(["the mode is one of ", SandboxMode::NAMES].concat()),
                None => return Err("missing field `mode`".into()),
            };
            SandboxPolicy {
                mode,
                writable_roots: strings(fields.0.get("writable_roots"))?,
                network: network(fields.0.get("network"))?,
            }
        }
        Some(_) => {
            return Err("a sandbox is a mode (read-only, workspace-write, full-access) or {mode, writable_roots, network}".into())
        }
    };
    policy.check()?;
    Ok(policy)
}

fn network(value: Option<&Value>) -> Result<Network, String> {
    match value {
        None => Ok(Network::Off),
        Some(Value::String(word)) if word == "off" => Ok(Network::Off),
        Some(Value::String(word)) if word == "on" => Ok(Network::On),
        Some(hosts @ Value::Array(_)) => Ok(Network::Hosts(strings(Some(hosts))?)),
        Some(other) => {
            let written = other.as_str().map_or_else(|| openagent_core::llm::json_text::to_string(other), str::to_owned);
            Err(["the network is `off`, `on` or a list of hosts, not `", &written, "`"].concat())
        }
    }
}

/// A list of strings (`writable_roots`, the network's hosts); absent is empty.
fn strings(value: Option<&Value>) -> Result<Vec<String>, String> {
    let Some(value) = value else { return Ok(Vec::new()) };
    let items = value.as_array().ok_or("`writable_roots` and the network's hosts are lists of strings")?;
    items
        .iter()
        .map(|item| {
            item.as_str().map(str::to_owned).ok_or("`writable_roots` and the network's hosts are lists of strings".into())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

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
        assert_eq!(error, "`sandbox`: unknown sandbox mode `sandboxed`; the modes are read-only, workspace-write, full-access");
        let error = read(Some(&json!({"mode": "workspace-write", "network": "sometimes"}))).unwrap_err();
        assert_eq!(error, "`sandbox`: the network is `off`, `on` or a list of hosts, not `sometimes`");
        let error = read(Some(&json!({"mode": "workspace-write", "network": ["https://x.org/"]}))).unwrap_err();
        assert!(error.contains("not a host name"), "{error}");
        assert!(read(Some(&json!({"mode": "read-only", "roots": []}))).unwrap_err().contains("unknown field `roots`"));
        assert!(read(Some(&json!(true))).unwrap_err().contains("a sandbox is a mode"));
    }

    /// agent.yml's reader and this one take the same policies and refuse the same ones.
    #[test]
    fn the_option_reads_as_the_cores_deserializer_does() {
        for value in [
            json!("read-only"),
            json!("workspace-write"),
            json!("full-access"),
            json!("workspace"),
            json!(3),
            json!(["read-only"]),
            json!({"mode": "workspace-write"}),
            json!({"mode": "workspace-write", "writable_roots": ["/data", "/srv/x"], "network": ["crates.io", "*.npmjs.org"]}),
            json!({"mode": "workspace-write", "network": "on"}),
            json!({"mode": "workspace-write", "network": "off"}),
            json!({"mode": "workspace-write", "network": "sometimes"}),
            json!({"mode": "workspace-write", "network": "crates.io"}),
            json!({"mode": "workspace-write", "network": []}),
            json!({"mode": "workspace-write", "network": [3]}),
            json!({"mode": "workspace-write", "network": true}),
            json!({"mode": "workspace-write", "network": ["localhost"]}),
            json!({"mode": "workspace-write", "writable_roots": ["data"]}),
            json!({"mode": "workspace-write", "writable_roots": "/data"}),
            json!({"mode": "read-only", "writable_roots": ["/data"]}),
            json!({"mode": "full-access", "network": "on"}),
            json!({"mode": "sometimes"}),
            json!({"mode": 1}),
            json!({"network": "on"}),
            json!({"mode": "read-only", "roots": []}),
        ] {
            let core: Result<SandboxPolicy, _> = serde_json::from_value(value.clone());
            let ours = policy(Some(&value));
            match (core, ours) {
                (Ok(core), Ok(ours)) => assert_eq!(core, ours, "{value}"),
                (Err(_), Err(_)) => {}
                (core, ours) => panic!("{value}: the core reads {core:?}, the option {ours:?}"),
            }
        }
    }
}
