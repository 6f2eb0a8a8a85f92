//! The one error type of the MCP layer.

/// Why talking to an MCP server failed. Messages name the server's side of the problem and what
/// to check.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    /// The transport could not deliver or receive (a refused connection, a closed pipe, an HTTP
    /// status), or the server went away.
    #[error("{0}")]
    Transport(String),
    /// Streamable HTTP: the server no longer knows the session (404, or a 400 that says so, to a request carrying its
    /// id: it restarted, or ended the session). The client starts a new one and tries again.
    #[error("{0}")]
    SessionExpired(String),
    /// No answer within the request timeout.
    #[error("the server did not answer `{method}` within {ms} ms; check that it is an MCP server and that it is running, or raise the timeout")]
    Timeout { method: String, ms: u64 },
    /// The server answered with a JSON-RPC error.
    #[error("the server answered `{method}` with error {code}: {message}")]
    Rpc { method: String, code: i64, message: String },
    /// The server broke the protocol: a message that is not JSON-RPC, an answer of the wrong shape.
    #[error("the server broke the protocol: {0}")]
    Protocol(String),
    /// Client and server share no protocol revision.
    #[error("the server speaks MCP revision {server}, which this client does not support (it supports {supported})")]
    UnsupportedVersion { server: String, supported: String },
}
