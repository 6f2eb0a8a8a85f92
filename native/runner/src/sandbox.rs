//! The sandbox policy a native session runs under, in the same words on every host: what the
//! host was given (`--sandbox`, `--sandbox-network`, `--writable-root`, serve's `sandbox`) over
//! the agent config's `sandbox:` over the core's default (`workspace-write`, network off), and
//! the check, before the first model call, that this machine can enforce it: a policy it cannot
//! enforce refuses the run rather than letting commands run unconfined.

use std::path::Path;

use openagent_core::sandbox::{Network, SandboxMode, SandboxPolicy};

use crate::error::RunError;

/// What a host was told about the sandbox, each part only where it was given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxOptions {
    /// `--sandbox MODE`: a policy of its own, in place of the agent config's.
    pub mode: Option<SandboxMode>,
    /// `--sandbox-network`: the network of whichever policy is in force.
    pub network: Option<Network>,
    /// `--writable-root DIR` (absolute): added to the policy's roots.
    pub writable_roots: Vec<String>,
}

impl SandboxOptions {
    /// Options that stand for `policy` whole (serve's `sandbox` field): whatever the agent
    /// config says, this is the policy.
    pub fn whole(policy: SandboxPolicy) -> Self {
        Self { mode: Some(policy.mode), network: Some(policy.network), writable_roots: policy.writable_roots }
    }

    /// The policy in force: these options over `configured` (the agent config's) over the
    /// default; the error says which part cannot be used.
    pub fn policy(&self, configured: Option<&SandboxPolicy>) -> Result<SandboxPolicy, RunError> {
        let mut policy = match self.mode {
            Some(mode) => SandboxPolicy::new(mode),
            None => configured.cloned().unwrap_or_default(),
        };
        if let Some(network) = &self.network {
            policy.network = network.clone();
        }
        for root in &self.writable_roots {
            if !policy.writable_roots.contains(root) {
                policy.writable_roots.push(root.clone());
            }
        }
        policy.check().map_err(RunError::BadSandbox)?;
        Ok(policy)
    }
}

/// Whether `policy` can be enforced for commands working in `cwd`, by `check` (the host's
/// [`check_sandbox`](openagent_host::local_env::check_sandbox)): its refusal, with the way out.
pub fn enforceable(
    policy: &SandboxPolicy,
    cwd: &Path,
    check: impl FnOnce(&SandboxPolicy, &Path) -> Result<(), String>,
) -> Result<(), RunError> {
    check(policy, cwd).map_err(|reason| RunError::CannotConfine { policy: policy.describe(), reason })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flag_over_the_config_over_the_default() {
        let none = SandboxOptions::default();
        assert_eq!(none.policy(None).unwrap(), SandboxPolicy::default());
        let configured = SandboxPolicy { writable_roots: vec!["/data".into()], ..SandboxPolicy::default() };
        assert_eq!(none.policy(Some(&configured)).unwrap(), configured);

        let network = SandboxOptions { network: Some(Network::On), writable_roots: vec!["/cache".into()], ..none.clone() };
        let widened = network.policy(Some(&configured)).unwrap();
        assert_eq!((widened.network, widened.writable_roots), (Network::On, vec!["/data".to_owned(), "/cache".to_owned()]));

        let full = SandboxOptions { mode: Some(SandboxMode::FullAccess), ..none };
        assert_eq!(full.policy(Some(&configured)).unwrap(), SandboxPolicy::full_access(), "the mode replaces the config's roots");
    }

    #[test]
    fn roots_outside_workspace_write_are_refused() {
        let options = SandboxOptions {
            mode: Some(SandboxMode::ReadOnly),
            writable_roots: vec!["/data".into()],
            ..SandboxOptions::default()
        };
        let error = options.policy(None).unwrap_err().to_string();
        assert_eq!(error, "the sandbox policy cannot be used: writable roots apply to workspace-write only, not read-only");
    }

    #[test]
    fn a_policy_the_machine_cannot_enforce_names_what_is_missing_and_the_way_out() {
        let refused = enforceable(&SandboxPolicy::default(), Path::new("/w"), |_, _| Err("Landlock is not available".into()));
        let text = refused.unwrap_err().to_string();
        assert!(
            text.starts_with("this machine cannot enforce the sandbox (workspace-write, network off): Landlock is not available"),
            "{text}"
        );
        assert!(text.contains("--sandbox full-access"), "{text}");
        assert!(enforceable(&SandboxPolicy::default(), Path::new("/w"), |_, _| Ok(())).is_ok());
    }
}
