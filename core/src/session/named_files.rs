//! The files a task names, read before the first request, for profiles that ask for it (the
//! general profile). A small model told to fix `calc.py` tends to edit it blind, from a guess at
//! its text, and fail; shown the file first, it edits what is there.
//!
//! The reads are ordinary `read_file` calls the session makes in the model's place, in an
//! assistant turn of their own that the turn loop runs as it runs the model's: they pass the
//! approval policy and the hooks like any call, hosts see their `tool_call_start` and
//! `tool_call_end`, and the model reads the results as it reads its own. Only small files of the
//! working directory the session has not read yet; anything else the model can still read itself.

use serde_json::{Map, Value};

use super::{Session, Turn};
use crate::llm::{ContentPart, Message, Role, ToolCall, Usage};

/// A local model's context is small: a few files, each small. (Three: the calls' ids are a, b, c.)
const MAX_FILES: usize = 3;
const MAX_BYTES: u64 = 8 * 1024;
/// How many words that look like file names are looked up at most.
const MAX_LOOKUPS: usize = 12;

impl Session {
    /// The `read_file` calls for the files `task` names: small files of the working directory
    /// that the session has not read yet.
    pub(super) async fn named_files(&self, task: &str) -> Vec<ToolCall> {
        let env = &*self.inner.env;
        let working_dir = env.working_directory();
        let mut names: Vec<&str> = Vec::new();
        for name in task.split_whitespace().filter_map(file_name).take(MAX_LOOKUPS) {
            if names.len() == MAX_FILES {
                break;
            }
            if names.contains(&name) || self.inner.files_seen.has(&working_dir, name) {
                continue;
            }
            if env.stat(name).await.is_ok_and(|info| !info.is_dir && info.size <= MAX_BYTES) {
                names.push(name);
            }
        }
        // Ids unique in the conversation, as some APIs require: the turn's place in the history.
        let turn = self.inner.state.borrow().history.len().to_string();
        let mut calls = Vec::with_capacity(names.len());
        for (n, name) in ["a", "b", "c"].into_iter().zip(names) {
            // One insert, not `collect`: building a map from an iterator sorts it, and that sort
            // would be compiled into the browser bundle for this alone.
            let mut arguments = Map::new();
            arguments.insert("file_path".into(), Value::from(name));
            calls.push(ToolCall::new(["named_file_", &turn, n].concat(), "read_file", Value::Object(arguments)));
        }
        calls
    }

    /// The assistant turn that makes `calls`, for the turn loop to run them.
    pub(super) fn named_reads_turn(&self, calls: Vec<ToolCall>) -> Vec<ToolCall> {
        let parts = calls.iter().cloned().map(|tool_call| ContentPart::ToolCall { tool_call }).collect();
        let message = Message::new(Role::Assistant, parts);
        self.push_turn(Turn::Assistant { message, usage: Usage::default(), response_id: None, timestamp: self.now() });
        calls
    }
}

/// `word` as a relative file name, when it looks like one (`calc.py`, `src/app.js`), without the
/// quotes, brackets and sentence punctuation around it. Not a version (`1.4.2`), a URL, an
/// absolute path or one that leaves the working directory: what the model is shown unasked stays
/// within the project.
fn file_name(word: &str) -> Option<&str> {
    let in_name = |b: &u8| b.is_ascii_alphanumeric() || b"._-/".contains(b);
    let bytes = word.as_bytes();
    let start = bytes.iter().position(in_name)?;
    let end = bytes.iter().rposition(|b| in_name(b) && *b != b'.')? + 1;
    let name = word.get(start..end)?;
    let plausible = name.bytes().all(|b| in_name(&b))
        && name.bytes().any(|b| b == b'.' || b == b'/')
        && name.bytes().any(|b| b.is_ascii_alphabetic())
        && !name.starts_with('/')
        && !name.split('/').any(|part| part == "..");
    plausible.then_some(name)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::file_name;

    #[test]
    fn file_names_are_taken_from_prose_and_nothing_else_is() {
        let task = "Fix calc.py, then (src/app.js) and `config.json`. Run: python3 tests/test_x.py? See README.md.";
        let names: Vec<&str> = task.split_whitespace().filter_map(file_name).collect();
        assert_eq!(names, ["calc.py", "src/app.js", "config.json", "tests/test_x.py", "README.md"]);
        for word in
            ["1.4.2", "3.0", "/etc/passwd", "../secret.txt", "a/../../b.txt", "...", "word", "https://x.org/a.py", "C:/a.py"]
        {
            assert_eq!(file_name(word), None, "{word}");
        }
    }
}
