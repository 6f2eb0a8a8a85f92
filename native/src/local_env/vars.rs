//! Which environment variables a command sees (spec 4.2): secrets are left out by default so a
//! command (or a model reading `env`) cannot leak the host's API keys.

use std::collections::BTreeMap;
use std::ffi::OsString;

/// Which of the host process's variables commands inherit. Variables a command asks for
/// (`ExecOptions::env_vars`) are always added on top.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EnvPolicy {
    /// Every variable except secrets: a name that says it holds one (a part between underscores
    /// is `SECRET`, `TOKEN`, `PASSWORD`, `PASSWD`, `CREDENTIAL` or `APIKEY`, or `API`, `ACCESS`
    /// or `PRIVATE` then `KEY`, or the last part is `KEY` or `PAT`; in any case) or a value that
    /// is a URL with a password (`DATABASE_URL=postgres://user:pw@host`). The core variables are
    /// always kept.
    #[default]
    InheritAll,
    /// Only the core variables: `PATH`, `HOME`, `USER`, `SHELL`, `LANG`, `TERM`, `TMPDIR` and
    /// toolchain locations (`GOPATH`, `CARGO_HOME`, `NVM_DIR`, ...).
    CoreOnly,
    /// Nothing: commands start with a clean environment.
    None,
}

/// Parts of a name (between underscores) that say it holds a secret: `GITHUB_TOKEN`,
/// `AWS_SECRET_ACCESS_KEY`. Whole parts, so `TOKENIZERS_PARALLELISM` is no secret.
const SECRET_PARTS: [&str; 9] =
    ["SECRET", "SECRETS", "TOKEN", "TOKENS", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS", "APIKEY"];

/// Last parts that do (`OPENAI_KEY`, `GITHUB_PAT`), and parts before a `KEY` (`AWS_ACCESS_KEY_ID`).
const SECRET_LAST_PARTS: [&str; 2] = ["KEY", "PAT"];
const BEFORE_KEY: [&str; 3] = ["API", "ACCESS", "PRIVATE"];

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

fn is_secret(name: &str, value: &OsString) -> bool {
    let upper = name.to_ascii_uppercase();
    let parts: Vec<&str> = upper.split('_').collect();
    parts.iter().any(|part| SECRET_PARTS.contains(part))
        || parts.last().is_some_and(|last| parts.len() > 1 && SECRET_LAST_PARTS.contains(last))
        || parts.windows(2).any(|pair| BEFORE_KEY.contains(&pair[0]) && pair[1] == "KEY")
        || value.to_str().is_some_and(|value| crate::url::parts(value).credentials().is_some())
}

/// The variables of a command: `inherited` (the host's) filtered by `policy`, then `extra`.
pub(super) fn command_vars(
    policy: EnvPolicy,
    inherited: impl Iterator<Item = (OsString, OsString)>,
    extra: Option<&BTreeMap<String, String>>,
) -> Vec<(OsString, OsString)> {
    let keep = |name: &str, value: &OsString| match policy {
        EnvPolicy::InheritAll => is_core(name) || !is_secret(name, value),
        EnvPolicy::CoreOnly => is_core(name),
        EnvPolicy::None => false,
    };
    let mut vars: Vec<(OsString, OsString)> =
        inherited.filter(|(name, value)| name.to_str().is_some_and(|name| keep(name, value))).collect();
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
    fn names_that_hold_secrets_in_any_spelling_and_urls_with_passwords_are_left_out() {
        let host = [
            ("AWS_SECRET_ACCESS_KEY", "v"),
            ("AWS_ACCESS_KEY_ID", "v"),
            ("API_KEY", "v"),
            ("GITHUB_PAT", "v"),
            ("OPENAI_KEY", "v"),
            ("TOKENIZERS_PARALLELISM", "false"),
            ("SSH_AUTH_SOCK", "/tmp/agent.sock"),
            ("DATABASE_URL", "postgres://app:pw@db:5432/app"),
            ("REDIS_URL", "redis://cache:6379"),
            ("KEYBOARD_LAYOUT", "us"),
            ("EDITOR", "vi"),
        ];
        let inherited = host.iter().map(|(name, value)| (OsString::from(name), OsString::from(value)));
        let kept: Vec<String> = command_vars(EnvPolicy::InheritAll, inherited, None)
            .into_iter()
            .map(|(n, _)| n.to_string_lossy().into_owned())
            .collect();
        assert_eq!(kept, ["TOKENIZERS_PARALLELISM", "SSH_AUTH_SOCK", "REDIS_URL", "KEYBOARD_LAYOUT", "EDITOR"]);
    }

    #[test]
    fn filters_secrets_by_policy_and_adds_requested_variables() {
        assert_eq!(names(EnvPolicy::InheritAll), ["PATH", "EDITOR", "EXTRA_TOKEN"]);
        assert_eq!(names(EnvPolicy::CoreOnly), ["PATH", "EXTRA_TOKEN"]);
        assert_eq!(names(EnvPolicy::None), ["EXTRA_TOKEN"]);
    }
}
