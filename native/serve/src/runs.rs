//! The sessions `openagent serve` runs. A core `Session` is not `Send`, so each lives on a thread
//! of its own with its own [`NativeRuntime`], and the HTTP threads reach it through a channel:
//! steer it, give it a new input, abort it, or hand it a child's result. The run thread writes
//! every event and how each input ended to the session store through the same [`Report`] as
//! `openagent run`, so the store is the one place readers (`GET /sessions/...`, the SSE
//! streams) look.
//!
//! A session stays open after an input ends: it waits for the next one (`messages`) until it is
//! aborted, an error closes it, or it is left idle (no request for it, no input) for the idle
//! timeout; then its thread ends and it is no longer in [`Runs`]. A session is never closed for
//! idleness while it runs an input, nor while a child of it is open (its result comes to the
//! parent). A message to a stored session that is not open here takes it up again from its latest
//! snapshot ([`Runs::resume`]), on a thread of its own like any other.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use futures::channel::mpsc::{unbounded, UnboundedReceiver, UnboundedSender};
use openagent_core::approval::Approval;
use openagent_host::runtime::system_now_ms;
use openagent_runner::resume::{ResumeFrom, Resumed};
use openagent_runner::{new_run_id, AgentOptions, LimitFlags};
use openagent_store::{Store, StoreError};
use serde_json::Value;

/// A run thread answers a request as soon as its executor polls again, which is at once unless
/// it is stuck; past this the request is refused rather than left hanging.
mod thread;

const ANSWER_WITHIN: Duration = Duration::from_secs(10);

/// What `POST /sessions` asks for.
#[derive(Debug, Clone)]
pub struct NewRun {
    pub task: String,
    pub agent: AgentOptions,
    /// The limits asked for; an agent config's apply where these are absent.
    pub limits: LimitFlags,
    pub output_schema: Option<Value>,
    /// A session of this server that gets this one's results.
    pub parent_id: Option<String>,
    /// A stored session this one continues, under its id: `task` is its next input.
    pub resume: Option<Resumed>,
}

/// Why a session could not start.
#[derive(Debug, Clone, PartialEq)]
pub enum StartError {
    /// The request cannot work as given (no provider configured, a bad schema, no such
    /// parent): the message says what to change.
    Refused(String),
    /// The server could not do its part (the store, a thread).
    Failed(String),
    /// The stored session cannot be taken up again: the store says why.
    Stored(StoreError),
}

/// Why a running session refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// No open session has that id here: it was closed, or another process ran it.
    NotOpen,
    /// It is working on an input (a new input must wait).
    Running,
    /// It is waiting for an input (there is nothing to steer).
    NotRunning,
    /// Its thread did not answer in time.
    NoAnswer,
    /// No call of it waits for an approval under that id.
    NoSuchCall,
}

type Answer = mpsc::Sender<Result<(), Refusal>>;

/// What the HTTP threads ask of a run thread.
enum Control {
    Steer(String, Answer),
    Input(String, Answer),
    Abort(Answer),
    /// A child's result: steering while the session runs, a new input when it waits.
    Callback(String),
    /// The answer to the approval a call waits for.
    Approve(String, Approval, Answer),
}

/// An open session, as the HTTP threads see it.
struct Open {
    control: UnboundedSender<Control>,
    parent: Option<String>,
    /// The last request for it, or the end of its last input: its idle time counts from here.
    used: Instant,
}

impl Open {
    fn new(control: UnboundedSender<Control>, parent: Option<String>) -> Self {
        Self { control, parent, used: Instant::now() }
    }
}

/// The open sessions of this server. Cheap to clone; clones share the sessions.
#[derive(Clone)]
pub struct Runs {
    open: Arc<Mutex<HashMap<String, Open>>>,
    data_dir: PathBuf,
    /// What the server gives every session's agent: its working directory (the current one when
    /// `None`) and the variables its commands see beyond the core ones.
    defaults: AgentOptions,
    /// How long an open session may wait for an input with no request for it; `None`: forever.
    idle: Option<Duration>,
}

impl Runs {
    /// Sessions stored in `data_dir`, their agents given the working directory and variables of
    /// `defaults` where a request says nothing, closed when idle for `idle`.
    pub fn new(data_dir: PathBuf, defaults: AgentOptions, idle: Option<Duration>) -> Self {
        Self { open: Arc::default(), data_dir, defaults, idle }
    }

    /// Starts `run` on a thread of its own and returns its id once the session is in the
    /// store, so every read that follows finds it.
    pub fn start(&self, run: NewRun) -> Result<String, StartError> {
        if let Some(parent) = &run.parent_id {
            if !self.is_open(parent) {
                return Err(StartError::Refused(format!(
                    "parent_id: no open session {parent} in this server (a parent must be a session this server runs, not closed)"
                )));
            }
        }
        let (tx, rx) = unbounded();
        let id = self.reserve_id(Open::new(tx, run.parent_id.clone()));
        self.launch(&id, run, rx).map(|()| id)
    }

