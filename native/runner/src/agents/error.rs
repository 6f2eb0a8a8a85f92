//! Why an agent config was refused: the file, and each problem with its field, its line when
//! known, and what to change.

use std::path::{Path, PathBuf};

use serde::Serialize;

/// One thing wrong with a config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// Where in the file: `limits.max_turns`, `tools[2]`; empty for the file as a whole.
    pub field: String,
    /// 1-based, when known.
    pub line: Option<usize>,
    /// What is wrong and what to do about it.
    pub message: String,
}

impl Problem {
    pub fn new(field: impl Into<String>, line: Option<usize>, message: impl Into<String>) -> Self {
        Self { field: field.into(), line, message: message.into() }
    }
}

/// A config that cannot be used, with every problem found in it: one line per problem.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.lines(None).join("\n"))]
pub struct AgentError {
    pub file: PathBuf,
    pub problems: Vec<Problem>,
}

impl AgentError {
    /// An error about the file as a whole (missing, unreadable).
    pub fn file(file: &Path, message: impl Into<String>) -> Self {
        Self { file: file.to_owned(), problems: vec![Problem::new("", None, message)] }
    }

    /// One line per problem, `FILE:LINE: FIELD: MESSAGE`, the file shown relative to `base`
    /// when it lies under it.
    pub fn lines(&self, base: Option<&Path>) -> Vec<String> {
        let file = base.and_then(|base| self.file.strip_prefix(base).ok()).unwrap_or(&self.file);
        self.problems
            .iter()
            .map(|problem| {
                let mut line = file.display().to_string();
                if let Some(number) = problem.line {
                    line.push_str(&format!(":{number}"));
                }
                if !problem.field.is_empty() {
                    line.push_str(&format!(": {}", problem.field));
                }
                format!("{line}: {}", problem.message)
            })
            .collect()
    }
}
