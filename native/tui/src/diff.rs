//! Each file edit shown as a coloured unified diff. The files a call is about to change are read
//! by a hook before it runs and again after, so the diff is what the call did to the disk, for
//! `edit_file`, `write_file` and `apply_patch` alike. [`DiffHooks`] wraps the session's own
//! hooks (the configured commands), which run first and may rewrite the call.

use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use async_trait::async_trait;
use crossterm::style::Color;
use openagent_core::hooks::{HookEvent, HookInput, HookOutcome, Hooks};
use serde_json::Value;
use similar::{ChangeTag, TextDiff};

use super::text::{dim, fg, Line};

/// Files larger than this are not diffed: the line says how they changed in size.
const MAX_FILE: u64 = 1 << 20;
/// Diff lines shown per file; the rest are counted.
const MAX_LINES: usize = 80;

/// What a file held before a call and after it (`None`: absent, or not text).
#[derive(Debug, Clone, PartialEq)]
pub struct FileChange {
    pub path: String,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// The changes of finished calls, by call id, until the screen shows them.
#[derive(Clone, Default)]
pub struct Changes(Rc<RefCell<Calls>>);

#[derive(Default)]
struct Calls {
    /// Before each running call: its files and what they held.
    before: HashMap<String, Vec<(String, Option<String>)>>,
    done: HashMap<String, Vec<FileChange>>,
}

impl Changes {
    /// What the call changed, once it ended; a call that never ran (denied) leaves nothing.
    pub fn take(&self, call_id: &str) -> Vec<FileChange> {
        let mut calls = self.0.borrow_mut();
        calls.before.remove(call_id);
        calls.done.remove(call_id).unwrap_or_default()
    }
}

/// The session's hooks, and a look at the files each editing call touches.
pub struct DiffHooks {
    pub inner: Option<Rc<dyn Hooks>>,
    pub cwd: PathBuf,
    pub changes: Changes,
}

impl DiffHooks {
    pub fn new(inner: Option<Rc<dyn Hooks>>, cwd: PathBuf, changes: Changes) -> Self {
        Self { inner, cwd, changes }
    }
}

#[async_trait(?Send)]
impl Hooks for DiffHooks {
    async fn run(&self, input: &HookInput) -> HookOutcome {
        let outcome = match &self.inner {
            Some(inner) => inner.run(input).await,
            None => HookOutcome::default(),
        };
        match &input.event {
            HookEvent::PreToolUse { call_id, tool_name, tool_input } if outcome.block.is_none() => {
                let arguments = outcome.tool_input.as_ref().unwrap_or(tool_input);
                let paths = edited_paths(tool_name, arguments);
                if !paths.is_empty() {
                    let read = paths.into_iter().map(|path| {
                        let content = read_text(&self.cwd.join(&path));
                        (path, content)
                    });
                    self.changes.0.borrow_mut().before.insert(call_id.clone(), read.collect());
                }
            }
            HookEvent::PostToolUse { call_id, .. } => {
                let files = self.changes.0.borrow_mut().before.remove(call_id);
                if let Some(files) = files {
                    let changes = files
                        .into_iter()
                        .map(|(path, before)| FileChange { after: read_text(&self.cwd.join(&path)), path, before })
                        .filter(|change| change.before != change.after)
                        .collect();
                    self.changes.0.borrow_mut().done.insert(call_id.clone(), changes);
                }
            }
            _ => {}
        }
        outcome
    }
}

/// The files a call of `tool` would write: an edit's or a write's path, a patch's files (both
/// names of a move).
pub fn edited_paths(tool: &str, arguments: &Value) -> Vec<String> {
    match tool {
        "edit_file" | "write_file" => {
            ["file_path", "path"].iter().find_map(|key| arguments.get(key)?.as_str()).map(str::to_owned).into_iter().collect()
        }
        "apply_patch" => {
            let patch = arguments.get("patch").or_else(|| arguments.get("input")).and_then(Value::as_str).unwrap_or("");
            const HEADERS: [&str; 4] = ["*** Add File: ", "*** Delete File: ", "*** Update File: ", "*** Move to: "];
            let mut paths: Vec<String> = Vec::new();
            for line in patch.lines() {
                let named = HEADERS.iter().find_map(|header| line.strip_prefix(header));
                if let Some(path) = named.map(str::trim).filter(|path| !path.is_empty()) {
                    if !paths.iter().any(|p| p == path) {
                        paths.push(path.to_owned());
                    }
                }
            }
            paths
        }
        _ => Vec::new(),
    }
}

/// The file's text; `None` when it is absent, a directory, too large or not UTF-8.
fn read_text(path: &Path) -> Option<String> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_file() || meta.len() > MAX_FILE {
        return None;
    }
    String::from_utf8(std::fs::read(path).ok()?).ok()
}

