//! While the screen is up, what the process writes to stderr (the session store's warnings, an
//! MCP server's own messages) would land over the live rows and garble them. So stderr goes into
//! a pipe instead, and each line written to it comes back as an [`Outside::Said`], which the screen
//! shows as a note. Closing the screen puts stderr back (a panic does too, before its message).

use std::fs::File;
use std::io::Read;
use std::os::fd::FromRawFd;
use std::sync::atomic::{AtomicI32, Ordering};

use futures::channel::mpsc::UnboundedSender;

use super::Outside;

/// The longest line passed on; the rest of a longer one is dropped.
const MAX_LINE: usize = 4096;

/// The real stderr while the pipe stands in for it; -1 otherwise.
static SAVED: AtomicI32 = AtomicI32::new(-1);

/// Points stderr at a pipe whose lines go to `tx`; leaves it as it is if that cannot be done.
pub fn capture(tx: UnboundedSender<Outside>) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two new descriptors into `fds`; fcntl and dup2 act on descriptors this
    // function owns or on fd 2, which it saves first and `release` puts back.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return;
        }
        let saved = libc::fcntl(libc::STDERR_FILENO, libc::F_DUPFD_CLOEXEC, 3);
        if saved < 0 || libc::dup2(fds[1], libc::STDERR_FILENO) < 0 {
            libc::close(fds[0]);
            libc::close(fds[1]);
            if saved >= 0 {
                libc::close(saved);
            }
            return;
        }
        libc::close(fds[1]);
        SAVED.store(saved, Ordering::SeqCst);
    }
    // SAFETY: the read end is this function's, and only the thread below uses it.
    let mut pipe = unsafe { File::from_raw_fd(fds[0]) };
    std::thread::spawn(move || {
        let mut line = Vec::new();
        let mut chunk = [0; 4096];
        while let Ok(n @ 1..) = pipe.read(&mut chunk) {
            for &byte in &chunk[..n] {
                if byte != b'\n' {
                    if line.len() < MAX_LINE {
                        line.push(byte);
                    }
                    continue;
                }
                let text = String::from_utf8_lossy(&std::mem::take(&mut line)).into_owned();
                if !text.trim().is_empty() && tx.unbounded_send(Outside::Said(text)).is_err() {
                    return;
                }
            }
        }
    });
}

/// Puts the real stderr back.
pub fn release() {
    let saved = SAVED.swap(-1, Ordering::SeqCst);
    if saved >= 0 {
        // SAFETY: `saved` is the descriptor `capture` kept; nothing else closes it.
        unsafe {
            libc::dup2(saved, libc::STDERR_FILENO);
            libc::close(saved);
        }
    }
}
