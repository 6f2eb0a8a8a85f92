//! A running `openagent serve` and a small HTTP client for it: requests with or without the
//! bearer token over plain TCP (one request per connection, as the server closes each), and its
//! event stream read frame by frame as it comes.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use openagent_tests::MockServer;
use serde_json::Value;

use openagent_tests::cli::{eventually, Finished, Pipe, Running, Sandbox};

/// The token the tests start their servers with.
pub const TOKEN: &str = "serve-test-token-2f7c";

/// `openagent serve --port 0 --token TOKEN` in a sandbox, killed when dropped.
pub struct Serve {
    process: Option<Running>,
    /// `127.0.0.1:PORT`.
    pub addr: String,
}

impl Serve {
    /// Starts the server against `mock` (as the Anthropic provider, plus `env`) and waits for its URL.
    pub fn start(sandbox: &Sandbox, mock: Option<&MockServer>, env: &[(&str, &str)]) -> Self {
        Self::start_with(sandbox, mock, env, &[])
    }

    /// [`Serve::start`] with `flags` added to the command line.
    pub fn start_with(sandbox: &Sandbox, mock: Option<&MockServer>, env: &[(&str, &str)], flags: &[&str]) -> Self {
        let mut command = sandbox.openagent(mock, &[&["serve", "--port", "0", "--token", TOKEN], flags].concat());
        command.envs(env.iter().copied());
        let mut process = Running::start(command);
        let line = process.wait_for_line(Pipe::Stdout, |line| line.starts_with("OpenAgent API: "));
        let url = line.trim().strip_prefix("OpenAgent API: http://").expect("the URL the server printed");
        Self { process: Some(process), addr: url.to_owned() }
    }

    /// Sends `signal` to the server and waits for it to exit.
    pub fn stop(&mut self, signal: libc::c_int) -> Finished {
        let process = self.process.take().expect("the server runs until stopped");
        process.signal(signal);
        process.finish()
    }

    /// A request with the token.
    pub fn call(&self, method: &str, path: &str, body: Option<&Value>) -> Response {
        self.call_as(Some(&format!("Bearer {TOKEN}")), method, path, body.map(Value::to_string).as_deref())
    }

    /// A request with `authorization` as the header (none when `None`) and a raw body.
    pub fn call_as(&self, authorization: Option<&str>, method: &str, path: &str, body: Option<&str>) -> Response {
        let mut socket = TcpStream::connect(&self.addr).expect("the server accepts");
        socket.set_read_timeout(Some(Duration::from_secs(60))).expect("a timeout");
        let auth = authorization.map(|value| format!("Authorization: {value}\r\n")).unwrap_or_default();
        let body = body.unwrap_or("");
        let head = format!("{method} {path} HTTP/1.1\r\nHost: {}\r\n{auth}Content-Length: {}\r\n\r\n", self.addr, body.len());
        socket.write_all(head.as_bytes()).and_then(|()| socket.write_all(body.as_bytes())).expect("the request is sent");
        let mut answer = String::new();
        socket.read_to_string(&mut answer).expect("a UTF-8 answer");
        let (head, body) = answer.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no head in {answer:?}"));
        let status = head.get(9..12).and_then(|code| code.parse().ok()).unwrap_or_else(|| panic!("no status in {head:?}"));
        Response { status, head: head.to_owned(), body: body.to_owned() }
    }

    /// `GET /sessions/{id}/result`.
    pub fn result(&self, id: &str) -> Response {
        self.call("GET", &format!("/sessions/{}/result", encode(id)), None)
    }

    /// Polls the result of `id` until it is there (200), and returns it.
    pub fn wait_for_result(&self, id: &str) -> Value {
        eventually(&format!("{id} has a result"), || self.result(id).status == 200);
        self.result(id).json()
    }

    /// `POST /sessions` with `body`, which must be accepted: the new session's id.
    pub fn start_session(&self, body: &Value) -> String {
        let created = self.call("POST", "/sessions", Some(body));
        assert_eq!(created.status, 201, "{created:?}");
        created.json()["id"].as_str().expect("an id").to_owned()
    }

    /// `GET /sessions/{id}`, which must be found.
    pub fn show(&self, id: &str) -> Value {
        let shown = self.call("GET", &format!("/sessions/{}", encode(id)), None);
        assert_eq!(shown.status, 200, "{shown:?}");
        shown.json()
    }

    /// Opens `GET /sessions/{id}/events` with `extra` headers; the stream is read as it comes.
    pub fn events(&self, id: &str, extra: &str) -> EventStream {
        let mut socket = TcpStream::connect(&self.addr).expect("the server accepts");
        socket.set_read_timeout(Some(Duration::from_secs(60))).expect("a timeout");
        let request = format!(
            "GET /sessions/{}/events HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\n{extra}\r\n",
            encode(id),
            self.addr
        );
        socket.write_all(request.as_bytes()).expect("the request is sent");
        let mut reader = BufReader::new(socket);
        let mut head = String::new();
        // The head ends with an empty line: the one read that returns just "\r\n".
        while reader.read_line(&mut head).expect("a head") > 2 {}
        assert!(head.starts_with("HTTP/1.1 200") && head.contains("content-type: text/event-stream"), "{head}");
        EventStream { reader }
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        if let Some(process) = self.process.take() {
            process.signal(libc::SIGKILL);
            let _ = process.finish();
        }
    }
}

/// A session id as one path segment.
pub fn encode(id: &str) -> String {
    id.replace('/', "%2F")
}

#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub head: String,
    pub body: String,
}

impl Response {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {self:?}"))
    }

    /// The `error` of a JSON error body.
    pub fn error(&self) -> String {
        self.json()["error"].as_str().unwrap_or_else(|| panic!("no error in {self:?}")).to_owned()
    }
}

/// One server-sent event.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    pub id: Option<i64>,
    pub event: String,
    pub data: Value,
}

pub struct EventStream {
    reader: BufReader<TcpStream>,
}

impl EventStream {
    /// The next event; `None` when the server ended the stream. Comments (keep-alives) are skipped.
    pub fn next_frame(&mut self) -> Option<Frame> {
        let (mut id, mut event, mut data) = (None, String::new(), String::new());
        loop {
            let mut line = String::new();
            if self.reader.read_line(&mut line).expect("the stream reads") == 0 {
                return None;
            }
            let line = line.trim_end_matches('\n');
            if line.is_empty() {
                if event.is_empty() {
                    continue;
                }
                let data = serde_json::from_str(&data).unwrap_or_else(|e| panic!("data is not JSON ({e}): {data}"));
                return Some(Frame { id, event, data });
            }
            if let Some(value) = line.strip_prefix("id: ") {
                id = Some(value.parse().expect("a numeric id"));
            } else if let Some(value) = line.strip_prefix("event: ") {
                event = value.to_owned();
            } else if let Some(value) = line.strip_prefix("data: ") {
                data.push_str(value);
            }
        }
    }

    /// Every event until the server ends the stream.
    pub fn rest(&mut self) -> Vec<Frame> {
        std::iter::from_fn(|| self.next_frame()).collect()
    }
}
