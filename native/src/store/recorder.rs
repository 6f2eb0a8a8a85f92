//! A session's events into the store as they happen. The host hands the [`Recorder`] every event
//! of its session's stream, which carries its subagents' events too (their `session_id` is
//! `<parent>/<agent id>`): each becomes a session of its own, created on its first event with its
//! parent set, finished at the end of each of its inputs.

use std::collections::HashMap;
use std::path::Path;

use openagent_core::session::{EventData, SessionEvent, StopReason};

use super::{SessionInfo, Store, StoreError};

/// Writes one session, and its subagents, to the store.
pub struct Recorder {
    store: Store,
    /// The session the host created; its subagents copy its provider and directory.
    root: SessionInfo,
    /// The last `seq` written for each session seen so far.
    seqs: HashMap<String, i64>,
}

impl Recorder {
    /// Opens the store in `data_dir` and records `session` as running.
    pub fn start(data_dir: &Path, session: SessionInfo) -> Result<Self, StoreError> {
        let mut store = Store::open(data_dir)?;
        store.create_session(&session)?;
        let seqs = HashMap::from([(session.id.clone(), 0)]);
        Ok(Self { store, root: session, seqs })
    }

    /// Opens the store in `data_dir` and takes `session` up again, stored before and now
    /// resumed: running, written by this process, its events (and its subagents') numbered on
    /// from the last stored.
    pub fn reopen(data_dir: &Path, session: SessionInfo) -> Result<Self, StoreError> {
        let mut store = Store::open(data_dir)?;
        store.resume_session(&session.id)?;
        let seqs = store.last_seqs(&session.id)?;
        Ok(Self { store, root: session, seqs })
    }

    /// Keeps `json` as the host's session's snapshot after its latest event: `input_end` at the
    /// end of an input, else as the rolling snapshot of the input in progress.
    pub fn snapshot(&mut self, json: &str, input_end: bool, created_at: &str) -> Result<(), StoreError> {
        let seq = self.seqs.get(&self.root.id).copied().unwrap_or(0);
        self.store.save_snapshot(&self.root.id, seq, input_end, created_at, json)
    }

    /// Appends `event`; `json` is its serialised form.
    pub fn event(&mut self, event: &SessionEvent, json: &str) -> Result<(), StoreError> {
        let id = event.session_id.as_str();
        let seq = match self.seqs.get(id) {
            Some(seq) => seq + 1,
            None => {
                self.create_subagent(event)?;
                1
            }
        };
        self.store.append_event(id, seq, event, json)?;
        self.seqs.insert(id.to_owned(), seq);
        if id != self.root.id {
            self.follow_subagent(event)?;
        }
        Ok(())
    }

    /// Takes the host's session up again after it finished: another input for a session that
    /// stayed open (`openagent serve`'s `messages`).
    pub fn resume(&mut self) -> Result<(), StoreError> {
        self.store.resume_session(&self.root.id)
    }

    /// Records how the host's session ended.
    pub fn finish(&mut self, exit_reason: &str, finished_at: &str) -> Result<(), StoreError> {
        self.store.finish_session(&self.root.id, exit_reason, finished_at)
    }

    /// A subagent's row, from its first event (its `session_start`, which names its model).
    fn create_subagent(&mut self, event: &SessionEvent) -> Result<(), StoreError> {
        let id = &event.session_id;
        let parent = id.rsplit_once('/').map_or(self.root.id.as_str(), |(parent, _)| parent);
        let (model, working_directory) = match &event.data {
            EventData::SessionStart { model, working_directory, .. } => (model.clone(), working_directory.clone()),
            _ => (self.root.model.clone(), self.root.working_directory.clone()),
        };
        self.store.create_session(&SessionInfo {
            id: id.clone(),
            parent_id: Some(parent.to_owned()),
            task: String::new(),
            provider: self.root.provider.clone(),
            model,
            working_directory,
            created_at: event.timestamp.clone(),
            config: None,
        })
    }

    /// A subagent's state follows its inputs: its first input is its task, it runs while it
    /// works on one and is finished when the input ends.
    fn follow_subagent(&mut self, event: &SessionEvent) -> Result<(), StoreError> {
        let id = &event.session_id;
        match &event.data {
            EventData::UserInput { content } => {
                self.store.set_task(id, content)?;
                self.store.resume_session(id)
            }
            EventData::ProcessingEnd { reason, .. } => self.store.finish_session(id, stop_reason(*reason), &event.timestamp),
            _ => Ok(()),
        }
    }
}

/// A subagent's input's end in the words of a run's `exit_reason`.
fn stop_reason(reason: StopReason) -> &'static str {
    crate::run::ExitReason::of(&Ok(reason)).as_str()
}
