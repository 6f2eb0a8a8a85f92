//! The Streamable HTTP transport (MCP 2025-06-18, "Transports"): each message is a POST to the
//! server's one endpoint; the answer comes back as a JSON body or as an SSE stream; the session
//! id the server gives at `initialize` goes on every later request. Over the core's `HttpClient`
//! seam, so it runs natively and through `fetch` in a browser.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use async_trait::async_trait;
use futures::StreamExt;
use openagent_core::llm::http::{ByteStream, HttpClient, HttpRequest};
use openagent_core::llm::sse::SseDecoder;
use serde_json::Value;

use crate::jsonrpc;
use crate::{McpError, McpTransport};

/// A connection to one MCP endpoint over HTTP.
pub struct HttpTransport {
    url: String,
    headers: Vec<(String, String)>,
    http: Rc<dyn HttpClient>,
    session_id: RefCell<Option<String>>,
    protocol_version: RefCell<Option<String>>,
    /// Messages received and not yet handed over.
    queue: RefCell<VecDeque<Value>>,
    /// The SSE stream of the last POST, while it has not ended.
    stream: RefCell<Option<(ByteStream, SseDecoder)>>,
}

impl HttpTransport {
    /// `headers` go on every request (an `Authorization` header, say; never printed).
    pub fn new(url: impl Into<String>, headers: Vec<(String, String)>, http: Rc<dyn HttpClient>) -> Self {
        Self {
            url: url.into(),
            headers,
            http,
            session_id: RefCell::default(),
            protocol_version: RefCell::default(),
            queue: RefCell::default(),
            stream: RefCell::default(),
        }
    }

    /// The `Mcp-Session-Id` the server gave, if any.
    pub fn session_id(&self) -> Option<String> {
        self.session_id.borrow().clone()
    }

    fn push_json(&self, text: &str) -> Result<(), McpError> {
        match jsonrpc::parse(text)? {
            Value::Array(batch) => self.queue.borrow_mut().extend(batch),
            message => self.queue.borrow_mut().push_back(message),
        }
        Ok(())
    }
}

#[async_trait(?Send)]
impl McpTransport for HttpTransport {
    async fn send(&self, message: Value) -> Result<(), McpError> {
        self.stream.borrow_mut().take();
        let mut request = HttpRequest::post_json(self.url.clone(), openagent_core::llm::json_text::to_vec(&message));
        request.headers.push(("accept".into(), "application/json, text/event-stream".into()));
        if let Some(id) = self.session_id() {
            request.headers.push(("mcp-session-id".into(), id));
        }
        if let Some(version) = self.protocol_version.borrow().clone() {
            request.headers.push(("mcp-protocol-version".into(), version));
        }
        request.headers.extend(self.headers.iter().cloned());
        let url = &self.url;
        let response = self.http.send(request).await.map_err(|e| McpError::Transport(format!("POST {url}: {e}")))?;
        if let Some(id) = response.header("mcp-session-id") {
            *self.session_id.borrow_mut() = Some(id.to_owned());
        }
        let status = response.status;
        let sse = response.header("content-type").is_some_and(|t| t.starts_with("text/event-stream"));
        if status == 202 {
            return Ok(());
        }
        if !(200..300).contains(&status) {
            let body = response.bytes().await.unwrap_or_default();
            let body = String::from_utf8_lossy(&body);
            // The revision says 404; servers built on the TypeScript SDK's examples (the
            // reference servers among them) answer an unknown session id with 400 and say so.
            let forgot = status == 404 || (status == 400 && (body.contains("session") || body.contains("Session")));
            let expired = forgot && self.session_id.borrow_mut().take().is_some();
            let hint = if expired { " (the server ended the MCP session)" } else { "" };
            let message = format!("POST {url}: HTTP {status}{hint}: {}", body.chars().take(300).collect::<String>());
            return Err(if expired { McpError::SessionExpired(message) } else { McpError::Transport(message) });
        }
        if sse {
            *self.stream.borrow_mut() = Some((response.body, SseDecoder::new()));
            return Ok(());
        }
        let body = response.bytes().await.map_err(|e| McpError::Transport(format!("POST {url}: {e}")))?;
        let text = String::from_utf8_lossy(&body);
        if !text.trim().is_empty() {
            self.push_json(&text)?;
        }
        Ok(())
    }

    async fn receive(&self) -> Result<Value, McpError> {
        loop {
            if let Some(message) = self.queue.borrow_mut().pop_front() {
                return Ok(message);
            }
            let Some((mut body, mut decoder)) = self.stream.borrow_mut().take() else {
                return Err(McpError::Transport(format!("{}: the server sent no answer", self.url)));
            };
            let mut events = Vec::new();
            match body.next().await {
                Some(Ok(chunk)) => {
                    decoder.push(&chunk, &mut events);
                    *self.stream.borrow_mut() = Some((body, decoder));
                }
                Some(Err(e)) => return Err(McpError::Transport(format!("{}: the event stream broke: {e}", self.url))),
                None => decoder.finish(&mut events),
            }
            for event in events.iter().filter(|e| !e.data.trim().is_empty()) {
                self.push_json(&event.data)?;
            }
        }
    }

    fn set_protocol_version(&self, version: &str) {
        *self.protocol_version.borrow_mut() = Some(version.to_owned());
    }