/// The change as lines: a header with the counts, then the hunks with three lines of context,
/// each line numbered in the file it belongs to.
pub fn render(change: &FileChange, columns: usize) -> Vec<Line> {
    let before = change.before.as_deref().unwrap_or("");
    let after = change.after.as_deref().unwrap_or("");
    let diff = TextDiff::from_lines(before, after);
    let (mut added, mut removed) = (0, 0);
    for op in diff.ops() {
        for change in diff.iter_changes(op) {
            match change.tag() {
                ChangeTag::Insert => added += 1,
                ChangeTag::Delete => removed += 1,
                ChangeTag::Equal => {}
            }
        }
    }
    let verb = match (&change.before, &change.after) {
        (None, Some(_)) => "created",
        (Some(_), None) => "deleted",
        _ => "edited",
    };
    let mut header = Line::styled(format!("  {verb} {} ", change.path), fg(Color::White));
    header.push(format!("+{added}"), fg(Color::Green));
    header.push(" ", dim());
    header.push(format!("-{removed}"), fg(Color::Red));
    let mut lines = vec![header];
    let mut shown = 0;
    let mut hidden = 0;
    let number_width = before.lines().count().max(after.lines().count()).max(1).to_string().len();
    for (index, group) in diff.grouped_ops(3).iter().enumerate() {
        if index > 0 {
            lines.push(Line::styled(format!("    {:>number_width$}   ⋮", ""), dim()));
        }
        for op in group {
            for change in diff.iter_changes(op) {
                if shown >= MAX_LINES {
                    hidden += 1;
                    continue;
                }
                shown += 1;
                let (sign, style, number) = match change.tag() {
                    ChangeTag::Insert => ("+", fg(Color::Green), change.new_index()),
                    ChangeTag::Delete => ("-", fg(Color::Red), change.old_index()),
                    ChangeTag::Equal => (" ", dim(), change.new_index()),
                };
                let number = number.map_or(String::new(), |n| (n + 1).to_string());
                let mut line = Line::styled(format!("    {number:>number_width$} "), dim());
                line.push(format!("{sign} "), style);
                line.push(change.value().trim_end_matches(['\n', '\r']).replace('\t', "    "), style);
                lines.push(line.truncate(columns));
            }
        }
    }
    if hidden > 0 {
        lines.push(Line::styled(format!("    … {hidden} more diff line{}", if hidden == 1 { "" } else { "s" }), dim()));
    }
    lines
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn change(before: Option<&str>, after: Option<&str>) -> FileChange {
        FileChange { path: "src/a.rs".into(), before: before.map(str::to_owned), after: after.map(str::to_owned) }
    }

    #[test]
    fn an_edit_shows_its_hunk_with_context_and_numbers() {
        let before: String = (1..=20).map(|n| format!("line {n}\n")).collect();
        let after = before.replace("line 10\n", "line ten\n");
        let lines: Vec<String> = render(&change(Some(&before), Some(&after)), 80).iter().map(Line::text).collect();
        assert_eq!(lines[0], "  edited src/a.rs +1 -1");
        assert_eq!(lines[1], "     7   line 7");
        assert!(lines.contains(&"    10 - line 10".to_owned()), "{lines:#?}");
        assert!(lines.contains(&"    10 + line ten".to_owned()));
        assert_eq!(lines.last().unwrap(), "    13   line 13");
    }

    #[test]
    fn created_and_long_diffs_are_counted_and_cut() {
        let after: String = (1..=200).map(|n| format!("{n}\n")).collect();
        let lines = render(&change(None, Some(&after)), 80);
        assert_eq!(lines[0].text(), "  created src/a.rs +200 -0");
        assert_eq!(lines.last().unwrap().text(), "    … 120 more diff lines");
    }

    #[test]
    fn the_paths_of_edits_writes_and_patches_are_found() {
        assert_eq!(edited_paths("edit_file", &json!({"file_path": "a.txt"})), ["a.txt"]);
        assert_eq!(edited_paths("read_file", &json!({"file_path": "a.txt"})), Vec::<String>::new());
        let patch =
            "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n*** Add File: c.py\n+z\n*** End Patch";
        assert_eq!(edited_paths("apply_patch", &json!({ "patch": patch })), ["a.py", "b.py", "c.py"]);
    }

    #[test]
    fn the_hooks_see_what_a_call_did_to_the_disk_and_pass_the_inner_outcome_on() {
        let dir = std::env::temp_dir().join(format!("openagent-diff-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("a.txt"), "one\ntwo\n").unwrap();
        let changes = Changes::default();
        let hooks = DiffHooks::new(None, dir.clone(), changes.clone());
        let input = |event| HookInput { session_id: "s".into(), cwd: dir.display().to_string(), event };
        let arguments = json!({"file_path": "a.txt", "old_string": "two", "new_string": "three"});
        let pre = HookEvent::PreToolUse { call_id: "c1".into(), tool_name: "edit_file".into(), tool_input: arguments.clone() };
        assert_eq!(futures::executor::block_on(hooks.run(&input(pre))), HookOutcome::default());
        std::fs::write(dir.join("a.txt"), "one\nthree\n").unwrap();
        let post = HookEvent::PostToolUse {
            call_id: "c1".into(),
            tool_name: "edit_file".into(),
            tool_input: arguments,
            tool_output: String::new(),
            is_error: false,
        };
        futures::executor::block_on(hooks.run(&input(post)));
        assert_eq!(changes.take("c1"), [change(Some("one\ntwo\n"), Some("one\nthree\n")).with_path("a.txt")]);
        assert!(changes.take("c1").is_empty());
        std::fs::remove_dir_all(dir).unwrap();
    }

    impl FileChange {
        fn with_path(mut self, path: &str) -> Self {
            self.path = path.into();
            self
        }
    }
}
