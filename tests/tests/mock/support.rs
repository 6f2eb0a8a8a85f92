//! Sending requests to a mock server and reading what comes back.

use futures::executor::block_on;
use futures::StreamExt;
use openagent_core::llm::http::{HttpClient, HttpError, HttpRequest, HttpResponse};
use openagent_core::llm::sse::{SseDecoder, SseEvent};
use openagent_host::NativeHttpClient;
use openagent_tests::{MockServer, Reply, Script, Step};
use serde_json::{json, Value};

/// A whole answer.
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn header(&self, name: &str) -> Option<&str> {
        openagent_core::llm::http::find_header(&self.headers, name)
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", String::from_utf8_lossy(&self.body)))
    }

    /// The body as SSE events, each `data` checked to be JSON unless it is `[DONE]`.
    pub fn sse(&self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let mut decoder = SseDecoder::new();
        decoder.push(&self.body, &mut events);
        decoder.finish(&mut events);
        for event in &events {
            if event.data != "[DONE]" {
                serde_json::from_str::<Value>(&event.data)
                    .unwrap_or_else(|e| panic!("event data is not JSON ({e}): {}", event.data));
            }
        }
        events
    }

    /// The `data` of each SSE event, parsed (a `[DONE]` marker is left out).
    pub fn sse_json(&self) -> Vec<Value> {
        self.sse().iter().filter(|e| e.data != "[DONE]").map(|e| serde_json::from_str(&e.data).expect("JSON data")).collect()
    }
}

pub fn send(request: HttpRequest) -> Result<HttpResponse, HttpError> {
    block_on(NativeHttpClient::new().send(request))
}

/// POSTs `body` to `path` and reads the whole answer; panics on a transport error.
pub fn post(server: &MockServer, path: &str, body: &Value) -> Answer {
    let request = HttpRequest::post_json(format!("{}{path}", server.base_url()), body.to_string().into_bytes());
    let response = send(request).unwrap_or_else(|e| panic!("POST {path}: {e}"));
    let (status, headers) = (response.status, response.headers.clone());
    let body = block_on(response.bytes()).unwrap_or_else(|e| panic!("POST {path} body: {e}"));
    Answer { status, headers, body }
}

/// Reads a body chunk by chunk until it ends or fails: the bytes that came, and the error if any.
pub fn read_until_error(response: HttpResponse) -> (Vec<u8>, Option<HttpError>) {
    let mut body = response.body;
    let mut bytes = Vec::new();
    while let Some(chunk) = block_on(body.next()) {
        match chunk {
            Ok(chunk) => bytes.extend(chunk),
            Err(e) => return (bytes, Some(e)),
        }
    }
    (bytes, None)
}

/// A server that plays `steps`.
pub fn serve(steps: impl IntoIterator<Item = Step>) -> MockServer {
    MockServer::start(Script::new(steps)).expect("a free loopback port")
}

/// The reply every shape test encodes: reasoning, text and two tool calls.
pub fn full_reply() -> Reply {
    Reply::text("I will read both files.")
        .with_reasoning("The user wants two files read.")
        .with_tool_call("read_file", json!({"path": "src/main.rs"}))
        .with_tool_call("read_file", json!({"path": "Cargo.toml", "limit": 20}))
        .with_usage(120, 45)
}

/// The request paths of the four APIs, streamed or not.
pub const GEMINI_PATH: &str = "/v1beta/models/gemini-2.5-flash:generateContent";
pub const GEMINI_STREAM_SSE: &str = "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse";
pub const GEMINI_STREAM_ARRAY: &str = "/v1beta/models/gemini-2.5-flash:streamGenerateContent";
