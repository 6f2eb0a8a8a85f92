//! MCP servers in configuration: `.openagent/mcp.json`, in the shape of the widely used
//! `.mcp.json` (`{"mcpServers": {name: {"command", "args", "env"} | {"url", "headers"}}}`), and
//! `mcp_servers:` in an agent.yml, whose servers replace the file's of the same name.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use openagent_core::sandbox::SandboxPolicy;
use serde::{Deserialize, Serialize};

use crate::config_error::{self, ConfigError};
pub use crate::config_error::{EndpointError, McpConfigError};

/// Where a directory's MCP servers are configured.
pub const MCP_FILE: &str = ".openagent/mcp.json";

/// One server: a command to spawn (stdio) or a URL (Streamable HTTP).
#[derive(Debug, Clone, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerConfig {
    /// `stdio` or `http` (`streamable-http` too); implied by `command` or `url` when absent.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Variables for the server, on top of this process's (less its secrets).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Sent with every request (an `Authorization` header, say).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub headers: BTreeMap<String, String>,
    /// Every request's timeout, in milliseconds (60000 when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_ms: Option<u64>,
    /// What a stdio server may reach once spawned (the core's `SandboxPolicy`); absent:
    /// `full-access`, as the server is the user's own program.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxPolicy>,
}

/// How to reach a server, once its config is checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Endpoint<'a> {
    Stdio { command: &'a str, args: &'a [String], env: &'a BTreeMap<String, String> },
    Http { url: &'a str, headers: &'a BTreeMap<String, String> },
}

