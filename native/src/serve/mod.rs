//! `openagent serve`: the session store and the agent over HTTP on 127.0.0.1. Start a session
//! (`POST /sessions`), list and show sessions, stream a session's events as server-sent events,
//! read its result (seed 003's `GET /sessions/{id}/result`), steer it, abort it, or give an open
//! session its next input. A session started with a `parent_id` reports each finished input to
//! its parent as an `<agent-callback>` message. `GET /openapi.json` describes it all.
//!
//! Every request needs `Authorization: Bearer <token>`. The server is `std::net` and a thread per
//! connection, like `openagent web` ([`crate::http_server`]); each session runs on a thread of its
//! own ([`runs`]), so no async runtime is needed here either.

mod auth;
mod callback;
mod routes;
mod runs;
mod sse;

use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

use futures::StreamExt;
use openagent_core::llm::http::find_header;

use serde_json::{json, Value};

pub use auth::generate_token;
use routes::{Api, Reply};
use runs::Runs;

use crate::http_server::{self, respond, BadRequest, Request};
use crate::store::Store;

/// The largest request body taken: a task, an output schema or a message is far smaller.
const MAX_BODY: usize = 1024 * 1024;

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
}

/// How long the open sessions have to record their end when the server is stopped.
const SESSIONS_END_WITHIN: Duration = Duration::from_secs(10);

/// A running API server; it serves until the process ends ([`Server::serve_until_signalled`]).
pub struct Server {
    addr: SocketAddr,
    runs: Runs,
}

impl Server {
    /// Checks the options (a token, a store that opens, a directory that exists), listens on
    /// 127.0.0.1 and serves from a background thread. The error says what to change.
    pub fn start(options: ServeOptions) -> Result<Self, String> {
        if options.token.trim().is_empty() {
            return Err(
                "the token is empty: give one with --token or OPENAGENT_SERVE_TOKEN, or neither for a generated one".into()
            );
        }
        Store::open(&options.data_dir).map_err(|e| e.to_string())?;
        if let Some(cwd) = options.cwd.as_ref().filter(|cwd| !cwd.is_dir()) {
            return Err(format!("cannot use --cwd {}: not a directory", cwd.display()));
        }
        let port = options.port;
        let listener = TcpListener::bind(("127.0.0.1", port))
            .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e} (try --port 0)"))?;
        let addr = listener.local_addr().map_err(|e| e.to_string())?;
        let runs = Runs::new(options.data_dir.clone(), options.cwd);
        let api = Api::new(runs.clone(), options.data_dir, options.allowed_base_urls);
        let token = options.token;
        // The token is checked from the head: a client without it gets its 401 before any of its
        // body is read.
        let gate: Box<http_server::Gate> = Box::new(move |headers| {
            let authorization = find_header(headers, "authorization");
            (!auth::authorized(authorization, &token)).then(|| BadRequest::new(401, UNAUTHORIZED))
        });
        http_server::spawn(listener, "openagent-serve", MAX_BODY, gate, move |request, out| answer(request, out, &api))
            .map_err(|e| format!("cannot start the server's thread: {e}"))?;
        Ok(Self { addr, runs })
    }

    /// Serves until SIGINT, SIGTERM or SIGHUP, then stops every open session as `abort` does
    /// (its input ends `interrupted` in the store, its commands are killed) and gives the exit
    /// code, 128 + the signal. Where signals cannot be taken over, serves until the process is
    /// killed.
    pub fn serve_until_signalled(&self) -> u8 {
        let mut signals = match crate::signals::interrupts() {
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
        crate::signals::end_commands(crate::run::COMMANDS_END_WITHIN);
        128 + signal as u8
    }

    /// `http://127.0.0.1:PORT`, to which the routes' paths are added.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }
}

/// Answers one request: refused when it could not be read or lacks the token, else the API's.
/// What a request without the right token is told.
const UNAUTHORIZED: &str =
    "missing or wrong bearer token: send Authorization: Bearer <the token openagent serve printed or was given>";

fn answer(request: Result<Request, BadRequest>, out: &mut TcpStream, api: &Api) {
    // A failed write means the client went away: there is nobody left to tell.
    let _ = match request {
        Err(bad) if bad.status == 401 => send_json(out, 401, &[("www-authenticate", "Bearer")], &json!({ "error": bad.message })),
        Err(bad) => send_json(out, bad.status, &[], &json!({ "error": bad.message })),
        Ok(request) => match api.handle(&request) {
            Reply::Json(status, body) => send_json(out, status, &[], &body),
            Reply::Events { store, id, after } => sse::stream(out, &store, &id, after),
        },
    };
}

fn send_json(out: &mut TcpStream, status: u16, headers: &[(&str, &str)], body: &Value) -> std::io::Result<()> {
    let mut all = vec![("content-type", "application/json"), ("cache-control", "no-store")];
    all.extend_from_slice(headers);
    respond(out, status, &all, body.to_string().as_bytes(), false)
}
