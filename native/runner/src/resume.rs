//! Sessions taken up again from the store: `openagent run --resume ID` / `--continue`, the
//! interactive session's `--resume`, `openagent sessions fork` and `openagent serve`'s messages to
//! a finished session. A session is resumed from its latest snapshot (the end of its last input,
//! or the last complete turn of a run that was killed) and keeps its id; a fork is a new session
//! whose first snapshot is a copy of another's, at or before one of its events.
//!
//! Everything that can refuse is checked before anything is written: a session that is unknown,
//! still running elsewhere, a subagent, or whose snapshot is corrupt, truncated or from a newer
//! openagent is reported with what is wrong, and the store is left as it was.

use std::path::Path;

use openagent_core::session::SessionSnapshot;
use serde_json::Value;

use crate::AgentOptions;
use openagent_store::{SessionInfo, SessionRecord, Status, Store, StoreError};

/// Which stored session to take up again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResumeFrom {
    /// `--resume ID`: the session with this id, or the only one whose id starts with it.
    Id(String),
    /// `--continue`: the latest session of the working directory.
    Latest,
}

/// A stored session, loaded to be resumed.
#[derive(Debug, Clone)]
pub struct Resumed {
    pub record: SessionRecord,
    pub snapshot: SessionSnapshot,
}

impl Resumed {
    /// Finds the session (`cwd` is the working directory `--continue` looks in) and reads its
    /// latest snapshot; the error names what is wrong.
    pub fn load(store: &Store, from: &ResumeFrom, cwd: &Path) -> Result<Self, StoreError> {
        let id = match from {
            ResumeFrom::Id(prefix) => store.resolve(prefix)?,
            ResumeFrom::Latest => store.latest_in(&cwd.display().to_string())?,
        };
        let record = store.session(&id)?;
        if let Some(parent) = &record.info.parent_id {
            return Err(StoreError::Subagent { id, parent: parent.clone() });
        }
        if record.status == Status::Running {
            return Err(StoreError::StillRunning(id));
        }
        if let Some(pid) = store.open_elsewhere(&id)? {
            return Err(StoreError::OpenElsewhere { id, pid });
        }
        let snapshot = stored_snapshot(store, &id, None)?.1;
        Ok(Self { record, snapshot })
    }

    /// The session's id.
    pub fn id(&self) -> &str {
        &self.record.info.id
    }

    /// The output schema the session was started with outside an agent config (`openagent
    /// serve`'s `output_schema`), which its results must still validate against.
    pub fn output_schema(&self) -> Option<Value> {
        self.record.info.config.as_ref().map(|config| config["output_schema"].clone()).filter(Value::is_object)
    }

    /// The agent as the session had it, where `flags` say nothing: its provider (and model, unless
    /// another provider is asked for), its working directory and its agent config.
    pub fn options(&self, flags: &AgentOptions) -> AgentOptions {
        let info = &self.record.info;
        let same_provider = flags.provider.as_deref().is_none_or(|provider| provider == info.provider);
        let agent_id = info.config.as_ref().and_then(|config| config["agent"]["id"].as_str().map(str::to_owned));
        AgentOptions {
            provider: flags.provider.clone().or_else(|| Some(info.provider.clone())),
            model: flags.model.clone().or_else(|| same_provider.then(|| info.model.clone())),
            base_url: flags.base_url.clone(),
            cwd: flags.cwd.clone().or_else(|| Some(info.working_directory.clone().into())),
            agent: flags.agent.clone().or(agent_id),
            env_pass: flags.env_pass.clone(),
            approval: flags.approval,
            default_approval: flags.default_approval,
            sandbox: flags.sandbox.clone(),
            data_dir: flags.data_dir.clone(),
        }
    }
}

/// What `openagent sessions fork` and `POST /sessions/{id}/fork` made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Forked {
    pub id: String,
    pub forked_from: String,
    /// The event of `forked_from` after which the snapshot the fork starts from was taken.
    pub at: i64,
}

/// Forks session `id` (an id or a unique prefix) as `new_id` from its latest snapshot at or
/// before event `at` (the latest of all without `at`). The model is not called: the fork is
/// stored, finished, ready to be resumed.
pub fn fork(store: &mut Store, id: &str, at: Option<i64>, new_id: &str, created_at: &str) -> Result<Forked, StoreError> {
    let id = store.resolve(id)?;
    let record = store.session(&id)?;
    if let Some(parent) = &record.info.parent_id {
        return Err(StoreError::Subagent { id, parent: parent.clone() });
    }
    let (seq, mut snapshot) = stored_snapshot(store, &id, at)?;
    snapshot.session_id = new_id.to_owned();
    let info = SessionInfo { id: new_id.to_owned(), parent_id: None, created_at: created_at.to_owned(), ..record.info.clone() };
    store.create_fork(&info, &id, seq, &snapshot.to_json())?;
    Ok(Forked { id: new_id.to_owned(), forked_from: id, at: seq })
}

/// The snapshot of `id` at or before `at`, parsed: what the core says is wrong with it otherwise.
fn stored_snapshot(store: &Store, id: &str, at: Option<i64>) -> Result<(i64, SessionSnapshot), StoreError> {
    let stored = store.snapshot(id, at)?;
    let bad = |reason: String| StoreError::BadSnapshot { id: id.to_owned(), seq: stored.seq, reason };
    let json = stored.json.clone().map_err(|e| bad(e.to_string()))?;
    let snapshot = SessionSnapshot::from_json(&json).map_err(|e| bad(e.to_string()))?;
    Ok((stored.seq, snapshot))
}

/// `error` with what a person can do about it, as the CLI prints it: an unknown or ambiguous
/// session says how to list them.
pub fn explain(error: &StoreError) -> String {
    match error {
        StoreError::SessionNotFound(_) | StoreError::Ambiguous { .. } | StoreError::NoSessionIn(_) => {
            format!("{error}; `openagent sessions list` shows the sessions")
        }
        _ => error.to_string(),
    }
}

/// Whether `error` is about which session was named (exit code 2), not about the session found.
pub fn names_no_session(error: &StoreError) -> bool {
    matches!(error, StoreError::SessionNotFound(_) | StoreError::Ambiguous { .. } | StoreError::NoSessionIn(_))
}
