//! A session's events into the store as they happen. The host hands the [`Recorder`] every event
//! of its session's stream, which carries its subagents' events too (their `session_id` is
//! `<parent>/<agent id>`): each becomes a session of its own, created on its first event with its
//! parent set, finished at the end of each of its inputs.

use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use openagent_core::session::{EventData, SessionEvent, StopReason};

use super::{SessionInfo, Store, StoreError};

/// How long a write that failed (another process holding the database, say) waits before it is
/// tried again; the writes in between queue up in order.
const RETRY_AFTER: Duration = Duration::from_secs(1);

/// How long [`Recorder::finish`] keeps trying before it gives the session up.
const FINISH_PATIENCE: Duration = Duration::from_secs(30);

/// Writes one session, and its subagents, to the store. A write the database refuses (locked by
/// another process, a file replaced under it) is not lost: it waits in a queue, in order, with
/// every write after it, and the queue is written as soon as the database takes it again,
/// reopened if need be.
pub struct Recorder {
    store: Store,
    data_dir: PathBuf,
    /// The session the host created; its subagents copy its provider and directory.
    root: SessionInfo,
    /// The last `seq` given out for each session seen so far.
    seqs: HashMap<String, i64>,
    /// Writes not in the database yet, oldest first.
    queue: VecDeque<Write>,
    /// When a write failed last; none are tried before [`RETRY_AFTER`] has passed.
    failed_at: Option<Instant>,
}

/// One write of the store, each done in one transaction, so a failed one can be done again.
enum Write {
    Create(SessionInfo),
    Event { seq: i64, event: Box<SessionEvent>, json: String },
    Task { id: String, task: String },
    Resume(String),
    Finish { id: String, exit_reason: String, finished_at: String },
    Snapshot { seq: i64, input_end: bool, created_at: String, json: String },
}

impl Recorder {
    /// Opens the store in `data_dir` and records `session` as running.
    pub fn start(data_dir: &Path, session: SessionInfo) -> Result<Self, StoreError> {
        let mut store = Store::open(data_dir)?;
        store.create_session(&session)?;
        let seqs = HashMap::from([(session.id.clone(), 0)]);
        Ok(Self { store, data_dir: data_dir.to_owned(), root: session, seqs, queue: VecDeque::new(), failed_at: None })
    }

    /// Opens the store in `data_dir` and takes `session` up again, stored before and now
    /// resumed: running, written by this process, its events (and its subagents') numbered on
    /// from the last stored.
    pub fn reopen(data_dir: &Path, session: SessionInfo) -> Result<Self, StoreError> {
        let mut store = Store::open(data_dir)?;
        store.resume_session(&session.id)?;
        let seqs = store.last_seqs(&session.id)?;
        Ok(Self { store, data_dir: data_dir.to_owned(), root: session, seqs, queue: VecDeque::new(), failed_at: None })
    }

    /// The host's session, as stored.
    pub fn session_id(&self) -> &str {
        &self.root.id
    }

    /// Writes not in the database yet: waiting for it to take them.
    pub fn backlog(&self) -> usize {
        self.queue.len()
    }

    /// Keeps `json` as the host's session's snapshot after its latest event: `input_end` at the
    /// end of an input, else as the rolling snapshot of the input in progress.
    pub fn snapshot(&mut self, json: &str, input_end: bool, created_at: &str) -> Result<(), StoreError> {
        let seq = self.seqs.get(&self.root.id).copied().unwrap_or(0);
        self.push(Write::Snapshot { seq, input_end, created_at: created_at.to_owned(), json: json.to_owned() })
    }

    /// Appends `event`; `json` is its serialised form.
    pub fn event(&mut self, event: &SessionEvent, json: &str) -> Result<(), StoreError> {
        let id = event.session_id.as_str();
        if !self.seqs.contains_key(id) {
            self.queue.push_back(Write::Create(self.subagent(event)));
            self.seqs.insert(id.to_owned(), 0);
        }
        let seq = self.seqs[id] + 1;
        self.seqs.insert(id.to_owned(), seq);
        self.queue.push_back(Write::Event { seq, event: Box::new(event.clone()), json: json.to_owned() });
        if id != self.root.id {
            // A subagent's state follows its inputs: its first input is its task, it runs while it
            // works on one and is finished when the input ends.
            match &event.data {
                EventData::UserInput { content, .. } => {
                    self.queue.push_back(Write::Task { id: id.to_owned(), task: content.clone() });
                    self.queue.push_back(Write::Resume(id.to_owned()));
                }
                EventData::ProcessingEnd { reason, .. } => self.queue.push_back(Write::Finish {
                    id: id.to_owned(),
                    exit_reason: stop_reason(*reason).to_owned(),
                    finished_at: event.timestamp.to_string(),
                }),
                _ => {}
            }
        }
        self.flush(false)
    }

