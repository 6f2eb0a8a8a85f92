//! The `snapshots` table: the loop's state (`openagent.session/1`, as the core serialises it) to
//! resume and fork a session from. Each input's end leaves one that is kept; during an input one
//! rolling snapshot, replaced at every turn, lets a run killed with SIGKILL resume from its last
//! complete turn. A snapshot is keyed by the session's last event when it was taken, so
//! `fork --at <seq>` takes the latest at or before an event. The store keeps the text as given;
//! whether it is a snapshot the core can restore is the runner's resume's question.

use std::collections::HashMap;

use rusqlite::{params, OptionalExtension};

use super::writer::Writer;
use super::{SessionInfo, Store, StoreError};

/// A stored snapshot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSnapshot {
    /// The session's last event when it was taken (0: before any).
    pub seq: i64,
    /// The snapshot's JSON; `Err` with what is wrong when the row does not hold text.
    pub json: Result<String, UnreadableSnapshot>,
}

/// Why a stored snapshot's row is no text to restore from (the runner's resume says it of the
/// snapshot it names, and what to do).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UnreadableSnapshot {
    #[error("the stored text is not UTF-8 ({0})")]
    NotUtf8(#[from] std::string::FromUtf8Error),
    #[error("the stored value is not text")]
    NotText,
}

impl Store {
    /// Keeps `json` as the snapshot of `session_id` after its event `seq`. `input_end`: taken at
    /// the end of an input, kept; otherwise the rolling snapshot of the input in progress, which
    /// replaces the previous rolling one. One transaction: a reader never sees neither.
    pub fn save_snapshot(
        &mut self,
        session_id: &str,
        seq: i64,
        input_end: bool,
        created_at: &str,
        json: &str,
    ) -> Result<(), StoreError> {
        let tx = self.conn.transaction()?;
        tx.prepare_cached("DELETE FROM snapshots WHERE session_id = ?1 AND input_end = 0")?.execute(params![session_id])?;
        tx.prepare_cached(
            "INSERT OR REPLACE INTO snapshots (session_id, seq, input_end, created_at, snapshot) VALUES (?1, ?2, ?3, ?4, ?5)",
        )?
        .execute(params![session_id, seq, input_end, created_at, json])?;
        tx.commit()?;
        Ok(())
    }

    /// The latest snapshot of `session_id`, or the latest at or before its event `at`.
    pub fn snapshot(&self, session_id: &str, at: Option<i64>) -> Result<StoredSnapshot, StoreError> {
        let row = self
            .conn
            .query_row(
                "SELECT seq, snapshot FROM snapshots WHERE session_id = ?1 AND (?2 IS NULL OR seq <= ?2)
                 ORDER BY seq DESC LIMIT 1",
                params![session_id, at],
                |row| {
                    // Bytes, whatever the column's type, so that a row holding something else
                    // than text is reported for what it is rather than as a failed query.
                    let json = match row.get_ref(1)?.as_bytes() {
                        Ok(bytes) => String::from_utf8(bytes.to_vec()).map_err(UnreadableSnapshot::from),
                        Err(_) => Err(UnreadableSnapshot::NotText),
                    };
                    Ok(StoredSnapshot { seq: row.get(0)?, json })
                },
            )
            .optional()?;
        row.ok_or_else(|| StoreError::NoSnapshot { id: session_id.to_owned(), at })
    }

    /// Records `session` as a fork of `forked_from` after its event `forked_at`, with `json` as
    /// its snapshot: finished (it has not run yet) and ready to be resumed.
    pub fn create_fork(
        &mut self,
        session: &SessionInfo,
        forked_from: &str,
        forked_at: i64,
        json: &str,
    ) -> Result<(), StoreError> {
        let writer = Writer::current();
        let tx = self.conn.transaction()?;
        tx.execute(
            "INSERT INTO sessions (id, task, provider, model, working_directory, status, created_at, finished_at, config,
                                   writer_pid, writer_started, forked_from, forked_at)
             VALUES (?1, ?2, ?3, ?4, ?5, 'finished', ?6, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                session.id,
                session.task,
                session.provider,
                session.model,
                session.working_directory,
                session.created_at,
                session.config.as_ref().map(serde_json::Value::to_string),
                writer.pid,
                writer.started.and_then(|ticks| i64::try_from(ticks).ok()),
                forked_from,
                forked_at,
            ],
        )?;
        tx.execute(
            "INSERT INTO snapshots (session_id, seq, input_end, created_at, snapshot) VALUES (?1, 0, 1, ?2, ?3)",
            params![session.id, session.created_at, json],
        )?;
        tx.commit()?;
        Ok(())
    }

    /// The session (not a subagent) that worked in `working_directory` most recently: the
    /// latest event, or creation for one without events (a fork).
    pub fn latest_in(&self, working_directory: &str) -> Result<String, StoreError> {
        self.conn
            .query_row(
                "SELECT id FROM sessions s WHERE working_directory = ?1 AND parent_id IS NULL
                 ORDER BY coalesce((SELECT max(timestamp) FROM events WHERE session_id = s.id), created_at) DESC, rowid DESC
                 LIMIT 1",
                params![working_directory],
                |row| row.get(0),
            )
            .optional()?
            .ok_or_else(|| StoreError::NoSessionIn(working_directory.to_owned()))
    }

    /// The last `seq` of `session_id` and of each of its subagents, to append after.
    pub(super) fn last_seqs(&self, session_id: &str) -> Result<HashMap<String, i64>, StoreError> {
        let mut statement = self.conn.prepare(
            "SELECT session_id, max(seq) FROM events
             WHERE session_id = ?1 OR (session_id >= ?1 || '/' AND session_id < ?1 || '0') GROUP BY session_id",
        )?;
        let rows = statement.query_map(params![session_id], |row| Ok((row.get(0)?, row.get(1)?)))?;
        let mut seqs: HashMap<String, i64> = rows.collect::<Result<_, _>>()?;
        seqs.entry(session_id.to_owned()).or_insert(0);
        Ok(seqs)
    }
}