    async fn close(&self) {
        self.stream.borrow_mut().take();
        // A DELETE would end the server's session early; the seam has only GET and POST, and
        // servers end idle sessions by themselves.
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use futures::executor::block_on;
    use openagent_core::llm::http::{HttpError, HttpResponse};
    use serde_json::json;

    use super::*;

    /// Answers `initialize` as SSE with a session id, anything else as JSON, notifications 202;
    /// keeps the headers it saw.
    #[derive(Default)]
    struct Server {
        seen: RefCell<Vec<Vec<(String, String)>>>,
    }

    #[async_trait(?Send)]
    impl HttpClient for Server {
        async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
            self.seen.borrow_mut().push(request.headers.clone());
            let message: Value = serde_json::from_slice(&request.body.to_vec()).expect("JSON");
            let reply = |content_type: &str, body: String, headers: Vec<(String, String)>| {
                let mut headers = headers;
                headers.push(("content-type".into(), content_type.into()));
                let body: ByteStream =
                    Box::pin(futures::stream::iter(body.into_bytes().chunks(7).map(|c| Ok(c.to_vec())).collect::<Vec<_>>()));
                Ok(HttpResponse { status: 200, headers, body })
            };
            match message["method"].as_str() {
                Some("initialize") => {
                    let answer = json!({"jsonrpc": "2.0", "id": message["id"], "result": {"protocolVersion": "2025-06-18"}});
                    reply(
                        "text/event-stream",
                        format!(": hi\n\nevent: message\ndata: {answer}\n\n"),
                        vec![("Mcp-Session-Id".into(), "s-1".into())],
                    )
                }
                Some("notifications/initialized") => {
                    Ok(HttpResponse { status: 202, headers: vec![], body: Box::pin(futures::stream::empty()) })
                }
                _ => reply(
                    "application/json",
                    json!({"jsonrpc": "2.0", "id": message["id"], "result": {"tools": []}}).to_string(),
                    vec![],
                ),
            }
        }
    }

    #[test]
    fn sse_and_json_answers_and_the_session_id() {
        let server = Rc::new(Server::default());
        let transport =
            Rc::new(HttpTransport::new("http://mcp.test/mcp", vec![("authorization".into(), "Bearer t".into())], server.clone()));
        let runtime = Rc::new(openagent_core::runtime::VirtualRuntime::new(|_| {}));
        let client = block_on(crate::McpClient::connect("t", transport.clone(), runtime, Default::default())).expect("connects");
        assert_eq!(transport.session_id().as_deref(), Some("s-1"));
        assert!(block_on(client.list_tools()).expect("tools").is_empty());
        let seen = server.seen.borrow();
        let last = &seen[2];
        let header = |name: &str| openagent_core::llm::http::find_header(last, name).map(str::to_owned);
        assert_eq!(header("mcp-session-id").as_deref(), Some("s-1"));
        assert_eq!(header("mcp-protocol-version").as_deref(), Some("2025-06-18"));
        assert_eq!(header("accept").as_deref(), Some("application/json, text/event-stream"));
        assert_eq!(header("authorization").as_deref(), Some("Bearer t"));
    }

    /// Gives session `s-N` at each `initialize`, and answers 404 to the first `tools/list`, as a
    /// server that restarted and forgot its sessions does.
    #[derive(Default)]
    struct Forgetful {
        sessions: std::cell::Cell<u32>,
        forgot: std::cell::Cell<bool>,
        seen: RefCell<Vec<(String, Option<String>)>>,
    }

    #[async_trait(?Send)]
    impl HttpClient for Forgetful {
        async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
            let message: Value = serde_json::from_slice(&request.body.to_vec()).expect("JSON");
            let method = message["method"].as_str().unwrap_or_default().to_owned();
            let session = openagent_core::llm::http::find_header(&request.headers, "mcp-session-id").map(str::to_owned);
            self.seen.borrow_mut().push((method.clone(), session));
            let empty = |status| Ok(HttpResponse { status, headers: vec![], body: Box::pin(futures::stream::empty()) });
            let json = |result: Value, headers: Vec<(String, String)>| {
                let body = json!({"jsonrpc": "2.0", "id": message["id"], "result": result}).to_string().into_bytes();
                let mut headers = headers;
                headers.push(("content-type".into(), "application/json".into()));
                Ok(HttpResponse { status: 200, headers, body: Box::pin(futures::stream::iter(vec![Ok(body)])) })
            };
            match method.as_str() {
                "initialize" => {
                    self.sessions.set(self.sessions.get() + 1);
                    let id = format!("s-{}", self.sessions.get());
                    json(json!({"protocolVersion": "2025-06-18"}), vec![("mcp-session-id".into(), id)])
                }
                "notifications/initialized" => empty(202),
                _ if !self.forgot.replace(true) => empty(404),
                _ => json(json!({"tools": [{"name": "again", "inputSchema": {"type": "object"}}]}), vec![]),
            }
        }
    }

    #[test]
    fn a_server_that_forgot_the_session_gets_a_new_one_and_the_request_again() {
        let server = Rc::new(Forgetful::default());
        let transport = Rc::new(HttpTransport::new("http://mcp.test/mcp", vec![], server.clone()));
        let runtime = Rc::new(openagent_core::runtime::VirtualRuntime::new(|_| {}));
        let client = block_on(crate::McpClient::connect("t", transport.clone(), runtime, Default::default())).expect("connects");
        let tools = block_on(client.list_tools()).expect("listed after a new session");
        assert_eq!(tools[0]["name"], "again");
        assert_eq!(transport.session_id().as_deref(), Some("s-2"));
        let seen = server.seen.borrow().clone();
        let expected = [
            ("initialize", None),
            ("notifications/initialized", Some("s-1")),
            ("tools/list", Some("s-1")),
            ("initialize", None),
            ("notifications/initialized", Some("s-2")),
            ("tools/list", Some("s-2")),
        ];
        let expected: Vec<(String, Option<String>)> =
            expected.iter().map(|(m, s)| (m.to_string(), s.map(str::to_owned))).collect();
        assert_eq!(seen, expected);
    }
}
