//! One session as `openagent sessions show` and `GET /sessions/{id}` of `openagent serve` show
//! it: its record with what it spent, its latest outcome, its subagents and its event count.

use openagent_core::session::AgentOutcome;
use serde_json::{json, Value};

use crate::{SessionRecord, Store, StoreError};

/// `sessions show ID --json`, and `GET /sessions/{id}` of `openagent serve`: the session record
/// with its event count, its latest outcome and its subagents' (child sessions') ids.
pub fn session_json(store: &Store, id: &str) -> Result<Value, StoreError> {
    let Shown { session, outcome, subagents, events } = Shown::load(store, id)?;
    let mut record = serde_json::to_value(&session).expect("a session serialises");
    record["events"] = json!(events);
    record["outcome"] = json!(outcome);
    record["subagents"] = json!(subagents.iter().map(|s| &s.info.id).collect::<Vec<_>>());
    Ok(record)
}

/// What `show` says about a session.
pub struct Shown {
    pub session: SessionRecord,
    pub outcome: Option<AgentOutcome>,
    pub subagents: Vec<SessionRecord>,
    pub events: i64,
}

impl Shown {
    pub fn load(store: &Store, id: &str) -> Result<Self, StoreError> {
        let mut session = store.session(id)?;
        session.spent = Some(store.spent(id)?);
        Ok(Self {
            session,
            outcome: store.last_result(id)?.map(|result| result.outcome),
            subagents: store.subagents(id)?,
            events: store.event_count(id)?,
        })
    }
}
