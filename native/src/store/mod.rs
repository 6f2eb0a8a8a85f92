//! The session store: every native session, its events as they happen, and how each of its
//! inputs ended, in one embedded SQLite database, `<data dir>/openagent.db`. `openagent run`
//! and the interactive session write to it through a [`Recorder`]; `openagent sessions` and
//! `openagent serve` read it.
//!
//! Durability is per event: each event is its own transaction in WAL mode with
//! `synchronous=NORMAL`, so once [`Store::append_event`] returns, the event is in the WAL file
//! and survives the writer being killed (only a power loss can take the last ones back). A
//! session whose writer died before it could finish it (SIGKILL, a crash) stays `running` in the
//! file; readers see that its writer process is gone and mark it `interrupted`
//! ([`Store::sessions`], [`Store::session`], [`Store::result`]).
//!
//! ```no_run
//! use openagent_native::store::{SessionFilter, Store};
//!
//! let store = Store::open(std::path::Path::new("/tmp/openagent-data"))?;
//! for session in store.sessions(&SessionFilter { limit: Some(10), ..SessionFilter::default() })? {
//!     println!("{} {} {}", session.info.id, session.status, session.info.task);
//! }
//! # Ok::<(), openagent_native::store::StoreError>(())
//! ```

mod events;
mod recorder;
mod schema;
mod sessions;
mod writer;

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::Connection;

pub use events::{SessionResult, StoredEvent};
pub use recorder::Recorder;
pub use sessions::{SessionFilter, SessionInfo, SessionRecord, Status};

/// The database's file name in the data directory.
pub const DATABASE: &str = "openagent.db";

/// How long a write waits for another process's transaction before it fails. Transactions here
/// last microseconds, so only a stuck process makes this matter.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

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
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The database could not be opened or set up.
    Open { path: PathBuf, reason: String },
    /// The file was written by a newer openagent, whose schema this one does not know.
    TooNew { found: i64, known: i64 },
    /// No session has this id (or id prefix).
    SessionNotFound(String),
    /// More than one session id starts with this prefix.
    Ambiguous { prefix: String, matches: Vec<String> },
    /// The session is still running, or was interrupted: it has no final result.
    NotFinished { id: String, status: Status },
    /// The session finished without a result.
    NoResult(String),
    /// SQLite refused a statement.
    Database(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Open { path, reason } => write!(f, "cannot open the session store {}: {reason}", path.display()),
            Self::TooNew { found, known } => write!(
                f,
                "the session store has schema version {found}, newer than this openagent knows ({known}): update openagent"
            ),
            Self::SessionNotFound(id) => write!(f, "session not found: {id}"),
            Self::Ambiguous { prefix, matches } => {
                write!(f, "session id prefix {prefix} is ambiguous: {}; give more of it", matches.join(", "))
            }
            Self::NotFinished { id, status } => write!(f, "session not finished: {id} is {status}"),
            Self::NoResult(id) => write!(f, "no result: session {id} finished without one"),
            Self::Database(message) => write!(f, "the session store failed: {message}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<rusqlite::Error> for StoreError {
    fn from(error: rusqlite::Error) -> Self {
        Self::Database(error.to_string())
    }
}

#[cfg(test)]
mod tests;
