//! The sandbox policy: what the commands the model starts, and the tools that write, may do once
//! they run. The approval policy decides whether a call runs; this decides what it can reach.
//! It is data here, the same words in every host; each environment enforces it its own way (the
//! native host through the kernel, the in-memory environment in its own shell and files).
//!
//! The modes, with codex's meaning:
//! - `read-only`: nothing is written; commands may read (except [`READ_DENIED`]);
//! - `workspace-write` (the default): writes only under the writable roots (the working
//!   directory, the temporary directory and any configured), never to [`PROTECTED`] inside them;
//!   the network `off` (the default), `on`, or a list of hosts;
//! - `full-access`: the user's own rights, as before there was a sandbox.

use serde::{Deserialize, Serialize};

/// Paths inside every writable root that stay read-only: what would let a command run code
/// outside the sandbox later (git's config and hooks, shell start-up files) or change the agent's
/// own configuration.
pub const PROTECTED: [&str; 11] = [
    ".git/config",
    ".git/hooks",
    ".openagent",
    ".mcp.json",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".gitconfig",
];

/// Paths under the user's home that commands may not read in a confined mode: keys and
/// credentials. The host adds the agent's own data directory.
pub const READ_DENIED: [&str; 5] = [".ssh", ".aws", ".gnupg", ".netrc", ".git-credentials"];

/// How far a confined command reaches.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SandboxMode {
    ReadOnly,
    #[default]
    WorkspaceWrite,
    FullAccess,
}

impl SandboxMode {
    pub const NAMES: &'static str = "read-only, workspace-write, full-access";

    /// The mode named `name`, or an error listing the names.
    pub fn parse(name: &str) -> Result<Self, String> {
        match name {
            "read-only" => Ok(Self::ReadOnly),
            "workspace-write" => Ok(Self::WorkspaceWrite),
            "full-access" => Ok(Self::FullAccess),
            _ => Err(["unknown sandbox mode `", name, "`; the modes are ", Self::NAMES].concat()),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::WorkspaceWrite => "workspace-write",
            Self::FullAccess => "full-access",
        }
    }
}

/// What a confined command may reach on the network.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Network {
    /// No sockets but local (Unix) ones.
    #[default]
    Off,
    On,
    /// Only these hosts (names, or `*.example.com`), through the host's proxy.
    Hosts(Vec<String>),
}

impl Network {
    pub fn describe(&self) -> String {
        match self {
            Self::Off => "network off".into(),
            Self::On => "network on".into(),
            Self::Hosts(hosts) => ["network to ", &hosts.join(", "), " only"].concat(),
        }
    }
}

/// `off`, `on`, or a list of hosts.
#[derive(Deserialize)]
#[serde(untagged)]
enum NetworkWritten {
    Word(String),
    Hosts(Vec<String>),
}

impl<'de> Deserialize<'de> for Network {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match NetworkWritten::deserialize(deserializer)? {
            NetworkWritten::Word(word) if word == "off" => Ok(Self::Off),
            NetworkWritten::Word(word) if word == "on" => Ok(Self::On),
            NetworkWritten::Word(word) => {
                Err(serde::de::Error::custom(["the network is `off`, `on` or a list of hosts, not `", &word, "`"].concat()))
            }
            NetworkWritten::Hosts(hosts) => Ok(Self::Hosts(hosts)),
        }
    }
}

impl Serialize for Network {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Self::Off => serializer.serialize_str("off"),
            Self::On => serializer.serialize_str("on"),
            Self::Hosts(hosts) => hosts.serialize(serializer),
        }
    }
}

impl Network {
    /// `off`, `on`, or hosts separated by commas (as a flag gives them).
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "off" => Ok(Self::Off),
            "on" => Ok(Self::On),
            hosts => {
                let hosts: Vec<String> = hosts.split(',').map(|host| host.trim().to_owned()).collect();
                let network = Self::Hosts(hosts);
                network.check()?;
                Ok(network)
            }
        }
    }

    fn check(&self) -> Result<(), String> {
        let Self::Hosts(hosts) = self else { return Ok(()) };
        if hosts.is_empty() {
            return Err("the network's host list is empty; give `off` for no network".into());
        }
        for host in hosts {
            let bare = host.strip_prefix("*.").unwrap_or(host);
            let fine = bare.contains('.') && bare.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.');
            if !fine {
                return Err(["`", host, "` is not a host name; give names like example.com or *.example.com (no scheme, port or path), or the network `on` or `off`"].concat());
            }
        }
        Ok(())
    }
}

