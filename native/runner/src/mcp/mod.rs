//! MCP servers for the CLI: their configuration (`.openagent/mcp.json`, `mcp_servers:` in an
//! agent.yml), connecting them over stdio or Streamable HTTP at the start of a run or session,
//! and `openagent mcp list`.

mod config;
mod connect;

pub use config::{check, load, mcp_path, parse, Endpoint, EndpointError, McpConfigError, McpServerConfig, MCP_FILE};
pub use connect::{connect_all, register, release, warnings, McpServer};