    /// Takes the host's session up again after it finished: another input for a session that
    /// stayed open (`openagent serve`'s `messages`).
    pub fn resume(&mut self) -> Result<(), StoreError> {
        self.push(Write::Resume(self.root.id.clone()))
    }

    /// Records how the host's session ended, after everything queued: keeps trying for a while
    /// if the database is busy, so that a finished session does not read as interrupted.
    pub fn finish(&mut self, exit_reason: &str, finished_at: &str) -> Result<(), StoreError> {
        let (id, exit_reason, finished_at) = (self.root.id.clone(), exit_reason.to_owned(), finished_at.to_owned());
        self.queue.push_back(Write::Finish { id, exit_reason, finished_at });
        let deadline = Instant::now() + FINISH_PATIENCE;
        loop {
            match self.flush(true) {
                Err(error) if Instant::now() >= deadline => return Err(error),
                Err(_) => std::thread::sleep(RETRY_AFTER / 4),
                Ok(()) => return Ok(()),
            }
        }
    }

    fn push(&mut self, write: Write) -> Result<(), StoreError> {
        self.queue.push_back(write);
        self.flush(false)
    }

    /// Writes what is queued, in order, unless a recent failure says to wait (`now` overrides
    /// that). A write that fails stays first in the queue; after a failure other than a busy
    /// database, the connection is opened afresh for the next try.
    fn flush(&mut self, now: bool) -> Result<(), StoreError> {
        if !now && self.failed_at.is_some_and(|at| at.elapsed() < RETRY_AFTER) {
            return Ok(());
        }
        while let Some(write) = self.queue.front() {
            if let Err(error) = apply(&mut self.store, &self.root.id, write) {
                self.failed_at = Some(Instant::now());
                if !busy(&error) {
                    if let Ok(store) = Store::open(&self.data_dir) {
                        self.store = store;
                    }
                }
                return Err(error);
            }
            self.queue.pop_front();
        }
        self.failed_at = None;
        Ok(())
    }

    /// A subagent's row, from its first event (its `session_start`, which names its model).
    fn subagent(&self, event: &SessionEvent) -> SessionInfo {
        let id = &event.session_id;
        let parent = id.rsplit_once('/').map_or(self.root.id.as_str(), |(parent, _)| parent);
        let (model, working_directory) = match &event.data {
            EventData::SessionStart { model, working_directory, .. } => (model.clone(), working_directory.clone()),
            _ => (self.root.model.clone(), self.root.working_directory.clone()),
        };
        SessionInfo {
            id: id.to_string(),
            parent_id: Some(parent.to_owned()),
            task: String::new(),
            provider: self.root.provider.clone(),
            model,
            working_directory,
            created_at: event.timestamp.to_string(),
            config: None,
        }
    }
}

/// Does `write` (of the session `root` or one of its subagents) in one transaction.
fn apply(store: &mut Store, root: &str, write: &Write) -> Result<(), StoreError> {
    match write {
        Write::Create(session) => store.create_session(session),
        Write::Event { seq, event, json } => store.append_event(&event.session_id, *seq, event, json),
        Write::Task { id, task } => store.set_task(id, task),
        Write::Resume(id) => store.resume_session(id),
        Write::Finish { id, exit_reason, finished_at } => store.finish_session(id, exit_reason, finished_at),
        Write::Snapshot { seq, input_end, created_at, json } => store.save_snapshot(root, *seq, *input_end, created_at, json),
    }
}

/// Whether the database refused a write only because another connection held it.
fn busy(error: &StoreError) -> bool {
    matches!(error, StoreError::Database(reason) if reason.contains("locked") || reason.contains("busy"))
}

/// A subagent's input's end in the words of a run's `exit_reason`.
fn stop_reason(reason: StopReason) -> &'static str {
    crate::ExitReason::of(&Ok(reason)).as_str()
}
