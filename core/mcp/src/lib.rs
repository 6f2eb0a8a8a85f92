//! # openagent-mcp
//!
//! A Model Context Protocol client: it connects to an MCP server, negotiates the protocol
//! revision (2025-06-18 or newer), lists the server's tools (following `nextCursor`) and calls
//! them, and turns each into a [`RegisteredTool`](openagent_core::tools::RegisteredTool) named
//! `mcp__<server>__<tool>` that any session can offer its model. A tool whose `inputSchema` the
//! core's validator cannot compile is skipped with a warning; a server's `isError` result reaches
//! the model as an error result, text, images and resources as its output.
//!
//! It is a crate of its own because it is one job, like the LLM layer or the validator: a
//! protocol and its wire, testable alone. It sits above the core (it builds the core's tools) and
//! below the hosts, which pick a transport: [`McpTransport`] is the seam. [`HttpTransport`]
//! (Streamable HTTP) is here, over the core's `HttpClient` seam, so the same code reaches a
//! server natively and through `fetch` in a browser; stdio spawns a process and so lives in the
//! native host. Like the core it is runtime-agnostic: no executor, no I/O of its own, no `Send`,
//! timers from the `Runtime` seam; it builds and passes its tests on `wasm32-unknown-unknown`.
//! It must not depend on a host.

mod client;
mod content;
mod error;
mod http;
pub mod jsonrpc;
mod tools;
mod transport;
mod turn;

pub use client::{McpClient, McpOptions, ServerInfo, PROTOCOL_VERSIONS};
pub use content::tool_output;
pub use error::McpError;
pub use http::HttpTransport;
pub use tools::{is_server_name, tool_name, McpTool, McpTools, ToolsChanged};
pub use transport::McpTransport;
