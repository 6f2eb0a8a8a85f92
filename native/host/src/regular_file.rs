//! Reading a file only when it is a regular one, and only up to a cap: what the file tools and the
//! config readers share. A FIFO would block `open` (and the thread with it) until a writer comes,
//! a device such as `/dev/zero` never ends, and a huge file would be loaded whole.

use std::fs::{self, File, FileType, Metadata, OpenOptions};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Why a file was not read.
#[derive(Debug)]
pub enum ReadError {
    Io(io::Error),
    /// It is something else than a regular file: [`kind`] names it.
    NotRegular(FileType),
    /// It holds more than the cap: its size when it says it (a `/proc` file says 0).
    TooLarge(Option<u64>),
}

impl From<io::Error> for ReadError {
    fn from(error: io::Error) -> Self {
        ReadError::Io(error)
    }
}

/// What kind of file `kind` is, in words for an error: "a FIFO (named pipe)".
pub fn kind(kind: FileType) -> &'static str {
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO (named pipe)"
    } else if kind.is_char_device() {
        "a character device"
    } else if kind.is_block_device() {
        "a block device"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_file() {
        "a regular file"
    } else {
        "not a regular file"
    }
}

/// Opens `path` for reading if it is a regular file. `stat` first, so that a FIFO or a device is
/// never opened; the open itself is non-blocking and checked again, in case the path was swapped
/// for one in between.
pub fn open(path: &Path) -> Result<(File, Metadata), ReadError> {
    let meta = fs::metadata(path)?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(meta.file_type()));
    }
    let file = OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY).open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(meta.file_type()));
    }
    Ok((file, meta))
}

/// The whole of the regular file `path`, refused past `cap` bytes: its size is checked before
/// reading, and the read stops past the cap for files whose size says nothing (`/proc`).
pub fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    let (file, meta) = open(path)?;
    if meta.len() > cap {
        return Err(ReadError::TooLarge(Some(meta.len())));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(cap + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge(None));
    }
    Ok(bytes)
}
