//! `openagent serve`: the session store and the agent over HTTP on 127.0.0.1. Start a session
//! (`POST /sessions`), list and show sessions, stream a session's events as server-sent events,
//! read its result (seed 003's `GET /sessions/{id}/result`), steer it, abort it, or give an open
//! session its next input. A session started with a `parent_id` reports each finished input to
//! its parent as an `<agent-callback>` message. `GET /openapi.json` describes it all.
//!
//! Every request needs `Authorization: Bearer <token>`. The server is the one `openagent web` uses
//! too ([`openagent_http_server`]: hyper on one tokio thread, each answer on a worker thread),
//! with a quarter of its workers kept from event streams so that a steer or an abort always finds
//! one (`sse::Streams`). The API itself is blocking code: each session runs on a thread of its
//! own (`runs`), closed once idle for [`ServeOptions::session_idle`], and the routes read the
//! store as they go.
//!
//! It sits on the runner (sessions are run as `openagent run` runs them) and the HTTP server
//! crate; nothing below it imports it, and it must not depend on the TUI or the CLI.

mod api_error;
mod auth;
mod callback;
mod error;
mod requests;
mod routes;
mod runs;
mod sse;
pub mod web;

use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::time::Duration;

use futures::StreamExt;
use serde_json::{json, Value};

pub use auth::generate_token;
pub use error::ServeError;
use routes::{Api, Reply};
use runs::Runs;
use sse::Streams;
pub use web::{WebRoots, WebServer};

use openagent_core::approval::ApprovalMode;
use openagent_runner::{AgentOptions, SandboxOptions};

use openagent_http_server::{self as http_server, Answer, BadRequest, Limits, Request, Responder, Serving};
use openagent_store::Store;

/// The largest request body taken: a task, an output schema or a message is far smaller.
const MAX_BODY: usize = 1024 * 1024;

/// `--max-connections`' default: the requests answered at once, a worker thread each, and as many
/// more connections waiting.
pub const DEFAULT_MAX_CONNECTIONS: usize = 64;

/// `--session-idle-timeout`'s default, in seconds: half an hour without a request or an input.
pub const DEFAULT_SESSION_IDLE_SECS: u64 = 30 * 60;

/// How `openagent serve` was started.
#[derive(Debug, Clone)]
pub struct ServeOptions {
    /// 0 picks a free port.
    pub port: u16,
    /// What `Authorization: Bearer` must carry.
    pub token: String,
    /// Where the session store is.
    pub data_dir: PathBuf,
    /// Where the sessions work; the current directory when `None`.
    pub cwd: Option<PathBuf>,
    /// The base URLs a request may name (`POST /sessions`' `base_url`). Any other is refused:
    /// the server would send its own provider key there.
    pub allowed_base_urls: Vec<String>,
    /// Variables of the server's environment the sessions' commands see beyond the core ones
    /// (`--env-pass`).
    pub env_pass: Vec<String>,
    /// The requests answered at once, each on a worker thread; as many more connections wait, and
    /// beyond that a connection is answered 503. At least 2: one is always kept from event
    /// streams.
    pub max_connections: usize,
    /// How long a request's whole head may take to arrive (408 after it); `None`: 10 s.
    pub head_within: Option<Duration>,
    /// An open session with no request for it and no input running this long is closed (it stays
    /// in the store; a message takes it up again). `None`: never.
    pub session_idle: Option<Duration>,
    /// `--approval`: the sessions' approval mode where a request and the agent config say nothing.
    pub approval: Option<ApprovalMode>,
    /// `--sandbox` and its companions: the sessions' sandbox where a request's says nothing.
    pub sandbox: SandboxOptions,
}

/// How long the open sessions have to record their end when the server is stopped.
const SESSIONS_END_WITHIN: Duration = Duration::from_secs(10);

/// A running API server; it serves until the process ends ([`Server::serve_until_signalled`]).
pub struct Server {
    addr: SocketAddr,
    runs: Runs,
    _serving: Serving,
}

