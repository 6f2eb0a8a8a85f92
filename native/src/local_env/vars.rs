//! Which environment variables a command sees (spec 4.2): secrets are left out by default so a
//! command (or a model reading `env`) cannot leak the host's API keys.

use std::collections::BTreeMap;
use std::ffi::OsString;

/// Which of the host process's variables commands inherit. Variables a command asks for
/// (`ExecOptions::env_vars`) are always added on top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EnvPolicy {
    /// Every variable except secrets (names ending in `_API_KEY`, `_SECRET`, `_TOKEN`,
    /// `_PASSWORD` or `_CREDENTIAL`, in any case); the core variables are always kept.
    #[default]
    InheritAll,
    /// Only the core variables: `PATH`, `HOME`, `USER`, `SHELL`, `LANG`, `TERM`, `TMPDIR` and
    /// toolchain locations (`GOPATH`, `CARGO_HOME`, `NVM_DIR`, ...).
    CoreOnly,
    /// Nothing: commands start with a clean environment.
    None,
}

const SECRET_SUFFIXES: [&str; 5] = ["_API_KEY", "_SECRET", "_TOKEN", "_PASSWORD", "_CREDENTIAL"];

const CORE: [&str; 22] = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "TMPDIR",
    "TZ",
    "GOPATH",
    "GOROOT",
    "CARGO_HOME",
    "RUSTUP_HOME",
    "NVM_DIR",
    "NODE_PATH",
    "JAVA_HOME",
    "PYENV_ROOT",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "GEM_HOME",
];

fn is_core(name: &str) -> bool {
    CORE.contains(&name)
}

fn is_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_SUFFIXES.iter().any(|suffix| upper.ends_with(suffix))
}

/// The variables of a command: `inherited` (the host's) filtered by `policy`, then `extra`.
pub(super) fn command_vars(
    policy: EnvPolicy,
    inherited: impl Iterator<Item = (OsString, OsString)>,
    extra: Option<&BTreeMap<String, String>>,
) -> Vec<(OsString, OsString)> {
    let keep = |name: &str| match policy {
        EnvPolicy::InheritAll => is_core(name) || !is_secret(name),
        EnvPolicy::CoreOnly => is_core(name),
        EnvPolicy::None => false,
    };
    let mut vars: Vec<(OsString, OsString)> = inherited.filter(|(name, _)| name.to_str().is_some_and(keep)).collect();
    for (name, value) in extra.into_iter().flatten() {
        vars.retain(|(existing, _)| existing != name.as_str());
        vars.push((name.into(), value.into()));
    }
    vars
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(policy: EnvPolicy) -> Vec<String> {
        let host = ["PATH", "OPENAI_API_KEY", "gh_token", "EDITOR", "Db_Password", "AWS_CREDENTIAL", "MY_SECRET"];
        let inherited = host.iter().map(|name| (OsString::from(name), OsString::from("v")));
        let extra = BTreeMap::from([("EXTRA_TOKEN".to_owned(), "x".to_owned())]);
        command_vars(policy, inherited, Some(&extra)).into_iter().map(|(name, _)| name.to_string_lossy().into_owned()).collect()
    }

    #[test]
    fn filters_secrets_by_policy_and_adds_requested_variables() {
        assert_eq!(names(EnvPolicy::InheritAll), ["PATH", "EDITOR", "EXTRA_TOKEN"]);
        assert_eq!(names(EnvPolicy::CoreOnly), ["PATH", "EXTRA_TOKEN"]);
        assert_eq!(names(EnvPolicy::None), ["EXTRA_TOKEN"]);
    }
}