impl McpServerConfig {
    /// The endpoint, or what is wrong with the entry.
    pub fn endpoint(&self) -> Result<Endpoint<'_>, EndpointError> {
        let kind = self.kind.as_deref();
        match (&self.command, &self.url) {
            (Some(_), Some(_)) => Err(EndpointError::CommandAndUrl),
            (Some(command), None) if matches!(kind, None | Some("stdio")) && !command.trim().is_empty() => {
                if !self.headers.is_empty() {
                    return Err(EndpointError::HeadersWithoutUrl);
                }
                Ok(Endpoint::Stdio { command, args: &self.args, env: &self.env })
            }
            (None, Some(url)) if matches!(kind, None | Some("http" | "streamable-http")) => {
                if !(url.starts_with("http://") || url.starts_with("https://")) {
                    return Err(EndpointError::NotHttp(url.clone()));
                }
                if self.command.is_some() || !self.args.is_empty() || !self.env.is_empty() {
                    return Err(EndpointError::ArgsWithoutCommand);
                }
                if self.sandbox.is_some() {
                    return Err(EndpointError::SandboxWithoutCommand);
                }
                Ok(Endpoint::Http { url, headers: &self.headers })
            }
            (Some(_), None) if matches!(kind, None | Some("stdio")) => Err(EndpointError::EmptyCommand),
            _ => match kind {
                Some(kind @ ("stdio" | "http" | "streamable-http")) => Err(EndpointError::Incomplete { kind: kind.to_owned() }),
                Some(kind) => Err(EndpointError::UnknownType(kind.to_owned())),
                None => Err(EndpointError::NoEndpoint),
            },
        }
    }

    /// The policy a stdio server runs under: its `sandbox`, else `full-access`; `None` for an
    /// HTTP server, which runs elsewhere.
    pub fn runs_under(&self) -> Option<SandboxPolicy> {
        matches!(self.endpoint(), Ok(Endpoint::Stdio { .. }))
            .then(|| self.sandbox.clone().unwrap_or_else(SandboxPolicy::full_access))
    }

    /// [`McpServerConfig::describe`], with the sandbox of a server this machine spawns.
    pub fn describe_with_sandbox(&self) -> String {
        match self.runs_under() {
            Some(policy) => format!("{}; sandbox {}", self.describe(), policy.describe()),
            None => self.describe(),
        }
    }

    /// A line for people: what runs, or where.
    pub fn describe(&self) -> String {
        match self.endpoint() {
            Ok(Endpoint::Stdio { command, args, .. }) => format!("stdio: {command} {}", args.join(" ")).trim_end().to_owned(),
            Ok(Endpoint::Http { url, .. }) => format!("http: {url}"),
            Err(_) => "invalid".into(),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct McpFile {
    mcp_servers: BTreeMap<String, McpServerConfig>,
}

/// The servers of `cwd`'s `.openagent/mcp.json` (none when there is no such file) with
/// `overrides` (an agent's `mcp_servers`) on top. The error names the file and the server.
pub fn load(cwd: &Path, overrides: &BTreeMap<String, McpServerConfig>) -> Result<BTreeMap<String, McpServerConfig>, ConfigError> {
    let file = cwd.join(MCP_FILE);
    let mut servers = match config_error::read_named(&file)? {
        Some(text) => parse(&text).map_err(|problem| ConfigError::Mcp { file, problem })?,
        None => BTreeMap::new(),
    };
    servers.extend(overrides.iter().map(|(name, server)| (name.clone(), server.clone())));
    Ok(servers)
}

/// Parses and checks the text of an mcp.json.
pub fn parse(text: &str) -> Result<BTreeMap<String, McpServerConfig>, McpConfigError> {
    let file: McpFile = serde_json::from_str(text)?;
    check(&file.mcp_servers)?;
    Ok(file.mcp_servers)
}

/// Each server's name and entry are usable.
pub fn check(servers: &BTreeMap<String, McpServerConfig>) -> Result<(), McpConfigError> {
    for (name, server) in servers {
        if !openagent_mcp::is_server_name(name) {
            return Err(McpConfigError::ServerName { name: name.clone() });
        }
        server.endpoint().map_err(|problem| McpConfigError::Server { name: name.clone(), problem })?;
    }
    Ok(())
}

/// The file of `cwd`'s MCP servers.
pub fn mcp_path(cwd: &Path) -> PathBuf {
    cwd.join(MCP_FILE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mcp_json_shape_loads() {
        let servers = parse(
            r#"{"mcpServers": {
                "fs": {"command": "npx", "args": ["-y", "server"], "env": {"A": "1"}},
                "docs": {"type": "http", "url": "https://example.test/mcp", "headers": {"Authorization": "Bearer t"}}
            }}"#,
        )
        .expect("valid");
        assert_eq!(servers["fs"].describe(), "stdio: npx -y server");
        assert_eq!(servers["docs"].describe(), "http: https://example.test/mcp");
        assert_eq!(
            servers["fs"].runs_under(),
            Some(SandboxPolicy::full_access()),
            "the user's own program, unconfined by default"
        );
        assert_eq!(servers["docs"].runs_under(), None, "an HTTP server runs elsewhere");
        assert_eq!(servers["fs"].describe_with_sandbox(), "stdio: npx -y server; sandbox full-access");
    }

    #[test]
    fn a_stdio_server_takes_a_sandbox_and_an_http_one_does_not() {
        let servers =
            parse(r#"{"mcpServers": {"fs": {"command": "srv", "sandbox": {"mode": "workspace-write", "network": "on"}}}}"#)
                .expect("valid");
        assert_eq!(servers["fs"].runs_under().map(|policy| policy.describe()).as_deref(), Some("workspace-write, network on"));
        let error = |text: &str| parse(text).expect_err("refused").to_string();
        assert!(error(r#"{"mcpServers": {"x": {"command": "srv", "sandbox": "yolo"}}}"#)
            .contains("unknown sandbox mode `yolo`; the modes are read-only, workspace-write, full-access"));
        assert_eq!(
            error(r#"{"mcpServers": {"x": {"url": "http://b", "sandbox": "read-only"}}}"#),
            "server `x` has `sandbox`, which only a `command` server takes: an HTTP server runs outside this machine's sandbox"
        );
    }

    #[test]
    fn a_bad_entry_names_the_server_and_the_fix() {
        let error = |text: &str| parse(text).expect_err("refused").to_string();
        assert_eq!(
            error(r#"{"mcpServers": {"x": {}}}"#),
            "server `x` needs a `command` (a stdio server) or a `url` (a Streamable HTTP server)"
        );
        assert_eq!(
            error(r#"{"mcpServers": {"x": {"command": "a", "url": "http://b"}}}"#),
            "server `x` has both `command` and `url`: a server is one or the other"
        );
        assert!(
            error(r#"{"mcpServers": {"x": {"type": "sse", "url": "http://b"}}}"#).contains("the types are `stdio` and `http`")
        );
        assert!(error(r#"{"mcpServers": {"a b": {"command": "a"}}}"#).contains("server name `a b`"));
        assert!(error(r#"{"servers": {}}"#).contains("unknown field `servers`"));
        assert!(error(r#"{"mcpServers": {"x": {"command": "a", "cwd": "/"}}}"#).contains("unknown field `cwd`"));
    }

    #[test]
    fn an_unreadable_file_is_named() {
        let dir = std::env::temp_dir().join(format!("openagent-mcp-config-{}", std::process::id()));
        std::fs::create_dir_all(dir.join(".openagent")).expect("dir");
        assert!(load(&dir, &BTreeMap::new()).expect("no file: no servers").is_empty());
        std::fs::write(dir.join(MCP_FILE), "{oops").expect("write");
        let error = load(&dir, &BTreeMap::new()).expect_err("broken").to_string();
        assert!(error.starts_with(&format!("{}: ", dir.join(MCP_FILE).display())), "{error}");
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
