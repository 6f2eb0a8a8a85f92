//! Why a directory's hooks and MCP servers did not run: a file not trusted as it is, or a trust
//! store that cannot be used.

use std::io;
use std::path::PathBuf;

use super::Status;

/// What stops trust from being told or kept.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// `file` names commands to run and is not trusted as it is now; `command` trusts it.
    #[error(
        "{} names hooks or MCP servers, which run commands as you, and {}: nothing of it ran. Read it, then trust it as \
         it is now with `{command}`",
        file.display(),
        why(*status)
    )]
    Untrusted { file: PathBuf, status: Status, command: String },
    /// The data directory lies in the project, where the model could write its own trust.
    #[error(
        "the data directory {} is inside the project {}, where the model could write its own trust: give one outside \
         it (--data-dir, OPENAGENT_DATA_DIR or XDG_DATA_HOME) to use the project's hooks and MCP servers",
        data_dir.display(),
        cwd.display()
    )]
    StoreInProject { data_dir: PathBuf, cwd: PathBuf },
    /// The store's file is there but is no store: `problem` says why.
    #[error(
        "the trust store {} cannot be read ({problem}): fix or remove it, then trust the directories again with `openagent trust`",
        file.display()
    )]
    StoreUnreadable { file: PathBuf, problem: String },
    #[error("cannot write the trust store {}: {error}", file.display())]
    StoreUnwritable { file: PathBuf, error: io::Error },
}

fn why(status: Status) -> &'static str {
    match status {
        Status::Changed => "it changed since it was trusted",
        _ => "it is not trusted yet",
    }
}
