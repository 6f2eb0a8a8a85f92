//! Connecting the configured servers and putting their tools in a session.

use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;

use openagent_core::llm::http::HttpClient;
use openagent_core::{Runtime, Session};
use openagent_mcp::{HttpTransport, McpClient, McpError, McpOptions, McpTools, McpTransport};

use super::config::{Endpoint, McpServerConfig};
use openagent_host::mcp_stdio::StdioTransport;

/// A configured server after trying to connect: its client and tools, or why not.
pub struct McpServer {
    pub name: String,
    pub config: McpServerConfig,
    pub connection: Result<(Rc<McpClient>, McpTools), McpError>,
}

/// Connects to each server in turn and lists its tools. A server that fails is kept with its
/// error: the others and the session go on without it.
pub async fn connect_all(
    servers: &BTreeMap<String, McpServerConfig>,
    cwd: &Path,
    http: Rc<dyn HttpClient>,
    runtime: Rc<dyn Runtime>,
) -> Vec<McpServer> {
    let mut out = Vec::new();
    for (name, config) in servers {
        let connection = connect(name, config, cwd, http.clone(), runtime.clone()).await;
        out.push(McpServer { name: name.clone(), config: config.clone(), connection });
    }
    out
}

async fn connect(
    name: &str,
    config: &McpServerConfig,
    cwd: &Path,
    http: Rc<dyn HttpClient>,
    runtime: Rc<dyn Runtime>,
) -> Result<(Rc<McpClient>, McpTools), McpError> {
    let transport: Rc<dyn McpTransport> = match config.endpoint().map_err(|e| McpError::Transport(e.to_string()))? {
        Endpoint::Stdio { command, args, env } => {
            Rc::new(StdioTransport::spawn(name, command, args, env, cwd, config.runs_under().as_ref())?)
        }
        Endpoint::Http { url, headers } => {
            Rc::new(HttpTransport::new(url, headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect(), http))
        }
    };
    let mut options = McpOptions::default();
    if let Some(ms) = config.timeout_ms {
        options.timeout_ms = ms;
    }
    let client = McpClient::connect(name, transport.clone(), runtime, options).await.map_err(|e| with_name(name, e))?;
    let tools = client.tools().await.map_err(|e| with_name(name, e))?;
    Ok((client, tools))
}

/// An error that does not say which server it came from, saying so.
fn with_name(name: &str, error: McpError) -> McpError {
    match error {
        McpError::Transport(message) if message.contains(name) => McpError::Transport(message),
        McpError::Transport(message) => McpError::Transport(format!("MCP server {name}: {message}")),
        other => McpError::Transport(format!("MCP server {name}: {other}")),
    }
}

/// What a run says before it starts: a server that failed, a tool that was skipped.
pub fn warnings(servers: &[McpServer]) -> Vec<String> {
    let mut out = Vec::new();
    for server in servers {
        match &server.connection {
            Ok((_, tools)) => out.extend(tools.warnings.iter().cloned()),
            Err(error) => out.push(format!("{error} (its tools are left out)")),
        }
    }
    out
}

/// Registers the connected servers' tools in `session`, and keeps them current when a server
/// says its list changed.
pub fn register(session: &Session, servers: &[McpServer]) {
    for server in servers {
        if let Ok((client, tools)) = &server.connection {
            client.register_in(session, tools);
        }
    }
}

/// Lets the servers go: their handlers (which hold the sessions) are dropped, so the last session
/// dropped drops the clients, whose transports stop the servers' processes.
pub fn release(servers: &[McpServer]) {
    for server in servers {
        if let Ok((client, _)) = &server.connection {
            client.on_tools_changed(None);
        }
    }
}