/// A sandbox policy: a mode, and for `workspace-write` its extra writable roots and network.
/// Written as a mode alone (`sandbox: workspace-write`) or in full
/// (`sandbox: {mode: workspace-write, writable_roots: [/data], network: [crates.io]}`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct SandboxPolicy {
    pub mode: SandboxMode,
    /// Absolute directories writable beside the working and temporary directories.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub writable_roots: Vec<String>,
    /// What confined commands may reach; `full-access` has the whole network.
    pub network: Network,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Full {
    mode: SandboxMode,
    #[serde(default)]
    writable_roots: Vec<String>,
    network: Option<Network>,
}

impl<'de> Deserialize<'de> for SandboxPolicy {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        // Through a value rather than an untagged enum, which would hide why the full form failed.
        let policy = match serde_json::Value::deserialize(deserializer)? {
            serde_json::Value::String(name) => Self::new(SandboxMode::parse(&name).map_err(D::Error::custom)?),
            full @ serde_json::Value::Object(_) => {
                let Full { mode, writable_roots, network } = serde_json::from_value(full).map_err(D::Error::custom)?;
                let network = network.unwrap_or_else(|| Self::new(mode).network);
                Self { mode, writable_roots, network }
            }
            _ => {
                return Err(D::Error::custom(
                    "a sandbox is a mode (read-only, workspace-write, full-access) or {mode, writable_roots, network}",
                ))
            }
        };
        policy.check().map_err(serde::de::Error::custom)?;
        Ok(policy)
    }
}

impl SandboxPolicy {
    /// `mode` with no extra roots, and the network off unless the mode is `full-access`.
    pub fn new(mode: SandboxMode) -> Self {
        let network = if mode == SandboxMode::FullAccess { Network::On } else { Network::Off };
        Self { mode, writable_roots: Vec::new(), network }
    }

    pub fn full_access() -> Self {
        Self::new(SandboxMode::FullAccess)
    }

    /// Whether anything is confined: every mode but `full-access`.
    pub fn confines(&self) -> bool {
        self.mode != SandboxMode::FullAccess
    }

    /// Why the policy cannot be used, if it cannot: what the core can tell without the disk
    /// (the host checks that each root exists and is no symlink).
    pub fn check(&self) -> Result<(), String> {
        for root in &self.writable_roots {
            if !root.starts_with('/') {
                return Err(["the writable root `", root, "` is not an absolute path"].concat());
            }
        }
        if self.mode != SandboxMode::WorkspaceWrite && !self.writable_roots.is_empty() {
            return Err(["writable roots apply to workspace-write only, not ", self.mode.name()].concat());
        }
        if self.mode == SandboxMode::FullAccess && self.network != Network::On {
            return Err("full-access has the whole network; a network setting applies to read-only and workspace-write".into());
        }
        self.network.check()
    }

    /// The policy as people read it: `workspace-write, network off`.
    pub fn describe(&self) -> String {
        match self.mode {
            SandboxMode::FullAccess => "full-access".into(),
            mode => [mode.name(), ", ", &self.network.describe()].concat(),
        }
    }

    /// Why a tool may not write `path` (resolved, relative to the working directory, which is a
    /// writable root), or `None` when it may: nothing is written in `read-only`, and the
    /// [`PROTECTED`] paths are not written below `full-access`.
    pub fn refuses_write(&self, path: &str) -> Option<String> {
        match self.mode {
            SandboxMode::FullAccess => None,
            SandboxMode::ReadOnly => Some("the sandbox is read-only".into()),
            SandboxMode::WorkspaceWrite => protected(path).map(|name| {
                ["`", name, "` stays read-only in the sandbox (workspace-write protects git's config and hooks, the agent's configuration and shell start-up files)"].concat()
            }),
        }
    }
}

