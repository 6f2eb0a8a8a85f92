//! The file operations that guard the machine: reads refuse what is not a regular file and stop at
//! a byte cap, and writes stay inside the working directory and land whole or not at all.
//!
//! Reads may leave the working directory (the agent reads the user's docs and toolchains), but a
//! FIFO would block the thread that runs the session (so no signal could stop the run), a device
//! such as `/dev/zero` never ends, and a huge file would be loaded whole. Writes and deletes may not
//! leave it: the path is resolved, every symlink on it included, before anything is changed.

use std::fs::{self, File, FileType, Metadata, OpenOptions};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use openagent_core::env::EnvError;

use super::{io_error, show};
use crate::regular_file::{self, ReadError};

/// The most bytes one read returns (a whole file, or the lines asked for). Far more than a model
/// can take in, and small enough that a read never grows the process by much.
pub(super) const MAX_READ_BYTES: u64 = 16 * 1024 * 1024;

pub(super) fn not_regular(shown: &str, kind: FileType) -> EnvError {
    EnvError::InvalidPath {
        path: shown.to_owned(),
        reason: format!(
            "it is {}; only regular files are read, since reading this could block or never end. \
             Use the shell with a bound (`head -c 1000 {shown}`) if you need its data",
            regular_file::kind(kind)
        ),
    }
}

fn too_big(shown: &str, what: &str) -> EnvError {
    EnvError::Io(format!(
        "{shown}: {what} more than the {} MiB one read may return; read it in parts with offset and limit, \
         or search it with grep",
        MAX_READ_BYTES / (1024 * 1024)
    ))
}

/// The environment's error for a file that was not read.
fn read_error(error: ReadError, shown: &str) -> EnvError {
    match error {
        ReadError::Io(err) => io_error(err, shown),
        ReadError::NotRegular(kind) if kind.is_dir() => EnvError::IsADirectory(shown.to_owned()),
        ReadError::NotRegular(kind) => not_regular(shown, kind),
        ReadError::TooLarge(Some(len)) => too_big(shown, &format!("it has {len} bytes,")),
        ReadError::TooLarge(None) => too_big(shown, "it has"),
    }
}

/// Opens `path` for reading if it is a regular file (`regular_file::open`). `/proc`-style files
/// are regular files that claim size 0: they are read, bounded by the cap like any other.
fn open_regular(path: &Path) -> Result<(File, Metadata), EnvError> {
    regular_file::open(path).map_err(|error| read_error(error, &show(path)))
}

/// The whole file, refused past [`MAX_READ_BYTES`].
pub(super) fn read_all(path: &Path) -> Result<Vec<u8>, EnvError> {
    regular_file::read_capped(path, MAX_READ_BYTES).map_err(|error| read_error(error, &show(path)))
}

/// Lines `offset..offset + limit` (1-based, endings kept), reading no further than they end: the
/// lines before are skipped without being kept, and the lines returned may not pass the cap.
pub(super) fn read_lines(path: &Path, offset: usize, limit: usize) -> Result<Vec<u8>, EnvError> {
    let shown = show(path);
    let (file, _) = open_regular(path)?;
    let mut reader = BufReader::with_capacity(64 * 1024, file);
    let failed = |err: io::Error| io_error(err, &shown);
    for _ in 1..offset {
        if !skip_line(&mut reader).map_err(failed)? {
            return Ok(Vec::new());
        }
    }
    let mut out = Vec::new();
    for _ in 0..limit {
        let room = MAX_READ_BYTES + 1 - out.len() as u64;
        if (&mut reader).take(room).read_until(b'\n', &mut out).map_err(failed)? == 0 {
            break;
        }
        if out.len() as u64 > MAX_READ_BYTES {
            return Err(too_big(&shown, &format!("the {limit} lines from line {offset} have")));
        }
        if out.last() != Some(&b'\n') {
            break;
        }
    }
    Ok(out)
}

/// Consumes one line without keeping it; false at the end of the file.
fn skip_line(reader: &mut impl BufRead) -> io::Result<bool> {
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(false);
        }
        match memchr::memchr(b'\n', buffer) {
            Some(at) => {
                reader.consume(at + 1);
                return Ok(true);
            }
            None => {
                let len = buffer.len();
                reader.consume(len);
            }
        }
    }
}

/// `abs` (lexically normal) with every symlink on it resolved, or an error if that is outside
/// `root` (the working directory, resolved). With `follow_last` false the last name is kept as
/// it is, so that deleting a symlink deletes the link, not what it points to.
pub(super) fn confine(root: &Path, abs: &Path, follow_last: bool) -> Result<PathBuf, EnvError> {
    let real = real_path(abs, follow_last, root)?;
    if real.starts_with(root) {
        return Ok(real);
    }
    let via = if real == abs { String::new() } else { format!(" (it resolves to {})", show(&real)) };
    Err(EnvError::InvalidPath {
        path: show(abs),
        reason: format!(
            "it is outside the working directory {}{via}; files are only written, moved and deleted inside it",
            show(root)
        ),
    })
}

/// `abs` (lexically normal) with every symlink on it resolved (the last one too when
/// `follow_last`); a path that does not exist yet is resolved through its longest existing
/// ancestor. An error for a dangling symlink on the way, whose target cannot be told, or a loop;
/// `root` is named in the error as where to write instead.
pub(super) fn real_path(abs: &Path, follow_last: bool, root: &Path) -> Result<PathBuf, EnvError> {
    let shown = show(abs);
    let (start, last) = match (follow_last, abs.parent(), abs.file_name()) {
        (false, Some(parent), Some(name)) => (parent, Some(name)),
        _ => (abs, None),
    };
    // The deepest part that exists is resolved by the OS; what follows does not exist yet, so no
    // symlink can hide in it, except a dangling one, whose target is refused unseen.
    let mut existing = start;
    let mut missing = Vec::new();
    let mut real = loop {
        match fs::canonicalize(existing) {
            Ok(real) => break real,
            Err(_) if fs::symlink_metadata(existing).is_ok_and(|meta| meta.file_type().is_symlink()) => {
                return Err(EnvError::InvalidPath {
                    path: shown,
                    reason: format!(
                        "{} is a symlink to a missing target, or one of a loop; use a path inside the working directory {} instead",
                        show(existing),
                        show(root)
                    ),
                });
            }
            Err(_) => match (existing.parent(), existing.file_name()) {
                (Some(parent), Some(name)) => {
                    missing.push(name);
                    existing = parent;
                }
                _ => return Err(EnvError::InvalidPath { path: shown, reason: "it cannot be resolved".into() }),
            },
        }
    };
    real.extend(missing.iter().rev());
    real.extend(last);
    Ok(real)
}

/// Writes `content` to `path` whole or not at all: into a new file beside it, renamed over it once
/// complete, so a full disk or a crash never leaves half a file. An existing file's permissions are
/// kept.
pub(super) fn write_atomically(path: &Path, content: &[u8]) -> io::Result<()> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "no file name"));
    };
    let staged = dir.join(format!(
        ".{}.openagent-{}-{}.tmp",
        name.to_string_lossy(),
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let result = (|| {
        let mut file = OpenOptions::new().write(true).create_new(true).open(&staged)?;
        if let Ok(meta) = fs::metadata(path) {
            file.set_permissions(meta.permissions())?;
        }
        file.write_all(content)?;
        fs::rename(&staged, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&staged);
    }
    result
}
