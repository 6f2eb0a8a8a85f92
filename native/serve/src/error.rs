//! Why `openagent serve` did not start: each says what to change.

use std::io;
use std::path::PathBuf;

use openagent_store::StoreError;

/// What [`crate::Server::start`] refused or could not do.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error("the token is empty: give one with --token or OPENAGENT_SERVE_TOKEN, or neither for a generated one")]
    EmptyToken,
    /// The session store does not open.
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot use --cwd {}: not a directory", .0.display())]
    NotADirectory(PathBuf),
    #[error("--max-connections {0} is too few: at least 2, one for event streams and one kept for every other request")]
    TooFewConnections(usize),
    #[error("cannot listen on 127.0.0.1:{port}: {error} (try --port 0)")]
    Listen { port: u16, error: io::Error },
    /// The bound socket has no address to give.
    #[error("{0}")]
    Address(io::Error),
    #[error("cannot start the server's thread: {0}")]
    Thread(io::Error),
}
