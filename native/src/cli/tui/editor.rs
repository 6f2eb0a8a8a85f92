//! The prompt's input: multi-line text with a cursor, earlier inputs on ↑/↓ (kept across
//! sessions in the data directory), pasted text taken whole, and Tab completion of `/commands`
//! and `@files`.

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::commands;

/// Inputs kept in the history file.
const HISTORY_KEPT: usize = 1000;
/// An input longer than this (a large paste) is recalled in its session but not written down.
const HISTORY_ENTRY_MAX: usize = 16 * 1024;
/// A history file larger than this was not written by us: it is left unread.
const HISTORY_FILE_MAX: u64 = 2 * (HISTORY_KEPT * HISTORY_ENTRY_MAX * 2) as u64;

/// What a key did.
#[derive(Debug, PartialEq, Eq)]
pub enum Action {
    /// The text changed or the cursor moved: redraw.
    Edited,
    /// Enter: the text is sent (and the editor emptied).
    Submit(String),
    /// Ctrl-C.
    Interrupt,
    /// Ctrl-D on an empty input.
    Quit,
    /// Nothing to do.
    None,
}

#[derive(Default)]
pub struct Editor {
    text: String,
    /// Byte offset of the cursor in `text`.
    cursor: usize,
    history: Vec<String>,
    /// Where ↑/↓ is in `history`; `None`: at the text being written, kept in `draft`.
    browsing: Option<usize>,
    draft: String,
    file: Option<PathBuf>,
    /// Completions offered by the last Tab, shown under the prompt.
    pub offered: Vec<String>,
}

