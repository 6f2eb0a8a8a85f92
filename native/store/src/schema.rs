//! The store's tables, versioned with `PRAGMA user_version`: version N is the first N entries of
//! [`MIGRATIONS`], so an older file is brought up to date on open by running the ones it lacks,
//! and a file from a newer openagent is refused rather than misread.

use rusqlite::{Connection, TransactionBehavior};

use super::StoreError;

/// Each schema version's statements, in order. Append; never edit one that has shipped.
pub(super) const MIGRATIONS: &[&str] = &[
    // 1: sessions (subagents point at their parent), their events and their inputs' results.
    "CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        parent_id TEXT REFERENCES sessions (id),
        task TEXT NOT NULL,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        working_directory TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
        exit_reason TEXT,
        created_at TEXT NOT NULL,
        finished_at TEXT,
        -- JSON: what the run was asked to do, with its config_fingerprint; NULL for a subagent,
        -- which runs with its parent's settings.
        config TEXT,
        -- The process writing the session, to tell a dead writer from a live one: its pid and,
        -- where the system says, its start time (a pid can be reused).
        writer_pid INTEGER NOT NULL,
        writer_started INTEGER
    );
    CREATE INDEX sessions_by_created ON sessions (created_at);
    CREATE INDEX sessions_by_parent ON sessions (parent_id);
    CREATE INDEX sessions_running ON sessions (status) WHERE status = 'running';

    CREATE TABLE events (
        -- The order events arrived in, across sessions (a subagent's interleave with its parent's).
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL REFERENCES sessions (id),
        -- 1, 2, 3, ... per session.
        seq INTEGER NOT NULL,
        kind TEXT NOT NULL,
        timestamp TEXT NOT NULL,
        -- The whole internal event as JSON, exactly the line --events writes.
        data TEXT NOT NULL,
        UNIQUE (session_id, seq)
    );

    -- One row per `result` event: an interactive session has one per input.
    CREATE TABLE results (
        session_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        result_text TEXT NOT NULL,
        result_data TEXT,
        outcome TEXT NOT NULL,
        PRIMARY KEY (session_id, seq),
        FOREIGN KEY (session_id, seq) REFERENCES events (session_id, seq)
    );",
    // 2: snapshots of the loop's state (`openagent.session/1`) to resume and fork from, and
    // the session a fork was taken from.
    "CREATE TABLE snapshots (
        session_id TEXT NOT NULL REFERENCES sessions (id),
        -- The session's last event when it was taken (0: before any, a fork's).
        seq INTEGER NOT NULL,
        -- 1: taken at the end of an input, kept; 0: the rolling one of an input in progress,
        -- replaced at each turn, so a killed run resumes from its last complete turn.
        input_end INTEGER NOT NULL CHECK (input_end IN (0, 1)),
        created_at TEXT NOT NULL,
        -- The snapshot's JSON, as the core writes it.
        snapshot TEXT NOT NULL,
        PRIMARY KEY (session_id, seq)
    );
    ALTER TABLE sessions ADD COLUMN forked_from TEXT REFERENCES sessions (id);
    -- The event of forked_from after which the fork's snapshot was taken.
    ALTER TABLE sessions ADD COLUMN forked_at INTEGER;
    CREATE INDEX sessions_by_directory ON sessions (working_directory) WHERE parent_id IS NULL;",
];

/// The schema version this build writes.
pub const VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings the database to [`VERSION`]. Each step is one immediate transaction that reads the
/// version again inside it, so two processes opening a new file at once migrate it once.
pub fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    loop {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let found: i64 = tx.query_row("PRAGMA user_version", [], |row| row.get(0))?;
        if found > VERSION {
            return Err(StoreError::TooNew { found, known: VERSION });
        }
        let Some(step) = usize::try_from(found).ok().and_then(|index| MIGRATIONS.get(index)) else {
            return Ok(());
        };
        tx.execute_batch(step)?;
        tx.pragma_update(None, "user_version", found + 1)?;
        tx.commit()?;
    }
}
