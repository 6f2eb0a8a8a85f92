//! [`MockServer`]: plays a [`Script`] over HTTP on 127.0.0.1, a thread per connection, and
//! records every request it gets.

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, BufReader, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::{self, JoinHandle};
use std::time::Duration;

use openagent_core::llm::http::{find_header, redacted_headers};
use serde_json::{json, Value};

use crate::api::{route, Api, Route, ROUTES};
use crate::http1::{self, PREFLIGHT};
use crate::ids::Ids;
use crate::script::{Action, Script, Step};
use crate::wire::{Call, WireBody};

/// A client that sends nothing (or stops reading) for this long is dropped, so no connection
/// thread lingers after a test.
const IO_TIMEOUT: Duration = Duration::from_secs(30);
/// One fixed seed: the same script yields the same ids on every run.
const ID_SEED: u64 = 0x6f70_656e_6167_656e;

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
    accept: Option<JoinHandle<()>>,
}

struct Shared {
    state: Mutex<State>,
    stop: AtomicBool,
}

struct State {
    steps: VecDeque<Step>,
    served: usize,
    requests: Vec<RecordedRequest>,
    ids: Ids,
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
        let state = State { steps: script.steps.into(), served: 0, requests: Vec::new(), ids: Ids::new(ID_SEED) };
        let shared = Arc::new(Shared { state: Mutex::new(state), stop: AtomicBool::new(false) });
        let accepting = shared.clone();
        let accept = thread::Builder::new().name("mock-llm-accept".into()).spawn(move || accept_loop(&listener, &accepting))?;
        Ok(Self { addr, shared, accept: Some(accept) })
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
}

impl Drop for MockServer {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        // `accept` blocks: a connection of our own wakes it to see the flag. If even that fails,
        // the listener is unusable anyway and the thread is left to end with the process.
        if TcpStream::connect(self.addr).is_ok() {
            if let Some(accept) = self.accept.take() {
                let _ = accept.join();
            }
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Nothing panics while holding the lock in a way that leaves the state half-changed.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn accept_loop(listener: &TcpListener, shared: &Arc<Shared>) {
    for connection in listener.incoming() {
        if shared.stop.load(Ordering::SeqCst) {
            return;
        }
        let Ok(socket) = connection else { continue }; // e.g. the peer gave up before accept
        let shared = shared.clone();
        // Without a thread the request is lost; the client sees the connection close.
        let _ = thread::Builder::new().name("mock-llm-conn".into()).spawn(move || serve(socket, &shared));
    }
}

/// Answers one request on `socket`, then closes it.
fn serve(socket: TcpStream, shared: &Shared) {
    let _ = socket.set_read_timeout(Some(IO_TIMEOUT));
    let _ = socket.set_write_timeout(Some(IO_TIMEOUT));
    let Ok(read_half) = socket.try_clone() else { return };
    let mut out = socket;
    let request = match http1::read_request(&mut BufReader::new(read_half)) {
        Ok(Some(request)) => request,
        Ok(None) => return,
        Err(problem) => {
            let _ = send_json(&mut out, 400, &[], &json!({"error": {"message": format!("mock-llm: {problem}")}}));
            return;
        }
    };
    let body = parse_body(&request.body);
    let route = (request.method == "POST").then(|| route(&request.target, &body)).flatten();
    shared.lock().requests.push(RecordedRequest {
        method: request.method.clone(),
        path: request.target.clone(),
        headers: request.headers,
        body: body.clone(),
        api: route.as_ref().map(|r| r.api),
    });
    // A failed write means the client went away: there is nobody left to tell.
    let _ = match (request.method.as_str(), route) {
        ("OPTIONS", _) => http1::write_head(&mut out, 204, &PREFLIGHT.map(|(k, v)| (k, v.to_owned())), Some(0)),
        (_, Some(route)) => answer(&mut out, shared, &request.method, &request.target, &route, &body),
        (method, None) => {
            let message = format!("mock-llm: no route for {method} {}; routes: {ROUTES}", path_only(&request.target));
            send_json(&mut out, 404, &[], &json!({"error": {"message": message}}))
        }
    };
}

/// Plays the next step meant for this API.
fn answer(out: &mut TcpStream, shared: &Shared, method: &str, target: &str, route: &Route, body: &Value) -> io::Result<()> {
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
        return send_json(out, 500, &[], &body);
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
            return send_json(out, status, &headers, &body);
        }
    };
    let wire = route.api.encode(&reply, &call, route.framing, &mut state.ids);
    drop(state);
    thread::sleep(Duration::from_millis(delay_ms));
    send(out, &headers, &wire, cut)
}

/// Sends a 200 with `wire`; with `cut`, only about half of it, and then the connection closes
/// without the body's proper end.
fn send(out: &mut TcpStream, headers: &[(&str, String)], wire: &WireBody, cut: bool) -> io::Result<()> {
    let mut headers = headers.to_vec();
    headers.push(("content-type", wire.content_type.to_owned()));
    if wire.streamed {
        http1::write_head(out, 200, &headers, None)?;
        let sent = if cut { wire.frames.len() / 2 } else { wire.frames.len() };
        for frame in &wire.frames[..sent] {
            http1::write_chunk(out, frame)?;
        }
        if !cut {
            http1::end_chunks(out)?;
        }
    } else {
        let body = wire.bytes();
        http1::write_head(out, 200, &headers, Some(body.len()))?;
        out.write_all(&body[..if cut { body.len() / 2 } else { body.len() }])?;
    }
    out.flush()?;
    if cut {
        out.shutdown(Shutdown::Both)?;
    }
    Ok(())
}

fn send_json(out: &mut TcpStream, status: u16, headers: &[(&str, String)], body: &Value) -> io::Result<()> {
    let mut headers = headers.to_vec();
    headers.push(("content-type", "application/json".into()));
    let body = body.to_string();
    http1::write_head(out, status, &headers, Some(body.len()))?;
    out.write_all(body.as_bytes())?;
    out.flush()
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
