//! Why the sandbox could not be made ready: a guest module that is not there, not readable or not
//! valid, or a wasmtime that does not start. Each says what to do next.

use std::io;
use std::path::PathBuf;

/// How to build the guest, for error messages.
const BUILD_GUEST: &str = "cargo build -p openagent-sandbox-guest --release --target wasm32-wasip1";

/// What [`crate::Sandbox::load`], [`crate::Sandbox::from_bytes`] and finding the guest refused.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("cannot read the sandbox guest {}: {error}", path.display())]
    Unreadable { path: PathBuf, error: io::Error },
    /// The module at `path` does not compile.
    #[error("{}: not a valid guest module: {error}", path.display())]
    InvalidGuest { path: PathBuf, error: wasmtime::Error },
    /// Bytes given as a module do not compile.
    #[error("not a valid guest module: {0}")]
    InvalidModule(wasmtime::Error),
    #[error("cannot start wasmtime: {0}")]
    Engine(wasmtime::Error),
    /// The executable's path, beside which the guest is looked for, is unknown.
    #[error("cannot find the sandbox guest: {0}")]
    NoExecutable(io::Error),
    /// No guest at any of the places `looked` names.
    #[error(
        "the sandbox guest is not built (looked for {}); build it with `{BUILD_GUEST}`, or pass --guest FILE",
        looked_for(looked)
    )]
    NotBuilt { looked: Vec<PathBuf> },
}

fn looked_for(looked: &[PathBuf]) -> String {
    let looked: Vec<String> = looked.iter().map(|p| p.display().to_string()).collect();
    looked.join(", ")
}
