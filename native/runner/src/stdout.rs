//! stdout, where a write that fails is an error of the command: its own exit code
//! ([`STDOUT_FAILED`]) and one line on stderr, never a panic (`println!` panics on a full disk)
//! and never a silent exit 0, since `openagent run x > answer.txt` on a full disk must not read as
//! success.

use std::io::{self, Write};

/// The exit code of a command whose stdout could not be written (README, "Exit codes").
pub const STDOUT_FAILED: u8 = 5;

/// stdout, keeping the first write that failed; nothing is written after it, so what did reach
/// the reader is a prefix of the output, never a part of it with a gap.
#[derive(Default)]
pub struct Stdout {
    failed: Option<io::Error>,
}

impl Stdout {
    /// Writes `text` now (flushed: it is streamed text, or a line a program waits for).
    pub fn write(&mut self, text: &str) {
        if self.failed.is_none() {
            let mut out = io::stdout().lock();
            self.failed = out.write_all(text.as_bytes()).and_then(|()| out.flush()).err();
        }
    }

    pub fn failed(&self) -> Option<&io::Error> {
        self.failed.as_ref()
    }

    /// The exit code of a command that printed what it was asked for: `code`, or
    /// [`STDOUT_FAILED`] with a line on stderr. A reader that went away (`| head -1`) took
    /// what it wanted: no error.
    pub fn end(&self, code: u8) -> u8 {
        match &self.failed {
            Some(error) if error.kind() != io::ErrorKind::BrokenPipe => {
                eprintln!("error: could not write to stdout: {error}");
                STDOUT_FAILED
            }
            _ => code,
        }
    }
}