impl Server {
    /// Checks the options (a token, a store that opens, a directory that exists), listens on
    /// 127.0.0.1 and serves from background threads. The error says what to change.
    pub fn start(options: ServeOptions) -> Result<Self, ServeError> {
        if options.token.trim().is_empty() {
            return Err(ServeError::EmptyToken);
        }
        Store::open(&options.data_dir)?;
        if let Some(cwd) = options.cwd.as_ref().filter(|cwd| !cwd.is_dir()) {
            return Err(ServeError::NotADirectory(cwd.clone()));
        }
        if options.max_connections < 2 {
            return Err(ServeError::TooFewConnections(options.max_connections));
        }
        let port = options.port;
        let listener = TcpListener::bind(("127.0.0.1", port)).map_err(|error| ServeError::Listen { port, error })?;
        let addr = listener.local_addr().map_err(ServeError::Address)?;
        let defaults = AgentOptions {
            cwd: options.cwd,
            env_pass: options.env_pass,
            approval: options.approval,
            sandbox: options.sandbox,
            ..AgentOptions::default()
        };
        let runs = Runs::new(options.data_dir.clone(), defaults, options.session_idle);
        let api = Api::new(runs.clone(), options.data_dir, options.allowed_base_urls);
        let defaults = Limits::default();
        let limits = Limits {
            connections: 2 * options.max_connections,
            workers: options.max_connections,
            head_within: options.head_within.unwrap_or(defaults.head_within),
            max_body: MAX_BODY,
            ..defaults
        };
        let service = Sessions { api, streams: Streams::for_workers(limits.workers), token: options.token };
        let serving = http_server::spawn(listener, "openagent-serve", limits, service).map_err(ServeError::Thread)?;
        Ok(Self { addr, runs, _serving: serving })
    }

    /// Serves until SIGINT, SIGTERM or SIGHUP, then stops every open session as `abort` does
    /// (its input ends `interrupted` in the store, its commands are killed) and gives the exit
    /// code, 128 + the signal. Where signals cannot be taken over, serves until the process is
    /// killed.
    pub fn serve_until_signalled(&self) -> u8 {
        let mut signals = match openagent_host::signals::interrupts() {
            Ok(signals) => signals,
            Err(e) => {
                eprintln!("warning: a signal will stop openagent serve without stopping its sessions' commands: {e}");
                loop {
                    std::thread::park();
                }
            }
        };
        let signal = futures::executor::block_on(signals.next()).unwrap_or(libc::SIGTERM);
        self.runs.abort_all(SESSIONS_END_WITHIN);
        openagent_host::signals::end_commands(openagent_runner::COMMANDS_END_WITHIN);
        128 + signal as u8
    }

    /// `http://127.0.0.1:PORT`, to which the routes' paths are added.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// What a request without the right token is told.
const UNAUTHORIZED: &str =
    "missing or wrong bearer token: send Authorization: Bearer <the token openagent serve printed or was given>";

/// The API as the HTTP server serves it.
struct Sessions {
    api: Api,
    streams: Streams,
    token: String,
}

impl http_server::Service for Sessions {
    /// The token is checked from the head: a client without it gets its 401 before any of its
    /// body is read.
    fn gate(&self, request: &Request) -> Option<BadRequest> {
        (!auth::authorized(request.header("authorization"), &self.token)).then(|| BadRequest::new(401, UNAUTHORIZED))
    }

    fn refuse(&self, refused: &BadRequest) -> Answer {
        let answer = json_answer(refused.status, &json!({ "error": refused.message }));
        match refused.status {
            401 => answer.header("www-authenticate", "Bearer"),
            _ => answer,
        }
    }

    fn answer(&self, request: Request, responder: Responder) {
        match self.api.handle(&request) {
            Reply::Json(status, body) => responder.send(json_answer(status, &body)),
            Reply::Events { store, id, after } => match self.streams.take() {
                Some(_held) => {
                    // A failed write means the client went away: there is nobody left to tell.
                    let _ = sse::stream(responder, &store, &id, after);
                }
                None => responder.send(json_answer(503, &json!({ "error": self.streams.full() })).header("retry-after", "5")),
            },
        }
    }
}

fn json_answer(status: u16, body: &Value) -> Answer {
    Answer::new(status, body.to_string())
        .header("content-type", "application/json")
        .header("cache-control", "no-store")
        // A browser must take a JSON error for what its type says.
        .header("x-content-type-options", "nosniff")
}