impl Editor {
    /// An editor whose history is read from and appended to `file`.
    /// Only a regular file is read (a FIFO there would block the start for good); lines that are
    /// not a JSON string are skipped.
    pub fn with_history(file: PathBuf) -> Self {
        let readable = std::fs::metadata(&file).is_ok_and(|meta| meta.is_file() && meta.len() <= HISTORY_FILE_MAX);
        let history = match readable {
            true => std::fs::read(&file)
                .map(|bytes| {
                    let text = String::from_utf8_lossy(&bytes);
                    text.lines().filter_map(|line| serde_json::from_str::<String>(line).ok()).collect()
                })
                .unwrap_or_default(),
            false => Vec::new(),
        };
        Self { history, file: Some(file), ..Self::default() }
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    pub fn clear(&mut self) {
        self.text.clear();
        self.cursor = 0;
        self.browsing = None;
        self.offered.clear();
    }

    /// Pasted text, inserted whole: its newlines are newlines, not Enter.
    pub fn paste(&mut self, text: &str) {
        let text = text.replace("\r\n", "\n").replace('\r', "\n");
        self.insert(&text);
    }

    pub fn key(&mut self, key: KeyEvent, cwd: &Path) -> Action {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        if key.code != KeyCode::Tab {
            self.offered.clear();
        }
        match key.code {
            KeyCode::Char('c') if ctrl => return Action::Interrupt,
            KeyCode::Char('d') if ctrl => {
                if self.text.is_empty() {
                    return Action::Quit;
                }
                self.delete_forward();
            }
            KeyCode::Enter if alt || key.modifiers.contains(KeyModifiers::SHIFT) => self.insert("\n"),
            KeyCode::Char('j') if ctrl => self.insert("\n"),
            KeyCode::Enter => return self.submit(),
            KeyCode::Char('a') if ctrl => self.cursor = self.line_start(),
            KeyCode::Char('e') if ctrl => self.cursor = self.line_end(),
            KeyCode::Char('u') if ctrl => {
                let start = self.line_start();
                self.text.replace_range(start..self.cursor, "");
                self.cursor = start;
            }
            KeyCode::Char('w') if ctrl => {
                let start = self.word_start();
                self.text.replace_range(start..self.cursor, "");
                self.cursor = start;
            }
            KeyCode::Char(c) if !ctrl => self.insert(c.encode_utf8(&mut [0; 4])),
            KeyCode::Backspace => {
                if let Some(c) = self.text[..self.cursor].chars().next_back() {
                    self.cursor -= c.len_utf8();
                    self.text.remove(self.cursor);
                }
            }
            KeyCode::Delete => self.delete_forward(),
            KeyCode::Left => self.cursor -= self.text[..self.cursor].chars().next_back().map_or(0, char::len_utf8),
            KeyCode::Right => self.cursor += self.text[self.cursor..].chars().next().map_or(0, char::len_utf8),
            KeyCode::Home => self.cursor = self.line_start(),
            KeyCode::End => self.cursor = self.line_end(),
            KeyCode::Up if self.line_start() == 0 => self.browse(true),
            KeyCode::Down if self.line_end() == self.text.len() => self.browse(false),
            KeyCode::Up | KeyCode::Down => self.move_line(key.code == KeyCode::Up),
            KeyCode::Tab => self.complete(cwd),
            _ => return Action::None,
        }
        Action::Edited
    }

    fn insert(&mut self, text: &str) {
        self.text.insert_str(self.cursor, text);
        self.cursor += text.len();
    }

    fn delete_forward(&mut self) {
        if self.cursor < self.text.len() {
            self.text.remove(self.cursor);
        }
    }

    fn line_start(&self) -> usize {
        self.text[..self.cursor].rfind('\n').map_or(0, |at| at + 1)
    }

    fn line_end(&self) -> usize {
        self.text[self.cursor..].find('\n').map_or(self.text.len(), |at| self.cursor + at)
    }

    fn word_start(&self) -> usize {
        let before = self.text[..self.cursor].trim_end_matches(' ');
        before.rfind([' ', '\n']).map_or(0, |at| at + 1)
    }

    /// ↑/↓ inside a multi-line text: the same column of the line above or below.
    fn move_line(&mut self, up: bool) {
        let start = self.line_start();
        let column = self.text[start..self.cursor].chars().count();
        let target = if up {
            let above_end = start - 1;
            self.text[..above_end].rfind('\n').map_or(0, |at| at + 1)
        } else {
            self.line_end() + 1
        };
        let line = self.text[target..].split('\n').next().unwrap_or("");
        self.cursor = target + line.chars().take(column).map(char::len_utf8).sum::<usize>();
    }

    fn browse(&mut self, back: bool) {
        let next = match (self.browsing, back) {
            (None, true) => self.history.len().checked_sub(1),
            (Some(at), true) => Some(at.saturating_sub(1)),
            (Some(at), false) if at + 1 < self.history.len() => Some(at + 1),
            (Some(_), false) => None,
            (None, false) => return,
        };
        if self.browsing.is_none() {
            if next.is_none() {
                return;
            }
            self.draft = std::mem::take(&mut self.text);
        }
        self.browsing = next;
        self.text = match next {
            Some(at) => self.history[at].clone(),
            None => std::mem::take(&mut self.draft),
        };
        self.cursor = self.text.len();
    }

    fn submit(&mut self) -> Action {
        let text = std::mem::take(&mut self.text);
        self.clear();
        if text.trim().is_empty() {
            return Action::Edited;
        }
        if self.history.last() != Some(&text) {
            self.history.push(text.clone());
            self.save(&text);
        }
        Action::Submit(text)
    }

    /// Appends `entry` to the history file, and keeps the file to its last inputs.
    fn save(&mut self, entry: &str) {
        let Some(file) = &self.file else { return };
        if entry.len() > HISTORY_ENTRY_MAX || std::fs::metadata(file).is_ok_and(|meta| !meta.is_file()) {
            return;
        }
        let line = serde_json::to_string(entry).expect("a string serialises");
        let written = if self.history.len() > HISTORY_KEPT * 2 {
            self.history.drain(..self.history.len() - HISTORY_KEPT);
            let all: String =
                self.history.iter().map(|e| serde_json::to_string(e).expect("a string serialises") + "\n").collect();
            std::fs::write(file, all)
        } else {
            use std::io::Write;
            std::fs::OpenOptions::new().create(true).append(true).open(file).and_then(|mut f| writeln!(f, "{line}"))
        };
        // The history is a convenience: a file that cannot be written costs only the recall.
        if written.is_err() {
            self.file = None;
        }
    }

    /// Tab: completes the word before the cursor, a `/command` at the start or an `@path`.
    fn complete(&mut self, cwd: &Path) {
        let start = self.word_start();
        let word = &self.text[start..self.cursor];
        let choices: Vec<String> = if start == 0 && word.starts_with('/') {
            commands::complete(word).iter().map(|c| format!("/{}", c.name)).collect()
        } else if let Some(partial) = word.strip_prefix('@') {
            files(cwd, partial).into_iter().map(|path| format!("@{path}")).collect()
        } else {
            return;
        };
        let common = common_prefix(&choices);
        if common.len() > word.len() {
            let common = common.to_owned();
            self.text.replace_range(start..self.cursor, &common);
            self.cursor = start + common.len();
            if choices.len() == 1 && !common.ends_with('/') {
                self.insert(" ");
            }
        }
        if choices.len() > 1 {
            self.offered = choices;
        }
    }
}

/// Entries of `partial`'s directory (relative to `cwd`) whose names start with its last part;
/// directories end with `/`, hidden ones only when asked for.
fn files(cwd: &Path, partial: &str) -> Vec<String> {
    let (dir, name) = partial.rsplit_once('/').map_or(("", partial), |(dir, name)| (dir, name));
    let Ok(entries) = std::fs::read_dir(cwd.join(if dir.is_empty() { "." } else { dir })) else { return Vec::new() };
    let mut found: Vec<String> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let file = entry.file_name().into_string().ok()?;
            let wanted = file.starts_with(name) && (name.starts_with('.') || !file.starts_with('.'));
            let slash = if entry.file_type().ok()?.is_dir() { "/" } else { "" };
            let prefix = if dir.is_empty() { String::new() } else { format!("{dir}/") };
            wanted.then(|| format!("{prefix}{file}{slash}"))
        })
        .collect();
    found.sort();
    found.truncate(50);
    found
}

