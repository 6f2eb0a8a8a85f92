//! The `events` and `results` tables: every event of a session in order, and the result each of
//! its inputs ended with (a `result` event's content, kept apart so it is found without reading
//! the events). A result is seed 003's: `{result_text, result_data}` plus the typed outcome.

use openagent_core::session::{EventData, RunResult, SessionEvent};
use rusqlite::{params, OptionalExtension, Row};
use serde::Serialize;
use serde_json::Value;

use super::{Status, Store, StoreError};

/// Tokens and dollars a session used, its subagents' included.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Spent {
    pub total_tokens: u64,
    /// By the catalog's prices; `None` when none of the responses was priced.
    pub cost_usd: Option<f64>,
}

/// One stored event.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEvent {
    pub session_id: String,
    /// 1, 2, 3, ... in its session.
    pub seq: i64,
    pub kind: String,
    pub timestamp: String,
    /// The internal event as JSON: the line `--events` writes for it.
    pub data: String,
}

/// What `GET /sessions/{id}/result` and `openagent sessions result` give (seed 003): the result
/// text, and the structured result or `null`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionResult {
    pub result_text: String,
    pub result_data: Option<Value>,
}

impl From<RunResult> for SessionResult {
    fn from(result: RunResult) -> Self {
        Self { result_text: result.result_text, result_data: result.result_data }
    }
}

impl StoredEvent {
    fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        Ok(Self { session_id: row.get(0)?, seq: row.get(1)?, kind: row.get(2)?, timestamp: row.get(3)?, data: row.get(4)? })
    }
}

impl Store {
    /// Appends `event` (`json` is its serialised form) as number `seq` of `session_id`, with its
    /// result if it is a `result` event: one transaction, committed when this returns.
    pub fn append_event(&mut self, session_id: &str, seq: i64, event: &SessionEvent, json: &str) -> Result<(), StoreError> {
        const INSERT: &str = "INSERT INTO events (session_id, seq, kind, timestamp, data) VALUES (?1, ?2, ?3, ?4, ?5)";
        let row = params![session_id, seq, event.kind(), event.timestamp.as_str(), json];
        let EventData::Result { result_text, result_data, outcome } = &event.data else {
            // One statement is a transaction of its own; cached, as every event runs it.
            self.conn.prepare_cached(INSERT)?.execute(row)?;
            return Ok(());
        };
        let tx = self.conn.transaction()?;
        tx.execute(INSERT, row)?;
        let outcome = serde_json::to_string(outcome).expect("an outcome serialises");
        tx.execute(
            "INSERT INTO results (session_id, seq, result_text, result_data, outcome) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![session_id, seq, result_text, result_data.as_ref().map(Value::to_string), outcome],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The session's events after number `after` (0: from the first), in order, at most `limit`
    /// of them. Reading on from the last one seen follows a session as it is written.
    pub fn events_after(&self, session_id: &str, after: i64, limit: Option<usize>) -> Result<Vec<StoredEvent>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT session_id, seq, kind, timestamp, data FROM events
             WHERE session_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
        )?;
        let rows = statement.query_map(params![session_id, after, sql_limit(limit)], StoredEvent::from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The events of a session and of all its subagents, in the order they happened: what its
    /// run's `events.jsonl` holds.
    pub fn events_with_subagents(&self, session_id: &str) -> Result<Vec<StoredEvent>, StoreError> {
        // A subagent's id is its parent's, `/`, its own: `root/agent_1`, `root/agent_1/agent_1`.
        // `0` follows `/`, so the range holds exactly the ids under `root/`.
        let mut statement = self.conn.prepare(
            "SELECT session_id, seq, kind, timestamp, data FROM events
             WHERE session_id = ?1 OR (session_id >= ?1 || '/' AND session_id < ?1 || '0') ORDER BY id",
        )?;
        let rows = statement.query_map(params![session_id], StoredEvent::from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// How many events the session has.
    /// What a session and its subagents, all the way down, used: each one's total as its last
    /// response reported it (`assistant_text_end`'s `total_usage`), added up.
    pub fn spent(&self, session_id: &str) -> Result<Spent, StoreError> {
        let (total_tokens, cost_usd) = self.conn.query_row(
            "WITH RECURSIVE tree(id) AS (
                 SELECT ?1 UNION ALL SELECT s.id FROM sessions s JOIN tree ON s.parent_id = tree.id
             ), last(data) AS (
                 SELECT (SELECT data FROM events e WHERE e.session_id = tree.id AND e.kind = 'assistant_text_end'
                         ORDER BY e.seq DESC LIMIT 1) FROM tree
             )
             SELECT coalesce(sum(json_extract(data, '$.data.total_usage.total_tokens')), 0),
                    sum(json_extract(data, '$.data.total_usage.cost_usd')) FROM last",
            params![session_id],
            |row| Ok((row.get::<_, i64>(0)?, row.get::<_, Option<f64>>(1)?)),
        )?;
        Ok(Spent { total_tokens: total_tokens.max(0) as u64, cost_usd })
    }

    pub fn event_count(&self, session_id: &str) -> Result<i64, StoreError> {
        Ok(self.conn.query_row("SELECT count(*) FROM events WHERE session_id = ?1", params![session_id], |row| row.get(0))?)
    }

    /// The result of the session's latest input that has one, whatever the session's state.
    pub fn last_result(&self, session_id: &str) -> Result<Option<RunResult>, StoreError> {
        let row = self
            .conn
            .query_row(
                "SELECT result_text, result_data, outcome FROM results WHERE session_id = ?1 ORDER BY seq DESC LIMIT 1",
                params![session_id],
                |row| Ok((row.get::<_, String>(0)?, row.get::<_, Option<String>>(1)?, row.get::<_, String>(2)?)),
            )
            .optional()?;
        let Some((result_text, result_data, outcome)) = row else { return Ok(None) };
        let corrupt = |e: serde_json::Error| StoreError::Database(format!("a stored result of {session_id} is not JSON: {e}"));
        Ok(Some(RunResult {
            result_text,
            result_data: result_data.map(|text| serde_json::from_str(&text)).transpose().map_err(corrupt)?,
            outcome: serde_json::from_str(&outcome).map_err(corrupt)?,
        }))
    }

    /// The session's result, as seed 003's `GET /sessions/{id}/result` gives it: an unknown
    /// session is [`StoreError::SessionNotFound`], one not `finished`
    /// [`StoreError::NotFinished`], one finished without a result [`StoreError::NoResult`].
    pub fn result(&self, session_id: &str) -> Result<RunResult, StoreError> {
        let session = self.session(session_id)?;
        if session.status != Status::Finished {
            return Err(StoreError::NotFinished { id: session.info.id, status: session.status });
        }
        self.last_result(session_id)?.ok_or(StoreError::NoResult(session.info.id))
    }
}

/// `limit` as SQLite's LIMIT, where a negative number means none.
pub(super) fn sql_limit(limit: Option<usize>) -> i64 {
    limit.map_or(-1, |n| i64::try_from(n).unwrap_or(i64::MAX))
}
