//! The `sessions` table: one row per session, a subagent's pointing at its parent. A session is
//! `running` from its creation until its writer finishes it; `interrupted` when its writer died
//! first, which readers find out and record ([`Store::reap`]).

use std::fmt;

use rusqlite::types::{FromSql, FromSqlError, FromSqlResult, ValueRef};
use rusqlite::{params, OptionalExtension, Row};
use serde::Serialize;
use serde_json::Value;

use super::events::sql_limit;
use super::writer::Writer;
use super::{Spent, Store, StoreError};

/// Where a session is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Its writer is at work (or, between inputs, waiting for the next one).
    Running,
    /// Its writer recorded how it ended (`exit_reason`).
    Finished,
    /// Its writer died before recording how it ended: killed, crashed, or the machine stopped.
    Interrupted,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "running",
            Self::Finished => "finished",
            Self::Interrupted => "interrupted",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Running, Self::Finished, Self::Interrupted].into_iter().find(|status| status.as_str() == text)
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad`, so that tables can give the status a width.
        f.pad(self.as_str())
    }
}

impl FromSql for Status {
    fn column_result(value: ValueRef<'_>) -> FromSqlResult<Self> {
        let text = value.as_str()?;
        Self::parse(text).ok_or_else(|| FromSqlError::Other(format!("unknown session status {text:?}").into()))
    }
}

/// What a session is, fixed when its writer creates it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionInfo {
    pub id: String,
    pub parent_id: Option<String>,
    pub task: String,
    pub provider: String,
    pub model: String,
    pub working_directory: String,
    /// RFC 3339 UTC.
    pub created_at: String,
    /// What the session was asked to do (with its `config_fingerprint`); `None` for a subagent,
    /// which runs with its parent's settings.
    pub config: Option<Value>,
}

/// A stored session: what it is, and where it is now.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionRecord {
    #[serde(flatten)]
    pub info: SessionInfo,
    pub status: Status,
    /// How it ended: the run's `exit_reason` (`completed`, `max_turns`, `interrupted`, ...);
    /// `None` while running or when its writer died.
    pub exit_reason: Option<String>,
    pub finished_at: Option<String>,
    /// The session this one was forked from (`openagent sessions fork`), and after which of its
    /// events; `None` for a session started afresh.
    pub forked_from: Option<String>,
    pub forked_at: Option<i64>,
    /// What it and its subagents used so far, where it is shown: [`Store::sessions`] adds it up
    /// for each session it lists, the one shown asks [`Store::spent`]. `None` elsewhere, so that
    /// a lookup for a status (the event stream's poll, a control request) reads no events.
    #[serde(flatten)]
    pub spent: Option<Spent>,
}

const COLUMNS: &str = "id, parent_id, task, provider, model, working_directory, status, exit_reason, created_at, finished_at, \
                       config, forked_from, forked_at";

impl SessionRecord {
    fn from_row(row: &Row<'_>) -> rusqlite::Result<Self> {
        let config: Option<String> = row.get(10)?;
        let info = SessionInfo {
            id: row.get(0)?,
            parent_id: row.get(1)?,
            task: row.get(2)?,
            provider: row.get(3)?,
            model: row.get(4)?,
            working_directory: row.get(5)?,
            created_at: row.get(8)?,
            // Written by this module from a `Value`, so it parses; a hand-edited file shows null.
            config: config.and_then(|text| serde_json::from_str(&text).ok()),
        };
        Ok(Self {
            info,
            status: row.get(6)?,
            exit_reason: row.get(7)?,
            finished_at: row.get(9)?,
            forked_from: row.get(11)?,
            forked_at: row.get(12)?,
            spent: None,
        })
    }
}

/// Which sessions [`Store::sessions`] lists.
#[derive(Debug, Clone, Default)]
pub struct SessionFilter {
    /// Only sessions in this state.
    pub status: Option<Status>,
    /// Subagents too, not only the sessions a person or a script started.
    pub subagents: bool,
    /// At most this many, the newest.
    pub limit: Option<usize>,
}

impl Store {
    /// Records a new `running` session written by this process.
    pub fn create_session(&mut self, session: &SessionInfo) -> Result<(), StoreError> {
        let writer = Writer::current();
        self.conn.execute(
            "INSERT INTO sessions (id, parent_id, task, provider, model, working_directory, status, created_at, config,
                                   writer_pid, writer_started)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'running', ?7, ?8, ?9, ?10)",
            params![
                session.id,
                session.parent_id,
                session.task,
                session.provider,
                session.model,
                session.working_directory,
                session.created_at,
                session.config.as_ref().map(Value::to_string),
                writer.pid,
                writer.started.and_then(|ticks| i64::try_from(ticks).ok()),
            ],
        )?;
        Ok(())
    }

    /// Sets the task of a session created before its first input (a subagent's), once.
    pub(super) fn set_task(&mut self, id: &str, task: &str) -> Result<(), StoreError> {
        self.conn.execute("UPDATE sessions SET task = ?2 WHERE id = ?1 AND task = ''", params![id, task])?;
        Ok(())
    }

    /// Records how the session ended.
    pub fn finish_session(&mut self, id: &str, exit_reason: &str, finished_at: &str) -> Result<(), StoreError> {
        self.conn.execute(
            "UPDATE sessions SET status = 'finished', exit_reason = ?2, finished_at = ?3 WHERE id = ?1",
            params![id, exit_reason, finished_at],
        )?;
        Ok(())
    }

    /// Takes a finished (or interrupted) session up again, written by this process from now on:
    /// another input for a session kept open, a subagent given another input, a resumed session.
    pub(super) fn resume_session(&mut self, id: &str) -> Result<(), StoreError> {
        let writer = Writer::current();
        self.conn.execute(
            "UPDATE sessions SET status = 'running', exit_reason = NULL, finished_at = NULL, writer_pid = ?2,
                                 writer_started = ?3
             WHERE id = ?1",
            params![id, writer.pid, writer.started.and_then(|ticks| i64::try_from(ticks).ok())],
        )?;
        Ok(())
    }

    /// Marks every `running` session whose writer is gone `interrupted`, finished when it was
    /// last heard of (its last event). Readers call it first, so they never show a dead session
    /// as running.
    pub fn reap(&self) -> Result<(), StoreError> {
        let mut running = self.conn.prepare("SELECT id, writer_pid, writer_started FROM sessions WHERE status = 'running'")?;
        let dead: Vec<String> = running
            .query_map([], |row| {
                let started: Option<i64> = row.get(2)?;
                let writer = Writer { pid: row.get(1)?, started: started.and_then(|ticks| u64::try_from(ticks).ok()) };
                Ok((row.get::<_, String>(0)?, writer))
            })?
            .filter_map(|row| row.ok().filter(|(_, writer)| !writer.is_alive()).map(|(id, _)| id))
            .collect();
        for id in dead {
            self.conn.execute(
                "UPDATE sessions SET status = 'interrupted',
                     finished_at = coalesce((SELECT max(timestamp) FROM events WHERE session_id = ?1), created_at)
                 WHERE id = ?1 AND status = 'running'",
                params![id],
            )?;
        }
        Ok(())
    }

    /// Sessions, newest first.
    pub fn sessions(&self, filter: &SessionFilter) -> Result<Vec<SessionRecord>, StoreError> {
        self.reap()?;
        let sql = format!(
            "SELECT {COLUMNS} FROM sessions
             WHERE (?1 IS NULL OR status = ?1) AND (?2 OR parent_id IS NULL)
             ORDER BY created_at DESC, rowid DESC LIMIT ?3"
        );
        let limit = sql_limit(filter.limit);
        let status = filter.status.map(Status::as_str);
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map(params![status, filter.subagents, limit], SessionRecord::from_row)?;
        let mut records: Vec<SessionRecord> = rows.collect::<Result<_, _>>()?;
        for record in &mut records {
            record.spent = Some(self.spent(&record.info.id)?);
        }
        Ok(records)
    }

    /// One session, by its exact id.
    pub fn session(&self, id: &str) -> Result<SessionRecord, StoreError> {
        self.reap()?;
        let sql = format!("SELECT {COLUMNS} FROM sessions WHERE id = ?1");
        self.conn
            .query_row(&sql, params![id], SessionRecord::from_row)
            .optional()?
            .ok_or_else(|| StoreError::SessionNotFound(id.to_owned()))
    }

    /// The direct subagents of a session, oldest first.
    pub fn subagents(&self, id: &str) -> Result<Vec<SessionRecord>, StoreError> {
        self.reap()?;
        let sql = format!("SELECT {COLUMNS} FROM sessions WHERE parent_id = ?1 ORDER BY created_at, rowid");
        let mut statement = self.conn.prepare(&sql)?;
        let rows = statement.query_map(params![id], SessionRecord::from_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The live process, other than this one, that keeps `id` open: `openagent serve` keeps a
    /// session `finished` between inputs and waits for its next. `None` when no live process
    /// has written it (a fork not resumed yet has no events, hence no writer).
    pub fn open_elsewhere(&self, id: &str) -> Result<Option<u32>, StoreError> {
        let row = self
            .conn
            .query_row(
                "SELECT writer_pid, writer_started, EXISTS (SELECT 1 FROM events WHERE session_id = s.id) FROM sessions s
                 WHERE id = ?1",
                params![id],
                |row| {
                    let started: Option<i64> = row.get(1)?;
                    let writer = Writer { pid: row.get(0)?, started: started.and_then(|ticks| u64::try_from(ticks).ok()) };
                    Ok((writer, row.get::<_, bool>(2)?))
                },
            )
            .optional()?;
        Ok(row.filter(|(writer, written)| *written && writer.pid != std::process::id() && writer.is_alive()).map(|(w, _)| w.pid))
    }

    /// The id of the one session whose id is `prefix` or starts with it.
    pub fn resolve(&self, prefix: &str) -> Result<String, StoreError> {
        let exact: Option<String> =
            self.conn.query_row("SELECT id FROM sessions WHERE id = ?1", params![prefix], |row| row.get(0)).optional()?;
        if let Some(id) = exact {
            return Ok(id);
        }
        let mut statement =
            self.conn.prepare("SELECT id FROM sessions WHERE substr(id, 1, length(?1)) = ?1 ORDER BY id LIMIT 5")?;
        let mut matches: Vec<String> = statement.query_map(params![prefix], |row| row.get(0))?.collect::<Result<_, _>>()?;
        match matches.len() {
            0 => Err(StoreError::SessionNotFound(prefix.to_owned())),
            1 => Ok(matches.remove(0)),
            _ => Err(StoreError::Ambiguous { prefix: prefix.to_owned(), matches }),
        }
    }
}
