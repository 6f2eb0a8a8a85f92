//! The transport seam: how JSON-RPC messages travel to a server and back.

use async_trait::async_trait;
use serde_json::Value;

use crate::McpError;

/// One connection to an MCP server, carrying whole JSON-RPC messages. The client sends one
/// request at a time and then receives until its answer arrives, so a transport need not match
/// answers to requests; it hands messages over in the order the server sent them.
///
/// Natively stdio implements it over a child process's pipes; [`crate::HttpTransport`] over the
/// core's `HttpClient`. Futures need not be `Send`.
#[async_trait(?Send)]
pub trait McpTransport {
    /// Sends one message (a request, a notification or an answer to the server's request).
    async fn send(&self, message: Value) -> Result<(), McpError>;
    /// The next message from the server. An error means the connection is over (the process
    /// exited, the stream broke) or, for HTTP, that nothing more is pending.
    async fn receive(&self) -> Result<Value, McpError>;
    /// The negotiated protocol revision, which HTTP sends in a header on later requests.
    fn set_protocol_version(&self, _version: &str) {}
    /// Ends the connection: stdio stops the server's process, HTTP ends its session.
    async fn close(&self) {}
}
