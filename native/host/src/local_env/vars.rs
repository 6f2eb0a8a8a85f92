//! Which environment variables a command sees (spec 4.2): secrets are left out by default so a
//! command (or a model reading `env`) cannot leak the host's API keys.

use std::ffi::OsString;

/// Which of the host process's variables commands inherit. Variables a command asks for
/// (`ExecOptions::env_vars`) are always added on top, and so are the ones the host passes by
/// name ([`EnvPass`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EnvPolicy {
    /// Only the core variables (deny by default): `PATH`, `HOME`, `USER`, `SHELL`, `LANG` and
    /// `LC_*`, `TERM`, `TMPDIR`, `TZ`, the `XDG_*` directories, certificate and proxy settings,
    /// and toolchain locations (`GOPATH`, `CARGO_HOME`, `NVM_DIR`, ...); never a secret.
    #[default]
    CoreOnly,
    /// Every variable except secrets: a name that says it holds one (a part between underscores
    /// is `SECRET`, `TOKEN`, `PASSWORD`, `PASSWD`, `CREDENTIAL` or `APIKEY`, or `API`, `ACCESS`
    /// or `PRIVATE` then `KEY`, or the last part is `KEY` or `PAT`; in any case) or a value that
    /// is a URL with a password (`DATABASE_URL=postgres://user:pw@host`).
    InheritAll,
    /// Nothing: commands start with a clean environment.
    None,
}

/// Host variables passed to commands whatever the policy (`--env-pass`): exact names, or
/// prefixes ending in `*` (`NPM_*`). A secret passes only when named exactly: a pattern is
/// for a family of settings, never a way to hand over every key at once.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EnvPass(Vec<String>);

impl EnvPass {
    pub fn new(patterns: impl IntoIterator<Item = impl Into<String>>) -> Self {
        Self(patterns.into_iter().map(Into::into).collect())
    }

    fn passes(&self, name: &str, secret: bool) -> bool {
        self.0.iter().any(|pattern| match pattern.strip_suffix('*') {
            Some(prefix) => !secret && name.starts_with(prefix),
            None => pattern == name,
        })
    }
}

