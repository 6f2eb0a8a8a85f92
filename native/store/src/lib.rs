//! The session store: every native session, its events as they happen, how each of its inputs
//! ended, and snapshots of its state to resume or fork it from, in one embedded SQLite database,
//! `<data dir>/openagent.db`. `openagent run` and the interactive session write to it through a
//! [`Recorder`]; `openagent sessions` and `openagent serve` read it.
//!
//! Durability is per event: each event is its own transaction in WAL mode with
//! `synchronous=NORMAL`, so once [`Store::append_event`] returns, the event is in the WAL file
//! and survives the writer being killed (only a power loss can take the last ones back). A
//! session whose writer died before it could finish it (SIGKILL, a crash) stays `running` in the
//! file; readers see that its writer process is gone and mark it `interrupted`
//! ([`Store::sessions`], [`Store::session`], [`Store::result`]).
//!
//! It depends on the core alone (and SQLite): the runner and every front end read and write
//! through it, and it must not import them; whether a snapshot can be restored is the runner's
//! question (`resume`), not the store's.
//!
//! ```no_run
//! use openagent_store::{SessionFilter, Store};
//!
//! let store = Store::open(std::path::Path::new("/tmp/openagent-data"))?;
//! for session in store.sessions(&SessionFilter { limit: Some(10), ..SessionFilter::default() })? {
//!     println!("{} {} {}", session.info.id, session.status, session.info.task);
//! }
//! # Ok::<(), openagent_store::StoreError>(())
//! ```

mod events;
mod exit_reason;
mod recorder;
mod schema;
mod sessions;
mod shown;
mod snapshots;
mod writer;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::Connection;

pub use events::{SessionResult, Spent, StoredEvent};
pub use exit_reason::ExitReason;
pub use recorder::Recorder;
pub use sessions::{SessionFilter, SessionInfo, SessionRecord, Status};
pub use shown::{session_json, Shown};
pub use snapshots::{StoredSnapshot, UnreadableSnapshot};

/// The database's file name in the data directory.
pub const DATABASE: &str = "openagent.db";

/// How long a write waits for another process's transaction before it fails. Transactions here
/// last microseconds, so only a stuck process makes this matter.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The log's size, in pages, at which a commit copies it into the database: the next run to open
/// the store reads the whole log to index it, so a small one is quick to open; a checkpoint every
/// few runs is what that costs.
const WAL_PAGES: i64 = 256;

/// An open session store.
pub struct Store {
    conn: Connection,
    path: PathBuf,
}

impl Store {
    /// Opens `<data_dir>/openagent.db`, creating the directory, the file and its tables, or
    /// bringing an older schema up to date.
    pub fn open(data_dir: &Path) -> Result<Self, StoreError> {
        let path = data_dir.join(DATABASE);
        if let Err(e) = std::fs::create_dir_all(data_dir) {
            return Err(StoreError::Open { path, reason: e.to_string() });
        }
        match Self::connect(&path) {
            Ok(conn) => Ok(Self { conn, path }),
            Err(StoreError::Database(reason)) => Err(StoreError::Open { path, reason }),
            Err(other) => Err(other),
        }
    }

    fn connect(path: &Path) -> Result<Connection, StoreError> {
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(BUSY_TIMEOUT)?;
        // WAL: readers never block the writer, and a commit is an append to the log.
        let mode: String = conn.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(StoreError::Database(format!("the database would not use WAL (journal_mode is {mode})")));
        }
        // NORMAL in WAL mode does not fsync each commit: a killed process loses nothing, a power
        // loss may lose the last commits; FULL would cost an fsync per event.
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        // The last connection to close would copy the log into the database and remove it, with
        // an fsync of each, and the next run's first commit would make a new log with two more
        // (its header, the directory): four waits on the disk in every run, before its first
        // model call and after its answer. The log is kept for the next run instead, and copied
        // into the database by the commit that grows it past WAL_PAGES, in whichever run that is.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        conn.pragma_update(None, "wal_autocheckpoint", WAL_PAGES)?;
        conn.pragma_update(None, "foreign_keys", true)?;
        schema::migrate(&mut conn)?;
        Ok(conn)
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// What the store could not do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    /// The database could not be opened or set up.
    #[error("cannot open the session store {}: {reason}", path.display())]
    Open { path: PathBuf, reason: String },
    /// The file was written by a newer openagent, whose schema this one does not know.
    #[error("the session store has schema version {found}, newer than this openagent knows ({known}): update openagent")]
    TooNew { found: i64, known: i64 },
    /// No session has this id (or id prefix).
    #[error("session not found: {0}")]
    SessionNotFound(String),
    /// More than one session id starts with this prefix.
    #[error("session id prefix {prefix} is ambiguous: {}; give more of it", matches.join(", "))]
    Ambiguous { prefix: String, matches: Vec<String> },
    /// The session is still running, or was interrupted: it has no final result.
    #[error("session not finished: {id} is {status}")]
    NotFinished { id: String, status: Status },
    /// The session finished without a result.
    #[error("no result: session {0} finished without one")]
    NoResult(String),
    /// No session (but subagents) worked in this directory: `--continue` has nothing to continue.
    #[error("no session worked in {0}")]
    NoSessionIn(String),
    /// The session has no snapshot (at or before event `at`) to resume or fork from.
    #[error("{}", no_snapshot(id, *at))]
    NoSnapshot { id: String, at: Option<i64> },
    /// The snapshot after event `seq` cannot be restored: `reason` says what is wrong with it.
    #[error(
        "the snapshot of session {id} after event {seq} cannot be restored: {reason}; nothing was changed \
         (an earlier snapshot may be sound: `openagent sessions fork {id} --at <an earlier event>`)"
    )]
    BadSnapshot { id: String, seq: i64, reason: String },
    /// The session's writer is still at work on it: it cannot be taken up elsewhere.
    #[error("session {0} is still running in another process: wait for it to finish, or stop it")]
    StillRunning(String),
    /// Another live process keeps the session open for its next input.
    #[error(
        "session {id} is open in another openagent process (pid {pid}: an `openagent serve` or an interactive \
         session): give it its next input there, or stop that process"
    )]
    OpenElsewhere { id: String, pid: u32 },
    /// A subagent's state is in its parent's snapshots: it is resumed with its parent.
    #[error("session {id} is a subagent: its state is in its parent's snapshots; resume or fork {parent}")]
    Subagent { id: String, parent: String },
    /// SQLite refused a statement.
    #[error("the session store failed: {0}")]
    Database(String),
}

/// A missing snapshot: of any kind, or at or before an event.
fn no_snapshot(id: &str, at: Option<i64>) -> String {
    match at {
        None => format!(
            "session {id} has no snapshot to resume from: it was recorded by an older openagent, or stopped before its first model call"
        ),
        Some(at) => format!("session {id} has no snapshot at or before event {at}: fork it at a later event"),
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        Self::Database(error.to_string())
    }
}

#[cfg(test)]
mod tests;
