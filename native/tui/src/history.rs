//! The input history: what was sent at the prompt, recalled with ↑/↓ in this session and the
//! next ones, kept in `<data dir>/history` as one JSON string a line.
//!
//! It must never cost the prompt its start: the file is read on a thread while the screen opens,
//! only its end is read, and what is written is bounded (inputs of a few kilobytes, the last
//! thousand), so it stays at a few megabytes.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// Inputs kept in the history file.
const HISTORY_KEPT: usize = 1000;
/// An input longer than this (a large paste) is recalled in its session but not written down:
/// so the file stays at a few megabytes at most.
const HISTORY_ENTRY_MAX: usize = 4 * 1024;
/// The history file is trimmed to its last [`HISTORY_KEPT`] inputs once it holds this many.
const HISTORY_TRIM_AT: usize = HISTORY_KEPT + HISTORY_KEPT / 10;
/// What is read of the history file: its end, where the last inputs are. A larger file (an
/// earlier version wrote up to 32 MB) is read from there on, and trimmed at the next input.
const HISTORY_READ_MAX: u64 = (HISTORY_KEPT * HISTORY_ENTRY_MAX) as u64;
#[derive(Default)]
pub struct History {
    entries: Vec<String>,
    /// The history file being read, on a thread: the prompt is up before it is.
    loading: Option<JoinHandle<Option<Loaded>>>,
    /// Inputs in the history file, as far as this session knows; `None`: more than it read.
    written: Option<usize>,
    file: Option<PathBuf>,
}

/// What was read of the history file.
#[derive(Default)]
struct Loaded {
    entries: Vec<String>,
    /// The whole file was read: `entries` are all its inputs.
    whole: bool,
}

impl History {
    /// The history of `file`, read on a thread: ↑ or Enter waits for it if they come first.
    pub fn open(file: PathBuf) -> Self {
        let reading = file.clone();
        let loading = std::thread::spawn(move || read_history(&reading));
        Self { loading: Some(loading), file: Some(file), ..Self::default() }
    }

    /// The earlier inputs, once read.
    pub fn entries(&mut self) -> &[String] {
        if let Some(loading) = self.loading.take() {
            match loading.join().ok().flatten() {
                Some(loaded) => {
                    self.written = loaded.whole.then_some(loaded.entries.len());
                    let mine = std::mem::replace(&mut self.entries, loaded.entries);
                    self.entries.extend(mine);
                }
                // A file that cannot be read is not written over either.
                None => self.file = None,
            }
        }
        &self.entries
    }

    /// `entry` was sent: it is recalled from now on, and written down unless it is the last
    /// one again or too large.
    pub fn add(&mut self, entry: &str) {
        if self.entries().last().is_some_and(|last| last == entry) {
            return;
        }
        self.entries.push(entry.to_owned());
        self.save(entry);
    }

    /// Appends `entry` to the history file, and keeps the file to its last inputs.
    fn save(&mut self, entry: &str) {
        let Some(file) = &self.file else { return };
        if entry.len() > HISTORY_ENTRY_MAX || std::fs::metadata(file).is_ok_and(|meta| !meta.is_file()) {
            return;
        }
        let written = match self.written {
            Some(count) if count < HISTORY_TRIM_AT => {
                use std::io::Write;
                let line = serde_json::to_string(entry).expect("a string serialises");
                self.written = Some(count + 1);
                std::fs::OpenOptions::new().create(true).append(true).open(file).and_then(|mut f| writeln!(f, "{line}"))
            }
            // Too many, or more than was read: the file is written again with the last ones.
            _ => {
                if self.entries.len() > HISTORY_KEPT {
                    self.entries.drain(..self.entries.len() - HISTORY_KEPT);
                }
                let kept: Vec<String> = self
                    .entries
                    .iter()
                    .filter(|e| e.len() <= HISTORY_ENTRY_MAX)
                    .map(|e| serde_json::to_string(e).expect("a string serialises") + "\n")
                    .collect();
                self.written = Some(kept.len());
                std::fs::write(file, kept.concat())
            }
        };
        // The history is a convenience: a file that cannot be written costs only the recall.
        if written.is_err() {
            self.file = None;
        }
    }
}

