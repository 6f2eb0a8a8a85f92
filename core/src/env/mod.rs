//! The `ExecutionEnvironment` seam (spec 4.1): where tools read, write, search and run commands.
//!
//! Every tool goes through this trait, so the same tools work over the in-memory filesystem of a
//! browser tab (`MemoryEnvironment`, in the `openagent-memenv` crate), the local machine (the
//! native host) or anything a host implements (a container, a remote machine, a WASI directory).
//! Paths may be absolute or relative to [`ExecutionEnvironment::working_directory`].

use std::fmt::{self, Write as _};
use std::rc::Rc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::llm::SharedText;
use crate::runtime::EpochMillis;
use crate::sandbox::SandboxPolicy;
use crate::sorted_map::SortedMap;

mod lines;
mod paths;

pub use lines::line_start;
pub use paths::lexical_path;

/// What went wrong in an environment operation. Messages are shown to the model, so they say
/// what to do next where that is clear.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EnvError {
    #[error("file not found: {0}")]
    NotFound(String),
    #[error("{0} is a directory, not a file")]
    IsADirectory(String),
    #[error("{0} is not a directory")]
    NotADirectory(String),
    #[error("{0} is a binary file; it cannot be shown as text")]
    BinaryFile(String),
    #[error("permission denied: {0}")]
    PermissionDenied(String),
    #[error("invalid path {path}: {reason}")]
    InvalidPath { path: String, reason: String },
    #[error("invalid pattern {pattern}: {reason}")]
    InvalidPattern { pattern: String, reason: String },
    #[error("invalid snapshot: {0}")]
    InvalidSnapshot(String),
    #[error("not supported in this environment: {0}")]
    Unsupported(String),
    #[error("{0}")]
    Io(String),
}

/// Facts about one path.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileInfo {
    pub is_dir: bool,
    /// Size in bytes (0 for directories).
    pub size: u64,
    /// Last modification, when the environment knows it.
    pub modified_ms: Option<EpochMillis>,
}

/// One entry of [`ExecutionEnvironment::list_directory`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DirEntry {
    /// Path relative to the listed directory, `/`-separated (nested entries when depth > 1).
    pub name: String,
    pub is_dir: bool,
    /// Size in bytes for files.
    pub size: Option<u64>,
}

/// How to run one command.
#[derive(Clone, Default)]
pub struct ExecOptions {
    /// Kill the command after this long. Always set by the shell tool.
    pub timeout_ms: u64,
    /// Run here instead of the working directory.
    pub working_dir: Option<String>,
    /// Extra variables for the command.
    pub env_vars: Option<SortedMap<String, String>>,
    /// Called with output as it arrives, for streaming tools (`TOOL_CALL_OUTPUT_DELTA`).
    pub on_output: Option<Rc<dyn Fn(&str)>>,
    /// What the command may do once it runs: the session's policy for the shell tool. `None` is a
    /// command of the host's own (a hook, the git facts of the system prompt), run with the
    /// user's rights.
    pub sandbox: Option<SandboxPolicy>,
}

/// What a command did (spec 4.1).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ExecResult {
    pub stdout: String,
    pub stderr: String,
    pub exit_code: i32,
    pub timed_out: bool,
    pub duration_ms: u64,
    /// What the sandbox refused the command, when the environment saw that it did (a write
    /// outside the writable roots, a connection with the network off): the command failed
    /// because of its confinement, and may be run again outside it if the user agrees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox_denied: Option<String>,
}

/// `word` as a POSIX shell reads it back: as it is when it holds nothing the shell treats
/// specially, else in single quotes (a quote inside written `'\''`).
fn shell_word(word: &str) -> String {
    let plain = |b: u8| b.is_ascii_alphanumeric() || b"-_./=:@%+,".contains(&b);
    match !word.is_empty() && word.bytes().all(plain) {
        true => word.to_owned(),
        false => format!("'{}'", word.replace('\'', "'\\''")),
    }
}

/// Options of [`ExecutionEnvironment::grep`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrepOptions {
    /// Only search files whose path matches this glob (e.g. `*.rs`, `src/**/*.ts`).
    pub glob_filter: Option<String>,
    pub case_insensitive: bool,
    /// Stop after this many matching lines.
    pub max_results: usize,
}

impl Default for GrepOptions {
    fn default() -> Self {
        Self { glob_filter: None, case_insensitive: false, max_results: 100 }
    }
}

/// One match as [`ExecutionEnvironment::grep`] shows it: `path:line:text`, the line number
/// 1-based and the text without its line ending. Shared by every environment so that they all
/// answer in the same format.
pub struct GrepMatch<'a> {
    pub path: &'a str,
    pub line_number: u64,
    pub line: &'a str,
}

impl fmt::Display for GrepMatch<'_> {
    /// Piece by piece rather than through a format string: a search may show a million matches.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.path)?;
        f.write_char(':')?;
        fmt::Display::fmt(&self.line_number, f)?;
        f.write_char(':')?;
        f.write_str(self.line)
    }
}

