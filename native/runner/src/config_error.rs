//! Why a directory's configuration cannot be used: a config file that cannot be read or is
//! broken (each naming the file), a file that would run commands and is not trusted, an image the
//! task mentions that is not there. Each says what to do next; a host prints it as it is.

use std::path::PathBuf;

use std::path::Path;

use crate::config_file::{self, FileError};

/// What stops a directory's configuration from loading.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// A config file is there but cannot be read as one.
    #[error("{}: {problem}", file.display())]
    Unreadable { file: PathBuf, problem: FileError },
    /// A hooks.json that is not one.
    #[error("{}: {problem}", file.display())]
    Hooks { file: PathBuf, problem: HooksError },
    /// An mcp.json that is not one.
    #[error("{}: {problem}", file.display())]
    Mcp { file: PathBuf, problem: McpConfigError },
    /// A models.json with wrong entries: each problem is `LINE: KEY: MESSAGE` (or how many more
    /// there are), in the order of the file; one line each.
    #[error("{}", models_lines(file, problems))]
    Models { file: PathBuf, problems: Vec<String> },
    /// A models.json whose entries read but do not lay over the catalog (the catalog's words).
    #[error("{}: {problem}", file.display())]
    Catalog { file: PathBuf, problem: String },
    /// The task mentions an image (`@shot.png`) that is not there.
    #[error("the task mentions {mention}, but there is no such file in {}", cwd.display())]
    MissingImage { mention: String, cwd: PathBuf },
}

/// `FILE:PROBLEM` for each problem, a line each.
fn models_lines(file: &std::path::Path, problems: &[String]) -> String {
    let lines: Vec<String> = problems.iter().map(|problem| format!("{}:{problem}", file.display())).collect();
    lines.join("\n")
}

/// The text of the config file `file`, `None` when there is none; the error names the file.
pub fn read_named(file: &Path) -> Result<Option<String>, ConfigError> {
    config_file::read(file).map_err(|problem| ConfigError::Unreadable { file: file.to_owned(), problem })
}

/// What is wrong with the text of a hooks.json, without the file's name.
#[derive(Debug, thiserror::Error)]
pub enum HooksError {
    /// Not JSON, or not of the file's shape (which a missing field shows).
    #[error("{}", hooks_shape(.0))]
    Json(#[from] serde_json::Error),
    /// A hook that cannot run: `at` names it (`pre_tool_use[0]`, or the point).
    #[error("hook {at} {problem}")]
    Hook { at: String, problem: String },
}

/// serde's message, with the file's shape when a field is missing.
fn hooks_shape(error: &serde_json::Error) -> String {
    let e = error.to_string();
    match e.contains("missing field") {
        true => format!("{e}: the file is {{\"hooks\": {{\"pre_tool_use\": [{{\"command\": ..., \"matcher\": ...}}]}}}}"),
        false => e,
    }
}

/// What is wrong with a server's entry; it reads after the server's name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EndpointError {
    #[error("has both `command` and `url`: a server is one or the other")]
    CommandAndUrl,
    #[error("has `headers`, which only a `url` server takes")]
    HeadersWithoutUrl,
    #[error("`url` is `{0}`: give an http:// or https:// URL")]
    NotHttp(String),
    #[error("has `args` or `env`, which only a `command` server takes")]
    ArgsWithoutCommand,
    #[error("has `sandbox`, which only a `command` server takes: an HTTP server runs outside this machine's sandbox")]
    SandboxWithoutCommand,
    #[error("`command` is empty")]
    EmptyCommand,
    /// Of type `stdio` without a `command`, or `http` without a `url`.
    #[error("is of type `{kind}` but has no `{}`", if kind == "stdio" { "command" } else { "url" })]
    Incomplete { kind: String },
    #[error("has type `{0}`: the types are `stdio` and `http` (Streamable HTTP)")]
    UnknownType(String),
    #[error("needs a `command` (a stdio server) or a `url` (a Streamable HTTP server)")]
    NoEndpoint,
}

/// What is wrong with the text of an mcp.json (or an agent's `mcp_servers`), without the
/// file's name.
#[derive(Debug, thiserror::Error)]
pub enum McpConfigError {
    /// Not JSON, or not of the file's shape (which a missing field shows).
    #[error("{}", mcp_shape(.0))]
    Json(#[from] serde_json::Error),
    /// A name that cannot name tools.
    #[error("server name `{name}`: use letters, digits, `_` and `-` (it names the tools: mcp__{name}__<tool>)")]
    ServerName { name: String },
    #[error("server `{name}` {problem}")]
    Server { name: String, problem: EndpointError },
}

/// serde's message, with the file's shape when a field is missing.
fn mcp_shape(error: &serde_json::Error) -> String {
    let e = error.to_string();
    if e.contains("missing field") {
        format!("{e}: the file is {{\"mcpServers\": {{\"<name>\": {{\"command\": ..., \"args\": [...]}} or {{\"url\": ...}}}}}}")
    } else {
        e
    }
}
