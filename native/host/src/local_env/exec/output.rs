//! A command's output, read from its pipes: passed on in pieces of whole lines (a line longer than
//! [`MAX_PIECE`] in parts, cut between characters), as much as the pipe holds at once, so a command
//! that prints fast costs a delta per read rather than per line; and kept up to [`MAX_KEPT`] a pipe,
//! past which it is read and dropped, so one that writes without end (`yes`, `cat /dev/zero`)
//! cannot grow the agent. The tool's result says how much was dropped.

use std::fs::File;
use std::io::Read;
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use futures::channel::mpsc::UnboundedSender;

use super::Event;

/// The most one piece carries when no newline comes sooner.
const MAX_PIECE: usize = 64 * 1024;

/// The most of a pipe's output that is kept: as much as `read_file` reads of a file.
pub(super) const MAX_KEPT: usize = 16 * 1024 * 1024;

/// One of a command's pipes, read by the worker as it becomes readable ([`super::wake`]), until
/// it closes or nobody collects its output any more.
pub(super) struct Pipe {
    /// None once closed.
    file: Option<File>,
    wrap: fn(String) -> Event,
    buffer: Vec<u8>,
    /// Read but not sent yet: the end of a line still to come.
    pending: Vec<u8>,
    kept: usize,
    dropped: usize,
}

impl Pipe {
    pub(super) fn new(file: File, wrap: fn(String) -> Event) -> Self {
        Self { file: Some(file), wrap, buffer: vec![0; MAX_PIECE], pending: Vec::new(), kept: 0, dropped: 0 }
    }

    pub(super) fn file(&self) -> Option<&File> {
        self.file.as_ref()
    }

    /// Reads once what the pipe holds (it is readable, or closed), and passes on the whole lines
    /// it has; at the pipe's end, the rest, and what was dropped.
    pub(super) fn read(&mut self, tx: &UnboundedSender<Event>) {
        let Some(file) = &mut self.file else { return };
        let length = match file.read(&mut self.buffer) {
            Ok(0) => return self.close(tx),
            Ok(length) => length,
            Err(error) if error.kind() == std::io::ErrorKind::Interrupted => return,
            Err(_) => return self.close(tx),
        };
        let room = MAX_KEPT - self.kept;
        self.pending.extend_from_slice(&self.buffer[..length.min(room)]);
        self.dropped += length.saturating_sub(room);
        self.kept += length.min(room);
        let cut = if self.pending.len() >= MAX_PIECE || self.kept == MAX_KEPT {
            whole_characters(&self.pending)
        } else {
            memchr::memrchr(b'\n', &self.pending).map_or(0, |newline| newline + 1)
        };
        if cut > 0 && !self.send(tx, cut) {
            // Nobody collects it: the pipe closes, and whoever writes to it gets EPIPE.
            self.file = None;
            return;
        }
        self.pending.drain(..cut);
    }

    /// The pipe's end: what is left, and what was dropped, are sent.
    fn close(&mut self, tx: &UnboundedSender<Event>) {
        self.file = None;
        if !self.pending.is_empty() && !self.send(tx, self.pending.len()) {
            return;
        }
        if self.dropped > 0 {
            let note = format!("\n[{} more bytes of output were dropped: the first {MAX_KEPT} bytes are kept]\n", self.dropped);
            let _ = tx.unbounded_send((self.wrap)(note));
        }
    }

    /// Sends the first `length` pending bytes; false when nobody collects them.
    fn send(&self, tx: &UnboundedSender<Event>, length: usize) -> bool {
        tx.unbounded_send((self.wrap)(String::from_utf8_lossy(&self.pending[..length]).into_owned())).is_ok()
    }
}

/// Both of a command's output pipes and where their pieces go: read by the worker itself between
/// its looks at the command, so a command costs no threads for its output.
pub(super) struct Output {
    pipes: [Pipe; 2],
    tx: UnboundedSender<Event>,
}

impl Output {
    pub(super) fn new(stdout: File, stderr: File, tx: UnboundedSender<Event>) -> Self {
        Self { pipes: [Pipe::new(stdout, Event::Stdout), Pipe::new(stderr, Event::Stderr)], tx }
    }

    /// The pipes still open, to poll for reading, by their index.
    pub(super) fn open(&self) -> impl Iterator<Item = (usize, libc::c_int)> + '_ {
        self.pipes.iter().enumerate().filter_map(|(index, pipe)| Some((index, pipe.file()?.as_raw_fd())))
    }

    /// Reads the pipe `index`, which poll found readable (or closed).
    pub(super) fn read(&mut self, index: usize) {
        self.pipes[index].read(&self.tx);
    }

    /// Reads the pipes as they fill, for `pause` or until they are both closed, whichever is first.
    pub(super) fn until_closed(&mut self, pause: Duration) {
        let until = Instant::now() + pause;
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() || !self.poll(left) {
                return;
            }
        }
    }

    /// Reads the pipes as they fill for `pause`, and sleeps it out once they are closed.
    pub(super) fn pause(&mut self, pause: Duration) {
        let until = Instant::now() + pause;
        self.until_closed(pause);
        std::thread::sleep(until.saturating_duration_since(Instant::now()));
    }

    /// Waits up to `timeout` for a pipe to be readable and reads it; false once none is open.
    fn poll(&mut self, timeout: Duration) -> bool {
        let mut fds = [libc::pollfd { fd: -1, events: libc::POLLIN, revents: 0 }; 2];
        let mut count = 0;
        for (index, fd) in self.open() {
            fds[index].fd = fd;
            count += 1;
        }
        if count == 0 {
            return false;
        }
        // A negative fd is skipped by poll.
        let ms = super::wake::poll_ms(Some(timeout));
        // SAFETY: `fds` is a live array of two pollfds. EINTR is a return with nothing ready.
        unsafe { libc::poll(fds.as_mut_ptr(), 2, ms) };
        for (index, fd) in fds.iter().enumerate() {
            if fd.fd >= 0 && fd.revents != 0 {
                self.read(index);
            }
        }
        true
    }
}

/// How much of `bytes` ends on a character boundary: all of it unless it ends inside a character
/// (invalid bytes elsewhere are replaced when the piece is converted, as ever).
fn whole_characters(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Err(error) if error.error_len().is_none() => error.valid_up_to(),
        _ => bytes.len(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_piece_ends_between_characters() {
        let text = "aé€".as_bytes();
        assert_eq!(whole_characters(text), text.len());
        assert_eq!(whole_characters(&text[..text.len() - 1]), 3, "inside the euro sign: up to it");
        assert_eq!(whole_characters(b"a\xffb"), 3, "invalid bytes are not waited for");
    }
}
