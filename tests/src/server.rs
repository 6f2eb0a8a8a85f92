//! [`MockServer`]: plays a [`Script`] over HTTP on 127.0.0.1, and records every request it gets.
//! It is served by the native host's HTTP server (hyper, [`http_server`]), each request answered
//! on a worker thread of its own, so that a slow first byte holds up only its own request.

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, Write};
use std::net::{SocketAddr, TcpListener};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread;
use std::time::Duration;

use openagent_core::llm::http::{find_header, redacted_headers};
use openagent_http_server::{self as http_server, Answer, BadRequest, Limits, Request, Responder, Serving};
use serde_json::{json, Value};

use crate::api::{route, Api, Route, ROUTES};
use crate::ids::Ids;
use crate::script::{Action, Script, Step};
use crate::wire::{Call, WireBody};

/// Far more connections than a test opens, bodies as large as a long conversation, and a minute
/// at most for a client that sends nothing, so that nothing lingers after a test.
const LIMITS: Limits = Limits {
    connections: 1024,
    workers: 256,
    head_within: Duration::from_secs(30),
    body_within: Duration::from_secs(30),
    max_body: 64 * 1024 * 1024,
};

/// One fixed seed: the same script yields the same ids on every run.
const ID_SEED: u64 = 0x6f70_656e_6167_656e;

/// Every answer carries these, so a browser page on any origin can call the mock directly.
const CORS: [(&str, &str); 3] = [
    ("access-control-allow-origin", "*"),
    // Browsers hide other response headers from scripts unless they are listed here.
    ("access-control-expose-headers", "retry-after, request-id, x-request-id"),
    ("access-control-allow-methods", "GET, POST, OPTIONS"),
];

/// What a preflight (`OPTIONS`) answer adds: the request headers the four APIs need.
const PREFLIGHT: [(&str, &str); 2] = [
    (
        "access-control-allow-headers",
        "authorization, x-api-key, anthropic-version, anthropic-beta, anthropic-dangerous-direct-browser-access, \
         x-goog-api-key, content-type",
    ),
    ("access-control-max-age", "600"),
];

/// A request as the server received it.
#[derive(Clone, PartialEq)]
pub struct RecordedRequest {
    pub method: String,
    /// Path and query, as sent.
    pub path: String,
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON; `Null` when empty, a string when it is not JSON.
    pub body: Value,
    /// The API the path belongs to, if any.
    pub api: Option<Api>,
}

impl RecordedRequest {
    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

/// Credentials stay out of test failure output.
impl fmt::Debug for RecordedRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RecordedRequest")
            .field("method", &self.method)
            .field("path", &self.path)
            .field("headers", &redacted_headers(&self.headers))
            .field("body", &self.body)
            .field("api", &self.api)
            .finish()
    }
}

/// The path that lists the requests so far, as `[{method, path, body}]`, for tests outside Rust
/// (a browser's request events do not carry a body sent as a `Blob`).
const REQUEST_LOG: &str = "/mock/requests";

/// A running mock LLM server. It stops, and its port closes, when this handle is dropped.
///
/// ```
/// use openagent_tests::{MockServer, Reply, Script, Step};
///
/// let server = MockServer::start(Script::new([Step::reply(Reply::text("Hello!"))])).expect("a free port");
/// let base_url = server.base_url(); // e.g. http://127.0.0.1:41234; POST {base_url}/v1/messages
/// assert!(base_url.starts_with("http://127.0.0.1:"));
/// ```
pub struct MockServer {
    addr: SocketAddr,
    shared: Arc<Shared>,
    _serving: Serving,
}

struct Shared {
    state: Mutex<State>,
}

struct State {
    steps: VecDeque<Step>,
    served: usize,
    requests: Vec<RecordedRequest>,
    ids: Ids,
    /// What `GET /v1/models` answers, as an OpenAI-compatible server lists its models; unset, a 404.
    models: Option<Value>,
}