/// The end of the history file: its last inputs, oldest first; `None` when it is there but
/// cannot be read. Only a regular file is read (a FIFO there would block for good), from
/// [`HISTORY_READ_MAX`] before its end at most; lines that are not a JSON string are skipped.
fn read_history(file: &Path) -> Option<Loaded> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut opened = match std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(file) {
        Ok(opened) => opened,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(Loaded { whole: true, ..Loaded::default() }),
        Err(_) => return None,
    };
    let meta = opened.metadata().ok().filter(std::fs::Metadata::is_file)?;
    let from = meta.len().saturating_sub(HISTORY_READ_MAX);
    let mut bytes = Vec::new();
    opened.seek(SeekFrom::Start(from)).and_then(|_| opened.take(HISTORY_READ_MAX).read_to_end(&mut bytes)).ok()?;
    // Read from inside an input: the rest of its line is not one.
    let lines = match from {
        0 => &bytes[..],
        _ => bytes.iter().position(|&b| b == b'\n').map_or(&[][..], |at| &bytes[at + 1..]),
    };
    let text = String::from_utf8_lossy(lines);
    let mut entries: Vec<String> = text.lines().filter_map(|line| serde_json::from_str::<String>(line).ok()).collect();
    let whole = from == 0 && entries.len() <= HISTORY_KEPT;
    if entries.len() > HISTORY_KEPT {
        entries.drain(..entries.len() - HISTORY_KEPT);
    }
    Some(Loaded { entries, whole })
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crossterm::event::KeyCode;

    use super::*;
    use crate::editor::tests::{key, typed};
    use crate::editor::{Action, Editor};

    #[test]
    fn history_is_browsed_kept_in_a_file_and_the_draft_comes_back() {
        let file = std::env::temp_dir().join(format!("openagent-history-{}", std::process::id()));
        let _ = std::fs::remove_file(&file);
        let mut editor = Editor::with_history(file.clone());
        for entry in ["one", "two\nlines"] {
            typed(&mut editor, entry);
            editor.key(key(KeyCode::Enter), Path::new("."));
        }
        let mut editor = Editor::with_history(file.clone());
        typed(&mut editor, "draft");
        editor.key(key(KeyCode::Up), Path::new("."));
        assert_eq!(editor.text(), "two\nlines");
        editor.key(key(KeyCode::Up), Path::new("."));
        editor.key(key(KeyCode::Up), Path::new("."));
        assert_eq!(editor.text(), "one");
        editor.key(key(KeyCode::Down), Path::new("."));
        editor.key(key(KeyCode::Down), Path::new("."));
        editor.key(key(KeyCode::Down), Path::new("."));
        assert_eq!(editor.text(), "draft");
        std::fs::remove_file(file).unwrap();
    }

    #[test]
    fn a_fifo_garbage_or_a_huge_paste_in_the_history_costs_nothing() {
        let dir = std::env::temp_dir().join(format!("openagent-history-hostile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fifo = dir.join("fifo");
        let path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads the path, a valid C string.
        assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
        let mut editor = Editor::with_history(fifo.clone());
        typed(&mut editor, "kept in memory");
        assert_eq!(editor.key(key(KeyCode::Enter), Path::new(".")), Action::Submit("kept in memory".into()));
        editor.key(key(KeyCode::Up), Path::new("."));
        assert_eq!(editor.text(), "kept in memory");

        let file = dir.join("history");
        let garbage = b"\"one\"\n\xff\xfe not json\n{\"a\":1}\n\"two\"\n";
        std::fs::write(&file, garbage).unwrap();
        let mut editor = Editor::with_history(file.clone());
        editor.paste(&"x".repeat(HISTORY_ENTRY_MAX + 1));
        editor.key(key(KeyCode::Enter), Path::new("."));
        assert_eq!(std::fs::read(&file).unwrap(), garbage, "the huge paste was not written");
        editor.key(key(KeyCode::Up), Path::new("."));
        editor.key(key(KeyCode::Up), Path::new("."));
        assert_eq!(editor.text(), "two");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// The history file stays small, and a large one (earlier versions wrote up to 32 MB) is read
    /// only from its end and trimmed at the next input.
    #[test]
    fn the_history_is_bounded_and_a_large_file_is_read_from_its_end() {
        let file = std::env::temp_dir().join(format!("openagent-history-large-{}", std::process::id()));
        let entry = |n: usize| serde_json::to_string(&format!("{n}:{}", "x".repeat(16 * 1024))).unwrap() + "\n";
        let large: String = (0..2000).map(entry).collect();
        std::fs::write(&file, &large).unwrap();
        let mut history = History::open(file.clone());
        assert!(history.entries().last().is_some_and(|last| last.starts_with("1999:")), "the last input is read");
        let read = history.entries().len();
        assert!(read * 16 * 1024 <= HISTORY_READ_MAX as usize, "only the end was read: {read} inputs");
        history.add("short");
        let written = std::fs::read_to_string(&file).unwrap();
        assert_eq!(written, "\"short\"\n", "the inputs too large to keep are dropped from the file");
        for n in 0..HISTORY_TRIM_AT + 5 {
            history.add(&format!("input {n}"));
        }
        let lines = std::fs::read_to_string(&file).unwrap().lines().count();
        assert!((HISTORY_KEPT..=HISTORY_TRIM_AT).contains(&lines), "{lines} inputs in the file");
        std::fs::remove_file(file).unwrap();
    }
}