/// The [`PROTECTED`] path that `path` (relative, `/`-separated) is or lies under.
pub fn protected(path: &str) -> Option<&'static str> {
    let path = path.strip_prefix("./").unwrap_or(path);
    PROTECTED.into_iter().find(|name| path.strip_prefix(name).is_some_and(|rest| rest.is_empty() || rest.starts_with('/')))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn read(yaml_json: &str) -> Result<SandboxPolicy, String> {
        serde_json::from_str(yaml_json).map_err(|e| e.to_string())
    }

    #[test]
    fn a_policy_is_written_as_a_mode_or_in_full() {
        assert_eq!(read(r#""read-only""#).unwrap(), SandboxPolicy::new(SandboxMode::ReadOnly));
        let full =
            read(r#"{"mode":"workspace-write","writable_roots":["/data"],"network":["crates.io","*.npmjs.org"]}"#).unwrap();
        assert_eq!(full.writable_roots, ["/data"]);
        assert_eq!(full.network, Network::Hosts(vec!["crates.io".into(), "*.npmjs.org".into()]));
        assert_eq!(full.describe(), "workspace-write, network to crates.io, *.npmjs.org only");
        assert_eq!(read(r#"{"mode":"workspace-write","network":"on"}"#).unwrap().network, Network::On);
        let back: SandboxPolicy = serde_json::from_value(serde_json::to_value(&full).unwrap()).unwrap();
        assert_eq!(back, full);
        assert_eq!(SandboxPolicy::default().describe(), "workspace-write, network off");
        assert_eq!(
            serde_json::to_value(SandboxPolicy::full_access()).unwrap(),
            serde_json::json!({"mode": "full-access", "network": "on"})
        );
        assert_eq!(read(r#"{"mode":"full-access"}"#).unwrap(), SandboxPolicy::full_access());
    }

    #[test]
    fn a_policy_that_cannot_mean_anything_is_refused_with_what_to_give() {
        assert!(read(r#""workspace""#).unwrap_err().contains("read-only, workspace-write, full-access"));
        assert!(read(r#"{"mode":"workspace-write","writable_roots":["data"]}"#).unwrap_err().contains("not an absolute path"));
        assert!(read(r#"{"mode":"read-only","writable_roots":["/data"]}"#).unwrap_err().contains("workspace-write only"));
        assert!(read(r#"{"mode":"workspace-write","network":"sometimes"}"#).unwrap_err().contains("`off`, `on` or a list"));
        assert!(Network::parse("sometimes").unwrap_err().contains("not a host name"));
        assert!(read(r#"{"mode":"workspace-write","network":["https://x.org/"]}"#).unwrap_err().contains("not a host name"));
        assert!(read(r#"{"mode":"workspace-write","network":[]}"#).unwrap_err().contains("empty"));
        assert!(read(r#"{"mode":"workspace-write","roots":[]}"#).is_err());
        assert!(read(r#"{"mode":"full-access","network":"off"}"#).unwrap_err().contains("full-access has the whole network"));
        assert_eq!(
            Network::parse("crates.io, github.com").unwrap(),
            Network::Hosts(vec!["crates.io".into(), "github.com".into()])
        );
    }

    #[test]
    fn writes_are_refused_in_read_only_and_to_protected_paths_below_full_access() {
        let write = SandboxPolicy::default();
        assert_eq!(write.refuses_write("src/main.rs"), None);
        assert!(write.refuses_write(".git/config").unwrap().contains("`.git/config`"));
        assert!(write.refuses_write("./.git/hooks/pre-commit").is_some());
        assert!(write.refuses_write(".openagent/agent.yml").is_some());
        assert_eq!(write.refuses_write(".git/HEAD"), None, "git itself may still commit");
        assert_eq!(write.refuses_write(".github/workflows/ci.yml"), None);
        assert_eq!(write.refuses_write(".profile.d/x"), None);
        assert!(SandboxPolicy::new(SandboxMode::ReadOnly).refuses_write("notes.md").unwrap().contains("read-only"));
        assert_eq!(SandboxPolicy::full_access().refuses_write(".git/config"), None);
    }
}