impl MockServer {
    /// Serves `script` on a free port of 127.0.0.1.
    pub fn start(script: Script) -> io::Result<Self> {
        Self::start_on(script, 0)
    }

    /// Serves `script` on 127.0.0.1:`port` (0 picks a free one).
    pub fn start_on(script: Script, port: u16) -> io::Result<Self> {
        let listener = TcpListener::bind(("127.0.0.1", port))?;
        let addr = listener.local_addr()?;
        let state = State { steps: script.steps.into(), served: 0, requests: Vec::new(), ids: Ids::new(ID_SEED), models: None };
        let shared = Arc::new(Shared { state: Mutex::new(state) });
        let serving = http_server::spawn(listener, "mock-llm", LIMITS, Mock(shared.clone()))?;
        Ok(Self { addr, shared, _serving: serving })
    }

    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// `http://127.0.0.1:PORT`, the base URL for every provider.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every request so far, in arrival order (preflights and unknown paths included).
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.shared.lock().requests.clone()
    }

    /// Steps not served yet.
    pub fn remaining(&self) -> usize {
        self.shared.lock().steps.len()
    }

    /// Answers `GET /v1/models` with `listing` from now on (`{"data": [{"id": ...}, ...]}`), as
    /// llama.cpp, vLLM and other OpenAI-compatible servers do.
    pub fn list_models(&self, listing: Value) {
        self.shared.lock().models = Some(listing);
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding the lock in a way that leaves the state half-changed.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The script as the HTTP server serves it.
struct Mock(Arc<Shared>);

impl http_server::Service for Mock {
    fn refuse(&self, refused: &BadRequest) -> Answer {
        json_answer(refused.status, Vec::new(), &json!({"error": {"message": format!("mock-llm: {}", refused.message)}}))
    }

    /// Records the request, then answers it: a preflight, a step of the script, or a 404.
    /// `GET /mock/requests` is not recorded: it answers with the requests so far.
    fn answer(&self, request: Request, responder: Responder) {
        let shared = &self.0;
        if request.method == "GET" && path_only(&request.target) == REQUEST_LOG {
            let log: Vec<Value> =
                shared.lock().requests.iter().map(|r| json!({"method": r.method, "path": r.path, "body": r.body})).collect();
            return responder.send(json_answer(200, Vec::new(), &Value::Array(log)));
        }
        let body = parse_body(&request.body);
        let route = (request.method == "POST").then(|| route(&request.target, &body)).flatten();
        shared.lock().requests.push(RecordedRequest {
            method: request.method.clone(),
            path: request.target.clone(),
            headers: request.headers,
            body: body.clone(),
            api: route.as_ref().map(|r| r.api),
        });
        let models = shared.lock().models.clone().filter(|_| path_only(&request.target) == "/v1/models");
        match (request.method.as_str(), route) {
            ("GET", None) if models.is_some() => responder.send(json_answer(200, Vec::new(), &models.unwrap_or_default())),
            ("OPTIONS", _) => {
                responder.send(PREFLIGHT.iter().fold(cors(204), |answer, (name, value)| answer.header(name, *value)))
            }
            (_, Some(route)) => answer(responder, shared, &request.method, &request.target, &route, &body),
            (method, None) => {
                let message = format!("mock-llm: no route for {method} {}; routes: {ROUTES}", path_only(&request.target));
                responder.send(json_answer(404, Vec::new(), &json!({"error": {"message": message}})));
            }
        }
    }
}

/// Plays the next step meant for this API.
fn answer(responder: Responder, shared: &Shared, method: &str, target: &str, route: &Route, body: &Value) {
    let call = Call { model: &route.model, body };
    let mut state = shared.lock();
    let position = state.steps.iter().position(|step| step.expect.is_none_or(|api| api == route.api));
    let Some(step) = position.and_then(|i| state.steps.remove(i)) else {
        let message = format!(
            "mock-llm: no script step for {method} {} ({}): {} served, {} left{}",
            path_only(target),
            route.api,
            state.served,
            state.steps.len(),
            if state.steps.is_empty() { "; the script is exhausted" } else { ", none expecting this API" },
        );
        let body = route.api.error_body(500, &message, &mut state.ids);
        return responder.send(json_answer(500, Vec::new(), &body));
    };
    state.served += 1;
    let mut headers: Vec<(&str, String)> = route.api.request_id(&mut state.ids).into_iter().collect();
    let (reply, delay_ms, cut) = match step.action {
        Action::Reply(reply) => (reply, 0, false),
        Action::DropMidStream(reply) => (reply, 0, true),
        Action::SlowFirstByte { delay_ms, reply } => (reply, delay_ms, false),
        Action::Error { status, retry_after, message } => {
            let message = message.unwrap_or_else(|| default_message(status).to_owned());
            let body = route.api.error_body(status, &message, &mut state.ids);
            headers.extend(retry_after.map(|s| ("retry-after", s.to_string())));
            drop(state);
            return responder.send(json_answer(status, headers, &body));
        }
    };
    let wire = route.api.encode(&reply, &call, route.framing, &mut state.ids);
    drop(state);
    thread::sleep(Duration::from_millis(delay_ms));
    send(responder, headers, &wire, cut);
}

/// Sends a 200 with `wire`; with `cut`, only about half of it, and then the connection closes
/// without the body's proper end. A failed write means the client went away: there is nobody
/// left to tell.
fn send(responder: Responder, headers: Vec<(&'static str, String)>, wire: &WireBody, cut: bool) {
    let mut head = cors(200);
    head.headers.extend(headers);
    let head = head.header("content-type", wire.content_type);
    if wire.streamed {
        let mut out = responder.stream(head.header("cache-control", "no-cache"));
        let sent = if cut { wire.frames.len() / 2 } else { wire.frames.len() };
        for frame in &wire.frames[..sent] {
            // Each frame goes out at once: a stream's event must not wait in a buffer.
            if out.write_all(frame).and_then(|()| out.flush()).is_err() {
                return;
            }
        }
        if cut {
            out.cut();
        }
    } else if cut {
        let body = wire.bytes();
        let mut out = responder.stream(head.header("content-length", body.len().to_string()));
        let _ = out.write_all(&body[..body.len() / 2]);
        out.cut();
    } else {
        responder.send(Answer { body: wire.bytes(), ..head });
    }
}

/// An answer with the CORS headers every answer carries.
fn cors(status: u16) -> Answer {
    CORS.iter().fold(Answer::new(status, Vec::new()), |answer, (name, value)| answer.header(name, *value))
}

fn json_answer(status: u16, headers: Vec<(&'static str, String)>, body: &Value) -> Answer {
    let mut answer = cors(status);
    answer.headers.extend(headers);
    Answer { body: body.to_string().into_bytes(), ..answer.header("content-type", "application/json") }
}

fn parse_body(body: &[u8]) -> Value {
    if body.is_empty() {
        return Value::Null;
    }
    serde_json::from_slice(body).unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned()))
}

/// A path without its query, which may hold an API key (Gemini's `?key=`).
fn path_only(target: &str) -> &str {
    target.split_once('?').map_or(target, |(path, _)| path)
}

fn default_message(status: u16) -> &'static str {
    match status {
        400 => "mock-llm scripted fault: the request is invalid.",
        401 => "mock-llm scripted fault: invalid API key.",
        403 => "mock-llm scripted fault: permission denied.",
        404 => "mock-llm scripted fault: model not found.",
        429 => "mock-llm scripted fault: rate limit exceeded, please retry later.",
        503 | 529 => "mock-llm scripted fault: the model is overloaded, please try again later.",
        500..=599 => "mock-llm scripted fault: internal server error.",
        _ => "mock-llm scripted fault.",
    }
}