fn common_prefix(choices: &[String]) -> &str {
    let Some(first) = choices.first() else { return "" };
    let mut end = first.len();
    for choice in &choices[1..] {
        end = first.bytes().zip(choice.bytes()).take(end).take_while(|(a, b)| a == b).count();
    }
    while !first.is_char_boundary(end) {
        end -= 1;
    }
    &first[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    fn typed(editor: &mut Editor, text: &str) {
        for c in text.chars() {
            editor.key(key(KeyCode::Char(c)), Path::new("."));
        }
    }

    #[test]
    fn lines_are_added_with_alt_enter_and_sent_with_enter() {
        let mut editor = Editor::default();
        typed(&mut editor, "first");
        editor.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::ALT), Path::new("."));
        typed(&mut editor, "second");
        editor.key(key(KeyCode::Up), Path::new("."));
        editor.key(key(KeyCode::End), Path::new("."));
        typed(&mut editor, "!");
        assert_eq!(editor.key(key(KeyCode::Enter), Path::new(".")), Action::Submit("first!\nsecond".into()));
        assert!(editor.is_empty());
    }

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

    #[test]
    fn tab_completes_commands_and_files_and_offers_the_choices() {
        let dir = std::env::temp_dir().join(format!("openagent-complete-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(dir.join("src/main.rs"), "").unwrap();
        std::fs::write(dir.join("src/mod.rs"), "").unwrap();
        let mut editor = Editor::default();
        typed(&mut editor, "/he");
        editor.key(key(KeyCode::Tab), &dir);
        assert_eq!(editor.text(), "/help ");
        editor.clear();
        typed(&mut editor, "look at @sr");
        editor.key(key(KeyCode::Tab), &dir);
        assert_eq!(editor.text(), "look at @src/");
        editor.key(key(KeyCode::Tab), &dir);
        assert_eq!(editor.text(), "look at @src/m");
        assert_eq!(editor.offered, ["@src/main.rs", "@src/mod.rs"]);
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_paste_keeps_its_newlines_and_ctrl_d_quits_only_when_empty() {
        let mut editor = Editor::default();
        editor.paste("a\r\nb\rc");
        assert_eq!(editor.text(), "a\nb\nc");
        assert_eq!(editor.key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL), Path::new(".")), Action::Edited);
        editor.clear();
        assert_eq!(editor.key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL), Path::new(".")), Action::Quit);
    }
}
