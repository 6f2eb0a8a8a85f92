//! Reading a config file (`agent.yml`, `models.json`, `hooks.json`, `mcp.json`): a project's
//! files are not trusted to be files. Only a regular file is opened (a FIFO would block `run` for
//! good, `/dev/zero` would grow it until the machine ran out of memory), and only up to a size
//! that no real config comes near.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use openagent_host::regular_file::{self, ReadError};
use sha2::{Digest, Sha256};

/// The most bytes a config file may hold: a catalog of 100,000 models takes under half of it.
pub const MAX_CONFIG_BYTES: u64 = 16 * 1024 * 1024;

/// The SHA-256 of each config file's bytes as this process last read them, by the path it was
/// read at: what the trust check hashes, so that a file swapped between its loading and the
/// check cannot be loaded as one text and trusted as another.
static LOADED: Mutex<BTreeMap<PathBuf, String>> = Mutex::new(BTreeMap::new());

/// The hash of what [`read`] last read at `file`, if it read it.
pub fn loaded_hash(file: &Path) -> Option<String> {
    LOADED.lock().unwrap_or_else(PoisonError::into_inner).get(file).cloned()
}

/// What is wrong with a config file that is there, and what to do, without its name (the caller
/// leads with it: `ConfigError::Unreadable`).
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("cannot read it: {0}")]
    Io(io::Error),
    /// `kind` is what it is instead: `a directory`, `a FIFO`.
    #[error(
        "is {kind}, not a regular file: a config is read only from a regular file (this could block or never end); \
         put the file itself in its place"
    )]
    NotRegular { kind: &'static str },
    #[error("is larger than {} MiB, the most a config file may hold: check that it is the file you meant", MAX_CONFIG_BYTES >> 20)]
    TooLarge,
    #[error("is not UTF-8 text: save it as UTF-8")]
    NotUtf8,
}

/// The text of the config file `file`, `None` when there is none.
pub fn read(file: &Path) -> Result<Option<String>, FileError> {
    let bytes = match regular_file::read_capped(file, MAX_CONFIG_BYTES) {
        Ok(bytes) => bytes,
        Err(ReadError::Io(e)) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(ReadError::Io(e)) => return Err(FileError::Io(e)),
        Err(ReadError::NotRegular(kind)) => return Err(FileError::NotRegular { kind: regular_file::kind(kind) }),
        Err(ReadError::TooLarge(_)) => return Err(FileError::TooLarge),
    };
    let hash = sha256(&bytes);
    LOADED.lock().unwrap_or_else(PoisonError::into_inner).insert(file.to_path_buf(), hash);
    String::from_utf8(bytes).map(Some).map_err(|_| FileError::NotUtf8)
}

/// The hex SHA-256 of `content`.
pub fn sha256(content: &[u8]) -> String {
    Sha256::digest(content).iter().fold(String::with_capacity(64), |mut hex, byte| {
        hex.push(char::from(b"0123456789abcdef"[usize::from(byte >> 4)]));
        hex.push(char::from(b"0123456789abcdef"[usize::from(byte & 15)]));
        hex
    })
}