/// Parts of a name (between underscores) that say it holds a secret: `GITHUB_TOKEN`,
/// `AWS_SECRET_ACCESS_KEY`. Whole parts, so `TOKENIZERS_PARALLELISM` is no secret.
const SECRET_PARTS: [&str; 9] =
    ["SECRET", "SECRETS", "TOKEN", "TOKENS", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS", "APIKEY"];

/// Last parts that do (`OPENAI_KEY`, `GITHUB_PAT`), and parts before a `KEY` (`AWS_ACCESS_KEY_ID`).
const SECRET_LAST_PARTS: [&str; 2] = ["KEY", "PAT"];
const BEFORE_KEY: [&str; 3] = ["API", "ACCESS", "PRIVATE"];

/// What a command needs to find its tools and behave as in the user's shell: the POSIX basics,
/// locale, temporary and XDG directories, certificates and proxies (their values are checked
/// for passwords like any other), and where toolchains live.
const CORE: [&str; 39] = [
    "PATH",
    "HOME",
    "USER",
    "USERNAME",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TERM",
    "COLORTERM",
    "TMPDIR",
    "TEMP",
    "TMP",
    "TZ",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "http_proxy",
    "https_proxy",
    "no_proxy",
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
    "PKG_CONFIG_PATH",
];

fn is_core(name: &str) -> bool {
    CORE.contains(&name) || name.starts_with("LC_")
}

/// Whether a variable holds a secret, by its name or (a URL with a password) its value.
pub(crate) fn is_secret(name: &str, value: &OsString) -> bool {
    let upper = name.to_ascii_uppercase();
    let parts: Vec<&str> = upper.split('_').collect();
    parts.iter().any(|part| SECRET_PARTS.contains(part))
        || parts.last().is_some_and(|last| parts.len() > 1 && SECRET_LAST_PARTS.contains(last))
        || parts.windows(2).any(|pair| BEFORE_KEY.contains(&pair[0]) && pair[1] == "KEY")
        || value.to_str().is_some_and(|value| crate::url::parts(value).credentials().is_some())
}

/// The secret values among `vars` (the host's), to be redacted wherever a command's output is
/// recorded: each secret variable's value, or for a URL its password.
pub fn secret_values(vars: impl Iterator<Item = (OsString, OsString)>) -> Vec<String> {
    vars.filter(|(name, value)| name.to_str().is_some_and(|name| is_secret(name, value)))
        .filter_map(|(_, value)| value.into_string().ok())
        .map(|value| match crate::url::parts(&value).credentials() {
            Some((_, password)) => password.to_owned(),
            None => value,
        })
        .collect()
}

/// The variables of a command: `inherited` (the host's) filtered by `policy` and `pass`, then
/// `extra`.
pub(crate) fn command_vars<'a>(
    policy: EnvPolicy,
    pass: &EnvPass,
    inherited: impl Iterator<Item = (OsString, OsString)>,
    extra: impl IntoIterator<Item = (&'a String, &'a String)>,
) -> Vec<(OsString, OsString)> {
    let keep = |name: &str, value: &OsString| {
        let secret = is_secret(name, value);
        pass.passes(name, secret)
            || match policy {
                EnvPolicy::CoreOnly => is_core(name) && !secret,
                EnvPolicy::InheritAll => !secret,
                EnvPolicy::None => false,
            }
    };
    let mut vars: Vec<(OsString, OsString)> =
        inherited.filter(|(name, value)| name.to_str().is_some_and(|name| keep(name, value))).collect();
    for (name, value) in extra {
        vars.retain(|(existing, _)| existing != name.as_str());
        vars.push((name.into(), value.into()));
    }
    vars
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(policy: EnvPolicy, pass: &EnvPass) -> Vec<String> {
        let host = [
            ("PATH", "/bin"),
            ("LC_TIME", "C"),
            ("OPENAI_API_KEY", "sk"),
            ("gh_token", "t"),
            ("EDITOR", "vi"),
            ("NPM_CONFIG_CACHE", "/c"),
            ("NPM_TOKEN", "t"),
            ("HTTPS_PROXY", "http://me:pw@proxy:3128"),
        ];
        let inherited = host.iter().map(|(name, value)| (OsString::from(name), OsString::from(value)));
        let extra = std::collections::BTreeMap::from([("EXTRA_TOKEN".to_owned(), "x".to_owned())]);
        command_vars(policy, pass, inherited, &extra).into_iter().map(|(name, _)| name.to_string_lossy().into_owned()).collect()
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
        let kept: Vec<String> = command_vars(EnvPolicy::InheritAll, &EnvPass::default(), inherited, None)
            .into_iter()
            .map(|(n, _)| n.to_string_lossy().into_owned())
            .collect();
        assert_eq!(kept, ["TOKENIZERS_PARALLELISM", "SSH_AUTH_SOCK", "REDIS_URL", "KEYBOARD_LAYOUT", "EDITOR"]);
    }

    #[test]
    fn secret_values_are_the_values_of_secret_variables_and_the_passwords_of_urls() {
        let host = [("GITHUB_TOKEN", "ghp_x"), ("DATABASE_URL", "postgres://app:hunter22@db/app"), ("EDITOR", "vi")];
        let vars = host.iter().map(|(name, value)| (OsString::from(name), OsString::from(value)));
        assert_eq!(secret_values(vars), ["ghp_x", "hunter22"]);
    }

    #[test]
    fn only_core_variables_by_default_and_a_proxy_with_a_password_is_no_core_variable() {
        assert_eq!(names(EnvPolicy::default(), &EnvPass::default()), ["PATH", "LC_TIME", "EXTRA_TOKEN"]);
        assert_eq!(
            names(EnvPolicy::InheritAll, &EnvPass::default()),
            ["PATH", "LC_TIME", "EDITOR", "NPM_CONFIG_CACHE", "EXTRA_TOKEN"]
        );
        assert_eq!(names(EnvPolicy::None, &EnvPass::default()), ["EXTRA_TOKEN"]);
    }

    #[test]
    fn passed_names_are_added_and_a_secret_passes_only_when_named_exactly() {
        let family = EnvPass::new(["NPM_*", "EDITOR"]);
        assert_eq!(names(EnvPolicy::CoreOnly, &family), ["PATH", "LC_TIME", "EDITOR", "NPM_CONFIG_CACHE", "EXTRA_TOKEN"]);
        let everything = EnvPass::new(["*"]);
        assert_eq!(names(EnvPolicy::None, &everything), ["PATH", "LC_TIME", "EDITOR", "NPM_CONFIG_CACHE", "EXTRA_TOKEN"]);
        let named = EnvPass::new(["NPM_TOKEN", "HTTPS_PROXY"]);
        assert_eq!(names(EnvPolicy::CoreOnly, &named), ["PATH", "LC_TIME", "NPM_TOKEN", "HTTPS_PROXY", "EXTRA_TOKEN"]);
    }
}
