//! The prompt's input: multi-line text with a cursor, earlier inputs on ↑/↓ (kept across
//! sessions in the data directory), pasted text taken whole, and Tab completion of `/commands`
//! and `@files`.

use std::path::{Path, PathBuf};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::commands;
use super::history::History;
use super::screen::Offered;
use openagent_runner::mentions::mention;

/// Completions listed under the prompt; the rest are counted.
const OFFERED_MAX: usize = 50;

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
    history: History,
    /// Where ↑/↓ is in `history`; `None`: at the text being written, kept in `draft`.
    browsing: Option<usize>,
    draft: String,
    /// Completions offered by the last Tab, shown under the prompt.
    pub offered: Offered,
}

impl Editor {
    /// An editor whose history is read from and appended to `file`.
    pub fn with_history(file: PathBuf) -> Self {
        Self { history: History::open(file), ..Self::default() }
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
        self.offered = Offered::default();
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
            self.offered = Offered::default();
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
        let len = self.history.entries().len();
        let next = match (self.browsing, back) {
            (None, true) => len.checked_sub(1),
            (Some(at), true) => Some(at.saturating_sub(1)),
            (Some(at), false) if at + 1 < len => Some(at + 1),
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
            Some(at) => self.history.entries()[at].clone(),
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
        self.history.add(&text);
        Action::Submit(text)
    }

    /// Tab: completes the word before the cursor, a `/command` at the start or an `@path`.
    fn complete(&mut self, cwd: &Path) {
        let start = self.word_start();
        let word = &self.text[start..self.cursor];
        if start == 0 && word.starts_with('/') {
            let choices: Vec<String> = commands::complete(word).iter().map(|c| format!("/{}", c.name)).collect();
            let common = common_prefix(&choices).to_owned();
            let single = choices.len() == 1;
            self.replace_word(start, &common, single);
            if !single {
                self.offered = Offered { choices, more: 0 };
            }
            return;
        }
        let Some((start, partial)) = self.mention_before_cursor() else { return };
        let paths = files(cwd, &partial);
        let common = common_prefix(&paths);
        if paths.len() == 1 {
            let done = !common.ends_with('/');
            self.replace_word(start, &mention(common, done), done);
            return;
        }
        if common.len() > partial.len() {
            let common = mention(common, false);
            self.replace_word(start, &common, false);
        }
        if paths.len() > 1 {
            let more = paths.len().saturating_sub(OFFERED_MAX);
            let choices = paths.iter().take(OFFERED_MAX).map(|path| mention(path, true)).collect();
            self.offered = Offered { choices, more };
        }
    }

    /// The text from `start` to the cursor becomes `with`, and a space after it when `done`.
    fn replace_word(&mut self, start: usize, with: &str, done: bool) {
        if with.len() <= self.cursor - start && !done {
            return;
        }
        self.text.replace_range(start..self.cursor, with);
        self.cursor = start + with.len();
        if done {
            self.insert(" ");
        }
    }

    /// The `@` mention the cursor is at the end of: where it starts, and the path typed so far,
    /// bare (`@src/ma`) or in quotes not yet closed (`@"my fi`).
    fn mention_before_cursor(&self) -> Option<(usize, String)> {
        let before = &self.text[..self.cursor];
        if let Some(at) = before.rfind("@\"") {
            let open = !before[at + 2..].contains('"');
            let starts_word = before[..at].chars().next_back().is_none_or(|c| c.is_whitespace() || c == '(');
            if open && starts_word {
                return Some((at, before[at + 2..].to_owned()));
            }
        }
        let start = self.word_start();
        before[start..].strip_prefix('@').map(|partial| (start, partial.to_owned()))
    }
}

/// Entries of `partial`'s directory (relative to `cwd`) whose names start with its last part,
/// sorted; directories end with `/`, hidden ones only when asked for.
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
pub(super) mod tests {
    use super::*;

    pub(crate) fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    pub(crate) fn typed(editor: &mut Editor, text: &str) {
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
        assert_eq!(editor.offered, Offered { choices: vec!["@src/main.rs".into(), "@src/mod.rs".into()], more: 0 });
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// In a directory of hundreds of files the common start is that of all of them, and the
    /// list says how many it leaves out; a path with a space is completed in quotes.
    #[test]
    fn completion_counts_every_match_and_quotes_spaces() {
        let dir = std::env::temp_dir().join(format!("openagent-complete-many-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::create_dir_all(dir.join("my shots")).unwrap();
        std::fs::write(dir.join("my shots/a b.png"), "").unwrap();
        for n in 1..=300 {
            std::fs::write(dir.join(format!("file_{n}.txt")), "").unwrap();
        }
        let mut editor = Editor::default();
        typed(&mut editor, "@");
        editor.key(key(KeyCode::Tab), &dir);
        assert_eq!(editor.text(), "@", "nothing typed is common to all");
        assert_eq!((editor.offered.choices.len(), editor.offered.more), (50, 252));
        typed(&mut editor, "f");
        editor.key(key(KeyCode::Tab), &dir);
        assert_eq!(editor.text(), "@file_");
        assert_eq!(editor.offered.more, 250);
        editor.clear();
        typed(&mut editor, "see @my");
        editor.key(key(KeyCode::Tab), &dir);
        assert_eq!(editor.text(), "see @\"my shots/");
        editor.key(key(KeyCode::Tab), &dir);
        assert_eq!(editor.text(), "see @\"my shots/a b.png\" ");
        let input = openagent_runner::mentions::with_mentioned_images(editor.text(), &dir).unwrap();
        assert_eq!(input.images, [openagent_core::session::ImageInput::Path("my shots/a b.png".into())]);
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
