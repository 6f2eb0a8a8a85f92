//! `openagent mcp list`: each configured server, whether it connects (or why not) and its tools.

use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;

use std::io::Write;

use serde_json::json;

use openagent_host::http::NativeHttpClient;
use openagent_host::runtime::NativeRuntime;
use openagent_runner::agents;
use openagent_runner::mcp::{connect_all, load, McpServerConfig};
use openagent_runner::trust;

/// A line on stdout; a reader that stops early (`| head`) is no error, and the servers are still
/// stopped as they should be.
macro_rules! say {
    ($($line:tt)*) => {
        let _ = writeln!(std::io::stdout().lock(), $($line)*);
    };
}

/// Prints the servers of `cwd` (with `agent`'s on top) and returns the exit code: 0 when every
/// server connected, 1 when one did not or is not trusted (and so was not started: the trust
/// store is in `data_dir`), 2 when the configuration is broken.
pub fn run(cwd: &Path, agent: Option<&str>, json: bool, data_dir: &Path) -> u8 {
    let cwd = &cwd.canonicalize().unwrap_or_else(|_| cwd.to_owned());
    let config = match agent.map(|id| agents::load(cwd, id)).transpose() {
        Ok(config) => config,
        Err(error) => {
            eprintln!("error: {error}");
            return 2;
        }
    };
    let overrides = config.as_ref().map(|c| c.mcp_servers.clone()).unwrap_or_default();
    let servers = match load(cwd, &overrides) {
        Ok(servers) => servers,
        Err(error) => {
            eprintln!("error: {error}");
            return 2;
        }
    };
    if servers.is_empty() && !json {
        say!("no MCP servers: configure them in {} or in an agent's mcp_servers", openagent_runner::mcp::MCP_FILE);
        return 0;
    }
    let files = match trust::statuses(Some(data_dir), cwd, &trust::project_files(cwd, config.as_ref())) {
        Ok(files) => files,
        Err(error) => {
            eprintln!("error: {error}");
            return 2;
        }
    };
    // Each server is its file's: the agent's when the agent names it, else mcp.json.
    let untrusted = |name: &str| {
        let file = match (&config, overrides.contains_key(name)) {
            (Some(agent), true) => cwd.join(trust::agent_file(&agent.id)),
            _ => cwd.join(openagent_runner::mcp::MCP_FILE),
        };
        files.iter().find(|(at, status)| *at == file && *status != trust::Status::Trusted).cloned()
    };
    let (trusted, held): (BTreeMap<_, _>, BTreeMap<_, _>) = servers.into_iter().partition(|(name, _)| untrusted(name).is_none());
    let runtime = Rc::new(NativeRuntime::new());
    let connected = runtime.block_on(connect_all(&trusted, cwd, Rc::new(NativeHttpClient::new()), runtime.clone()));
    let mut failed = false;
    let mut rows = Vec::new();
    for server in &connected {
        let described = server.config.describe_with_sandbox();
        let sandbox = sandbox(&server.config);
        match &server.connection {
            Ok((client, tools)) => {
                let info = client.server_info();
                if json {
                    let list: Vec<_> = tools
                        .tools
                        .iter()
                        .map(|t| json!({"name": t.definition.name, "description": t.definition.description}))
                        .collect();
                    rows.push(json!({"name": server.name, "endpoint": server.config.describe(), "sandbox": sandbox, "status": "connected", "server": info.name,
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
                    rows.push(json!({"name": server.name, "endpoint": server.config.describe(), "sandbox": sandbox,
                        "status": "error", "error": error.to_string()}));
                } else {
                    say!("{}  error  ({described}): {error}", server.name);
                }
            }
        }
    }
    for (name, server) in &held {
        failed = true;
        let Some((file, status)) = untrusted(name) else { continue };
        let why = trust::refusal(&file, status, cwd, Some(data_dir)).to_string();
        match json {
            true => rows.push(
                json!({"name": name, "endpoint": server.describe(), "sandbox": sandbox(server), "status": "untrusted", "error": why}),
            ),
            false => {
                say!("{name}  untrusted  ({}): not started: {why}", server.describe_with_sandbox());
            }
        }
    }
    if json {
        say!("{}", serde_json::Value::Array(rows));
    }
    u8::from(failed)
}

/// The policy a stdio server runs under, as JSON; `null` for an HTTP server.
fn sandbox(config: &McpServerConfig) -> serde_json::Value {
    serde_json::to_value(config.runs_under()).expect("a policy serialises")
}

fn client_close(runtime: &NativeRuntime, client: &openagent_mcp::McpClient) {
    runtime.block_on(client.close());
}