/// Appends the matching lines of one file as [`GrepMatch`]es, stopping at
/// `max_results` lines in all. Returns false once the limit is reached, so that the caller stops
/// searching.
pub fn push_grep_matches(
    found: &mut Vec<String>,
    shown_path: &str,
    text: &str,
    is_match: impl Fn(&str) -> bool,
    max_results: usize,
) -> bool {
    for (number, line) in text.lines().enumerate() {
        if found.len() >= max_results {
            return false;
        }
        if is_match(line) {
            found.push(GrepMatch { path: shown_path, line_number: number as u64 + 1, line }.to_string());
        }
    }
    true
}

/// Where tools run (spec 4.1). Futures are not `Send`: browser hosts are single-threaded.
#[async_trait(?Send)]
pub trait ExecutionEnvironment {
    /// Reads a text file. `offset` is the 1-based first line, `limit` the most lines to return;
    /// with neither, the whole file. Lines keep their endings. Non-UTF-8 content is
    /// [`EnvError::BinaryFile`].
    async fn read_file(&self, path: &str, offset: Option<usize>, limit: Option<usize>) -> Result<String, EnvError>;

    /// A text file's whole text, shared rather than copied, where the environment holds it in
    /// memory; `None` where reading is I/O, and then `read_file` is the way. Errors as
    /// `read_file`'s.
    fn shared_text(&self, _path: &str) -> Option<Result<SharedText, EnvError>> {
        None
    }

    /// Reads a file's raw bytes (images, binary files).
    async fn read_bytes(&self, path: &str) -> Result<Vec<u8>, EnvError>;

    /// Writes a file whole, creating it and its parent directories as needed.
    async fn write_file(&self, path: &str, content: &str) -> Result<(), EnvError>;

    /// Removes a file (not a directory).
    async fn remove_file(&self, path: &str) -> Result<(), EnvError>;

    /// Facts about a path; [`EnvError::NotFound`] if there is nothing there.
    async fn stat(&self, path: &str) -> Result<FileInfo, EnvError>;

    async fn file_exists(&self, path: &str) -> bool {
        self.stat(path).await.is_ok()
    }

    /// Entries below `path`, `depth` levels deep (1 = direct children), sorted by name.
    async fn list_directory(&self, path: &str, depth: usize) -> Result<Vec<DirEntry>, EnvError>;

    /// Runs a shell command. A command that fails still returns `Ok` with its exit code; `Err`
    /// means it could not be run at all. Dropping the future cancels the command.
    async fn exec_command(&self, command: &str, options: &ExecOptions) -> Result<ExecResult, EnvError>;

    /// Runs `program` with `args` as they are, without a shell: for a host's own commands (the git
    /// facts of the system prompt), which need no shell syntax and should not pay for a shell's
    /// start. Supervised as [`exec_command`](Self::exec_command)'s commands are. The default runs
    /// it through `exec_command`, each word quoted for a POSIX shell.
    async fn exec_program(&self, program: &str, args: &[&str], options: &ExecOptions) -> Result<ExecResult, EnvError> {
        let words: Vec<String> = std::iter::once(program).chain(args.iter().copied()).map(shell_word).collect();
        self.exec_command(&words.join(" "), options).await
    }

    /// Searches file contents under `path` (a file or a directory) for a regular expression.
    /// Returns `path:line:text` lines, at most `options.max_results`; empty when nothing matched.
    async fn grep(&self, pattern: &str, path: &str, options: &GrepOptions) -> Result<String, EnvError>;

    /// Files under `path` whose path relative to it matches `pattern`, newest first.
    async fn glob(&self, pattern: &str, path: &str) -> Result<Vec<String>, EnvError>;

    async fn initialize(&self) -> Result<(), EnvError> {
        Ok(())
    }

    async fn cleanup(&self) -> Result<(), EnvError> {
        Ok(())
    }

    /// The same files with `working_dir` (an existing directory, absolute or relative) as the
    /// working directory: how a subagent is scoped to a subdirectory (spec 7.2). Environments
    /// that cannot make such a view say so.
    fn scoped(&self, working_dir: &str) -> Result<Rc<dyn ExecutionEnvironment>, EnvError> {
        Err(EnvError::Unsupported(format!("a view of this environment at {working_dir}")))
    }

    /// The absolute directory relative paths are resolved against.
    fn working_directory(&self) -> String;

    /// The file `path` names, as an absolute path: `.` and `..` folded, then every symlink on it
    /// resolved, a path that does not exist yet through its longest existing ancestor. The
    /// approval policy matches its rules against this, so that `docs/../secrets/key` and a link
    /// into `secrets/` are seen as what they reach. An error when it cannot be resolved (a dangling
    /// link, a loop). The default, a lexical fold, is right for environments without symlinks.
    async fn canonical_path(&self, path: &str) -> Result<String, EnvError> {
        Ok(lexical_path(&self.working_directory(), path))
    }

    /// Whether a command of this name can run here: `Some(false)` when the environment knows it
    /// cannot (an in-memory shell without `git`), so that a caller need not run it to find out;
    /// `None` when only running it would tell (a real shell's `PATH`).
    fn has_command(&self, _name: &str) -> Option<bool> {
        None
    }

    /// `linux`, `darwin`, `windows`, `wasm`, ...
    fn platform(&self) -> String;

    fn os_version(&self) -> String;
}
