//! A command's output, read from its pipes: passed on in pieces of whole lines (a line longer than
//! [`MAX_PIECE`] in parts, cut between characters), as much as the pipe holds at once, so a command
//! that prints fast costs a delta per read rather than per line; and kept up to [`MAX_KEPT`] a pipe,
//! past which it is read and dropped, so one that writes without end (`yes`, `cat /dev/zero`)
//! cannot grow the agent. The tool's result says how much was dropped.

use std::io::{BufRead, BufReader, Read};
use std::sync::mpsc;
use std::thread;

use futures::channel::mpsc::UnboundedSender;

use super::Event;

/// The most one piece carries when no newline comes sooner.
const MAX_PIECE: usize = 64 * 1024;

/// The most of a pipe's output that is kept: as much as `read_file` reads of a file.
pub(super) const MAX_KEPT: usize = 16 * 1024 * 1024;

/// Sends a pipe's output in pieces until it closes or nobody collects it any more, then says so on
/// `closed`.
pub(super) fn forward(
    pipe: impl Read + Send + 'static,
    tx: UnboundedSender<Event>,
    wrap: fn(String) -> Event,
    closed: mpsc::Sender<()>,
) {
    thread::spawn(move || {
        let mut reader = BufReader::with_capacity(MAX_PIECE, pipe);
        let mut pending = Vec::new();
        let (mut kept, mut dropped) = (0, 0);
        let send = |bytes: &[u8]| tx.unbounded_send(wrap(String::from_utf8_lossy(bytes).into_owned())).is_ok();
        loop {
            let read = match reader.fill_buf() {
                Ok([]) | Err(_) => break,
                Ok(read) => read,
            };
            let length = read.len();
            let room = MAX_KEPT - kept;
            pending.extend_from_slice(&read[..length.min(room)]);
            dropped += length.saturating_sub(room);
            kept += length.min(room);
            reader.consume(length);
            let cut = if pending.len() >= MAX_PIECE || kept == MAX_KEPT {
                whole_characters(&pending)
            } else {
                memchr::memrchr(b'\n', &pending).map_or(0, |newline| newline + 1)
            };
            if cut > 0 && !send(&pending[..cut]) {
                return;
            }
            pending.drain(..cut);
        }
        if !pending.is_empty() && !send(&pending) {
            return;
        }
        if dropped > 0 {
            let note = format!("\n[{dropped} more bytes of output were dropped: the first {MAX_KEPT} bytes are kept]\n");
            if !send(note.as_bytes()) {
                return;
            }
        }
        let _ = closed.send(());
    });
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
