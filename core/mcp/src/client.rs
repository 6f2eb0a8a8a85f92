//! The MCP lifecycle over a transport: `initialize` and its version negotiation,
//! `notifications/initialized`, then requests one at a time, each under a timeout.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::future::LocalBoxFuture;
use openagent_core::runtime::{timeout, Runtime};
use serde_json::{json, Value};

use crate::jsonrpc::{self, Incoming};
use crate::turn::Turns;
use crate::{McpError, McpTransport, ToolsChanged};

/// The protocol revisions this client speaks, newest first; it asks for the first.
pub const PROTOCOL_VERSIONS: [&str; 2] = ["2025-11-25", "2025-06-18"];

/// How the client behaves.
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// Every request, `initialize` included, fails after this long without an answer.
    pub timeout_ms: u64,
    /// Sent as `clientInfo`.
    pub client_name: String,
    pub client_version: String,
}

impl Default for McpOptions {
    fn default() -> Self {
        Self { timeout_ms: 60_000, client_name: "openagent".into(), client_version: env!("CARGO_PKG_VERSION").into() }
    }
}

/// What the server said of itself in its `initialize` answer.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ServerInfo {
    pub name: String,
    pub version: String,
    /// The negotiated revision.
    pub protocol_version: String,
    pub instructions: Option<String>,
}

/// A connected MCP server. Requests go one at a time (a call waits for the one before it), so any
/// transport that keeps the server's order will do; answers are matched by id, so an answer that
/// comes after its request timed out is dropped.
pub struct McpClient {
    name: String,
    transport: Rc<dyn McpTransport>,
    runtime: Rc<dyn Runtime>,
    options: McpOptions,
    next_id: Cell<u64>,
    turns: Turns,
    server: RefCell<ServerInfo>,
    tools_changed: Cell<bool>,
    pub(crate) on_tools_changed: RefCell<Option<ToolsChanged>>,
    pub(crate) tool_names: RefCell<Vec<String>>,
}

impl McpClient {
    /// Connects: `initialize` (asking for the newest revision and accepting any the server
    /// answers that this client speaks), then `notifications/initialized`. `name` is the server's
    /// name in the configuration, which names its tools.
    pub async fn connect(
        name: impl Into<String>,
        transport: Rc<dyn McpTransport>,
        runtime: Rc<dyn Runtime>,
        options: McpOptions,
    ) -> Result<Rc<Self>, McpError> {
        let client = Rc::new(Self {
            name: name.into(),
            transport,
            runtime,
            options,
            next_id: Cell::new(0),
            turns: Turns::default(),
            server: RefCell::default(),
            tools_changed: Cell::new(false),
            on_tools_changed: RefCell::default(),
            tool_names: RefCell::default(),
        });
        client.initialize().await?;
        Ok(client)
    }

