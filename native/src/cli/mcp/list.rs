//! `openagent mcp list`: each configured server, whether it connects (or why not) and its tools.

use std::path::Path;
use std::rc::Rc;

use std::io::Write;

use serde_json::json;

use super::{connect_all, load};
use crate::cli::agents;
use crate::host::http::NativeHttpClient;
use crate::host::runtime::NativeRuntime;

/// A line on stdout; a reader that stops early (`| head`) is no error, and the servers are still
/// stopped as they should be.
macro_rules! say {
    ($($line:tt)*) => {
        let _ = writeln!(std::io::stdout().lock(), $($line)*);
    };
}

/// Prints the servers of `cwd` (with `agent`'s on top) and returns the exit code: 0 when every
/// server connected, 1 when one did not, 2 when the configuration is broken.
pub fn run(cwd: &Path, agent: Option<&str>, json: bool) -> u8 {
    let overrides = match agent.map(|id| agents::load(cwd, id)).transpose() {
        Ok(config) => config.map(|c| c.mcp_servers).unwrap_or_default(),
        Err(error) => {
            eprintln!("error: {error}");
            return 2;
        }
    };
    let servers = match load(cwd, &overrides) {
        Ok(servers) => servers,
        Err(error) => {
            eprintln!("error: {error}");
            return 2;
        }
    };
    if servers.is_empty() && !json {
        say!("no MCP servers: configure them in {} or in an agent's mcp_servers", super::MCP_FILE);
        return 0;
    }
    let runtime = Rc::new(NativeRuntime::new());
    let connected = runtime.block_on(connect_all(&servers, cwd, Rc::new(NativeHttpClient::new()), runtime.clone()));
    let mut failed = false;
    let mut rows = Vec::new();
    for server in &connected {
        let described = server.config.describe();
        match &server.connection {
            Ok((client, tools)) => {
                let info = client.server_info();
                if json {
                    let list: Vec<_> = tools
                        .tools
                        .iter()
                        .map(|t| json!({"name": t.definition.name, "description": t.definition.description}))
                        .collect();
                    rows.push(json!({"name": server.name, "endpoint": described, "status": "connected", "server": info.name,
                        "version": info.version, "protocol_version": info.protocol_version, "tools": list, "warnings": tools.warnings}));
                } else {
                    say!(
                        "{}  connected  ({described}; {} {}, MCP {}), {} tools",
                        server.name,
                        info.name,
                        info.version,
                        info.protocol_version,
                        tools.tools.len()
                    );
                    for tool in &tools.tools {
                        let first = tool.definition.description.lines().next().unwrap_or_default();
                        say!("  {}  {first}", tool.definition.name);
                    }
                    for warning in &tools.warnings {
                        say!("  warning: {warning}");
                    }
                }
                client_close(&runtime, client);
            }
            Err(error) => {
                failed = true;
                if json {
                    rows.push(json!({"name": server.name, "endpoint": described, "status": "error", "error": error.to_string()}));
                } else {
                    say!("{}  error  ({described}): {error}", server.name);
                }
            }
        }
    }
    if json {
        say!("{}", serde_json::Value::Array(rows));
    }
    u8::from(failed)
}

fn client_close(runtime: &NativeRuntime, client: &openagent_mcp::McpClient) {
    runtime.block_on(client.close());
}
