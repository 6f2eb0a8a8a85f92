//! The HTTP/1.1 server under `openagent serve`, `openagent web` and the tests' mock model server:
//! hyper on a tokio runtime of one thread, with the bounds a server open to every local process
//! needs ([`Limits`]). The runtime only moves bytes: each request is answered on a worker thread
//! of its own ([`Service::answer`]), where the store, the file system and a session's channel may
//! block, and where an answer that streams (server-sent events) writes for as long as it streams.
//!
//! hyper reads and writes HTTP; what it leaves to its user is done here (`connection`): a
//! deadline for the whole head and another for the body, each answered `408` (hyper's own head
//! timeout closes without a word), a cap on the body, a refusal from the head alone
//! ([`Service::gate`]) before any of the body is read, and `503` at once beyond the connections
//! the server keeps. Every connection carries one request: both servers answer on 127.0.0.1,
//! where a connection costs little, and one request each keeps every deadline simple.
//!
//! It depends on the core (for a header lookup) and on hyper and tokio, which no other native
//! crate may: it knows nothing of sessions, the store or the commands, so the tests' mock model
//! server uses it without them.

mod body;
mod connection;

use std::io;
use std::net::TcpListener;
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::Duration;

use openagent_core::llm::http::find_header;
use tokio::sync::oneshot;

pub use body::{Body, BodyWriter, Responder};

/// How many connections a server keeps, how many requests it answers at once, and how long a
/// client may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Connections served at once, from their accept until they are answered; one more is
    /// answered 503 at once, without waiting on it.
    pub connections: usize,
    /// Requests answered at once, a worker thread each (started when needed); more wait for one.
    pub workers: usize,
    /// The whole request head must arrive within this, counted from the connection's accept.
    pub head_within: Duration,
    /// The body must arrive within this once the head is in.
    pub body_within: Duration,
    /// The largest body taken (413 beyond).
    pub max_body: usize,
}

impl Default for Limits {
    /// 64 workers and twice as many connections; 10 s for a head and 30 s for a body, which a
    /// local client sending a megabyte meets with room to spare.
    fn default() -> Self {
        Self {
            connections: 128,
            workers: 64,
            head_within: Duration::from_secs(10),
            body_within: Duration::from_secs(30),
            max_body: 1024 * 1024,
        }
    }
}

/// What a server does with its requests.
pub trait Service: Send + Sync + 'static {
    /// Decides on a request from its head, before its body is read: `Some` refuses it (a missing
    /// token, say), so that a refused client gets nothing of the server, not even its body read.
    /// `request.body` is still empty.
    fn gate(&self, _request: &Request) -> Option<BadRequest> {
        None
    }

    /// What a request is told that could not be read, came too slowly, found the server full or
    /// was refused by [`Service::gate`]. It runs on the server's own thread: it must not block.
    fn refuse(&self, refused: &BadRequest) -> Answer;

    /// Answers a request through `responder`, on a worker thread, where it may block. A
    /// responder dropped without an answer (a panic, say) closes the connection without one.
    fn answer(&self, request: Request, responder: Responder);
}

/// One request, its body read whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub method: String,
    /// Path and query, as sent (still percent-encoded).
    pub target: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// The target without its query and fragment.
    pub fn path(&self) -> &str {
        self.target.split(['?', '#']).next().unwrap_or("/")
    }

    /// The query's parameters, percent-decoded (`+` is a space, as forms send it).
    pub fn query(&self) -> Vec<(String, String)> {
        let Some((_, query)) = self.target.split('#').next().unwrap_or("").split_once('?') else { return Vec::new() };
        let decode = |text: &str| percent_decode(&text.replace('+', " "));
        query
            .split('&')
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
                (decode(name).unwrap_or_default(), decode(value).unwrap_or_default())
            })
            .collect()
    }
}

/// Why a request is not answered, with the status to answer it with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRequest {
    pub status: u16,
    pub message: String,
}

impl BadRequest {
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        Self { status, message: message.into() }
    }
}

/// A whole answer: its status, its headers and its body. The length is added when it is sent,
/// and `connection: close`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

impl Answer {
    pub fn new(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self { status, headers: Vec::new(), body: body.into() }
    }

    /// The answer with one more header.
    pub fn header(mut self, name: &'static str, value: impl Into<String>) -> Self {
        self.headers.push((name, value.into()));
        self
    }
}

/// `%2F` and friends decoded; `None` when an escape is broken or the bytes are not UTF-8.
pub fn percent_decode(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A running server; it stops when dropped: its port closes and the requests it is answering are
/// cut (a worker still busy finishes on its own, its answer going nowhere).
pub struct Serving {
    stop: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Serving {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Serves `listener` with `service` from a thread named `name` (its workers are
/// `<name>-worker`) until the returned [`Serving`] is dropped.
pub fn spawn(listener: TcpListener, name: &str, limits: Limits, service: impl Service) -> io::Result<Serving> {
    listener.set_nonblocking(true)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_io()
        .enable_time()
        .max_blocking_threads(limits.workers.max(1))
        .thread_name(format!("{name}-worker"))
        .build()?;
    let listener = {
        let _in_runtime = runtime.enter();
        tokio::net::TcpListener::from_std(listener)?
    };
    let (stop, stopped) = oneshot::channel();
    let service = Arc::new(service);
    let thread = thread::Builder::new().name(name.to_owned()).spawn(move || {
        let accepting = std::pin::pin!(connection::accept(listener, service, limits));
        // Until the handle is dropped: accepting never ends by itself.
        runtime.block_on(futures::future::select(accepting, stopped));
        // Workers still answering are not waited for: their answers go nowhere now.
        runtime.shutdown_background();
    })?;
    Ok(Serving { stop: Some(stop), thread: Some(thread) })
}

#[cfg(test)]
mod tests;