    /// The lifecycle's start: `initialize`, the revision checked, `notifications/initialized`.
    fn initialize(&self) -> LocalBoxFuture<'_, Result<(), McpError>> {
        // Boxed: connecting and a new session after an expired one share it.
        Box::pin(async move {
            let params = json!({
                "protocolVersion": PROTOCOL_VERSIONS[0],
                "capabilities": {},
                "clientInfo": {"name": self.options.client_name, "version": self.options.client_version},
            });
            let result = self.request("initialize", params).await?;
            let version = result.get("protocolVersion").and_then(Value::as_str).unwrap_or_default();
            if version.is_empty() {
                return Err(McpError::Protocol("the `initialize` answer has no protocolVersion".into()));
            }
            if !PROTOCOL_VERSIONS.contains(&version) {
                self.transport.close().await;
                return Err(McpError::UnsupportedVersion { server: version.into(), supported: PROTOCOL_VERSIONS.join(", ") });
            }
            self.transport.set_protocol_version(version);
            let text = |value: &Value| value.as_str().unwrap_or_default().to_owned();
            *self.server.borrow_mut() = ServerInfo {
                name: text(&result["serverInfo"]["name"]),
                version: text(&result["serverInfo"]["version"]),
                protocol_version: version.into(),
                instructions: result.get("instructions").and_then(Value::as_str).map(str::to_owned),
            };
            self.transport.send(jsonrpc::notification("notifications/initialized")).await
        })
    }

    /// The server's name in the configuration.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn server_info(&self) -> ServerInfo {
        self.server.borrow().clone()
    }

    /// Sends a request and waits for its answer, at most the configured timeout. Meanwhile it
    /// answers the server's `ping` and notes `notifications/tools/list_changed`. When the server
    /// has forgotten the session (it restarted), a new one is started and the request sent again.
    pub fn request<'a>(&'a self, method: &'a str, params: Value) -> LocalBoxFuture<'a, Result<Value, McpError>> {
        // Boxed, so every caller shares one copy of this state machine: the browser bundle is a
        // budget, and each inlined copy of an async request weighs kilobytes there.
        Box::pin(async move {
            match self.request_once(method, params.clone()).await {
                Err(McpError::SessionExpired(_)) if method != "initialize" => {
                    self.initialize().await?;
                    self.request_once(method, params).await
                }
                outcome => outcome,
            }
        })
    }

    fn request_once<'a>(&'a self, method: &'a str, params: Value) -> LocalBoxFuture<'a, Result<Value, McpError>> {
        // Boxed too: `request` awaits it twice, and one copy is enough.
        Box::pin(async move {
            let _turn = self.turns.take().await;
            let id = self.next_id.get() + 1;
            self.next_id.set(id);
            let ms = self.options.timeout_ms;
            let exchange = self.exchange(id, method, params);
            timeout(&*self.runtime, ms, exchange).await.unwrap_or_else(|| Err(McpError::Timeout { method: method.into(), ms }))
        })
    }

    async fn exchange(&self, id: u64, method: &str, params: Value) -> Result<Value, McpError> {
        self.transport.send(jsonrpc::request(id, method, params)).await?;
        loop {
            match jsonrpc::classify(self.transport.receive().await?)? {
                Incoming::Response { id: answered, outcome } if answered == json!(id) => {
                    return outcome.map_err(|(code, message)| McpError::Rpc { method: method.into(), code, message });
                }
                Incoming::Response { .. } => {} // the late answer to a request that timed out
                Incoming::Request { id, method } => {
                    // We declare no client capabilities, so only `ping` is the server's to ask.
                    let answer = match method.as_str() {
                        "ping" => json!({"jsonrpc": "2.0", "id": id, "result": {}}),
                        _ => {
                            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("the client does not support {method}")}})
                        }
                    };
                    self.transport.send(answer).await?;
                }
                Incoming::Notification { method } => {
                    if method == "notifications/tools/list_changed" {
                        self.tools_changed.set(true);
                    }
                }
            }
        }
    }

    /// `tools/list`, every page: the raw tool objects.
    pub async fn list_tools(&self) -> Result<Vec<Value>, McpError> {
        const MAX_PAGES: usize = 1000; // a server that repeats its cursor must not hold us forever
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        for _ in 0..MAX_PAGES {
            let params = match &cursor {
                Some(cursor) => json!({"cursor": cursor}),
                None => json!({}),
            };
            let page = self.request("tools/list", params).await?;
            match page.get("tools").and_then(Value::as_array) {
                Some(page_tools) => tools.extend(page_tools.iter().cloned()),
                None => return Err(McpError::Protocol("the `tools/list` answer has no tools array".into())),
            }
            cursor = page.get("nextCursor").and_then(Value::as_str).map(str::to_owned);
            if cursor.is_none() {
                return Ok(tools);
            }
        }
        Err(McpError::Protocol(format!("`tools/list` still had a next page after {MAX_PAGES} pages")))
    }

    /// `tools/call`: the server's result object (content, `isError`, structured content).
    pub async fn call_tool(&self, tool: &str, arguments: Value) -> Result<Value, McpError> {
        self.request("tools/call", json!({"name": tool, "arguments": arguments})).await
    }

    /// Whether the server said its tools changed since this was last asked.
    pub fn take_tools_changed(&self) -> bool {
        self.tools_changed.replace(false)
    }

    /// Ends the connection (stdio: stops the server).
    pub async fn close(&self) {
        self.transport.close().await;
    }
}

#[cfg(test)]
#[path = "client_tests.rs"]
mod tests;