    /// Takes the stored session `id` up again from its latest snapshot, with `message` as its
    /// next input; returns once the store says it runs. `Ok(false)`: it was opened here
    /// meanwhile (by another message), and is not taken up twice.
    pub fn resume(&self, id: &str, message: String) -> Result<bool, StartError> {
        let resumed = Store::open(&self.data_dir)
            .and_then(|store| Resumed::load(&store, &ResumeFrom::Id(id.to_owned()), Path::new("")))
            .map_err(StartError::Stored)?;
        let run = NewRun {
            task: message,
            agent: resumed.options(&AgentOptions::default()),
            limits: LimitFlags::default(),
            output_schema: resumed.output_schema(),
            parent_id: None,
            resume: Some(resumed),
        };
        let (tx, rx) = unbounded();
        {
            let mut open = self.lock();
            if open.contains_key(id) {
                return Ok(false);
            }
            open.insert(id.to_owned(), Open::new(tx, None));
        }
        self.launch(id, run, rx).map(|()| true)
    }

    /// Runs `run` as `id` (reserved in `open` with `rx`'s sender) on a thread of its own; returns
    /// once it is in the store.
    fn launch(&self, id: &str, run: NewRun, rx: UnboundedReceiver<Control>) -> Result<(), StartError> {
        let (ready_tx, ready) = mpsc::channel();
        let thread = {
            let (runs, id) = (self.clone(), id.to_owned());
            std::thread::Builder::new().name(format!("openagent-session-{id}")).spawn(move || runs.run(&id, run, rx, &ready_tx))
        };
        let started = match thread {
            Ok(_) => {
                ready.recv().unwrap_or_else(|_| Err(StartError::Failed("the session's thread ended before it started".into())))
            }
            Err(e) => Err(StartError::Failed(format!("cannot start a thread for the session: {e}"))),
        };
        if started.is_err() {
            self.forget(id);
        }
        started
    }

    /// Whether `id` is open in this server (running, or waiting for its next input).
    pub fn is_open(&self, id: &str) -> bool {
        self.lock().contains_key(id)
    }

    /// Notes a request for `id`: its idle time starts again.
    pub fn touch(&self, id: &str) {
        if let Some(open) = self.lock().get_mut(id) {
            open.used = Instant::now();
        }
    }

    /// How long the waiting session `id` may still wait before it is closed for idleness: zero
    /// once it has been idle long enough, `None` when it never is.
    fn idle_left(&self, id: &str) -> Option<Duration> {
        let idle = self.idle?;
        let open = self.lock();
        // A child reports to its parent: the parent waits for it however long it takes.
        if open.values().any(|other| other.parent.as_deref() == Some(id)) {
            return Some(idle);
        }
        let used = open.get(id).map_or_else(Instant::now, |session| session.used);
        Some(idle.saturating_sub(used.elapsed()))
    }

    /// Queues `message` for the running session, injected after its current tool round.
    pub fn steer(&self, id: &str, message: String) -> Result<(), Refusal> {
        self.ask(id, |answer| Control::Steer(message, answer))
    }

    /// Gives the waiting session its next input.
    pub fn message(&self, id: &str, message: String) -> Result<(), Refusal> {
        self.ask(id, |answer| Control::Input(message, answer))
    }

    /// Answers the approval the call `call_id` of the running session waits for.
    pub fn approve(&self, id: &str, call_id: String, approval: Approval) -> Result<(), Refusal> {
        self.ask(id, |answer| Control::Approve(call_id, approval, answer))
    }

    /// Stops the session's model call and commands and closes it.
    pub fn abort(&self, id: &str) -> Result<(), Refusal> {
        self.ask(id, Control::Abort)
    }

    /// Aborts every open session (each input ends `interrupted`, its commands killed) and waits
    /// up to `within` for their threads to record it and close.
    pub fn abort_all(&self, within: Duration) {
        let ids: Vec<String> = self.lock().keys().cloned().collect();
        for id in &ids {
            // One that closed meanwhile, or does not answer, is not waited for here.
            let _ = self.abort(id);
        }
        let until = std::time::Instant::now() + within;
        while !self.lock().is_empty() && std::time::Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// Sends a request to the session's thread and waits for its answer.
    fn ask(&self, id: &str, request: impl FnOnce(Answer) -> Control) -> Result<(), Refusal> {
        let (answer, answered) = mpsc::channel();
        let sent = self.lock().get(id).map(|open| open.control.unbounded_send(request(answer)).is_ok());
        if sent != Some(true) {
            return Err(Refusal::NotOpen);
        }
        match answered.recv_timeout(ANSWER_WITHIN) {
            Ok(answer) => answer,
            Err(RecvTimeoutError::Timeout) => Err(Refusal::NoAnswer),
            // The thread ended (the session closed) with the request still queued.
            Err(RecvTimeoutError::Disconnected) => Err(Refusal::NotOpen),
        }
    }

    /// A fresh id, kept for the caller's session so no other start takes it.
    fn reserve_id(&self, session: Open) -> String {
        let mut open = self.lock();
        let mut id = new_run_id(system_now_ms());
        // An id is the second and a salt from the clock's nanoseconds: two starts could meet.
        while open.contains_key(&id) {
            id = new_run_id(system_now_ms());
        }
        open.insert(id.clone(), session);
        id
    }

    fn forget(&self, id: &str) {
        self.lock().remove(id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Open>> {
        // Entries are only inserted, removed and given a new time: a panic cannot leave the map
        // half-changed.
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Hands a child's callback to its parent; a parent closed meanwhile cannot take it, and the
    /// child's result stays in the store.
    fn report_to_parent(&self, parent: &str, message: String) {
        let sent = self.lock().get(parent).is_some_and(|open| open.control.unbounded_send(Control::Callback(message)).is_ok());
        if !sent {
            eprintln!("warning: the parent session {parent} is closed; its child's result stays in the store");
        }
    }
}
