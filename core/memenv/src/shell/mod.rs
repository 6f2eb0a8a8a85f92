//! The built-in shell of [`MemoryEnvironment`]: `bash -c` in miniature, run in-process over the
//! in-memory files, so that an agent's habitual commands (`ls`, `cat`, `grep -rn`, `sed -n`,
//! pipes, redirections) work in a browser tab.
//!
//! Supported:
//! - simple commands joined by `;`, newlines, `&&`, `||` and `|` (and `|&`), `! pipeline`;
//!   exit statuses and `$?`; `set -e` and `set -o pipefail`;
//! - quoting (`'...'`, `"..."`, `$'...'`, backslashes), `$NAME`, `${NAME}`, `$?`, `~`,
//!   `NAME=value` (alone or before a command), `$(...)` and backquotes, field splitting of
//!   unquoted expansions, and `*`/`?` pathname expansion of unquoted words;
//! - redirections `<`, `>`, `>>`, `2>`, `2>>`, `2>&1`, `>&2`, `&>`, `&>>`, here-documents
//!   (`<<`, `<<-`, quoted delimiters) and here-strings (`<<<`); `/dev/null`, `/dev/stdout`,
//!   `/dev/stderr`;
//! - the builtins in [`builtins::NAMES`], with their common flags, and scripts: `sh -c`,
//!   `bash FILE`, or `./script.sh` (any path with a `/`) when its `#!` line is sh or bash;
//! - the host's commands ([`HostCommand`](crate::HostCommand)), run like builtins.
//!
//! Not supported: `if`/`for`/`while`/`case`, functions, subshells `( )`, `{ }` groups,
//! background jobs `&`, arithmetic `$(( ))`, `${NAME:-...}` and other parameter operators,
//! `[[ ]]`, and file descriptors other than 0, 1 and 2. These are errors (exit 2) that say so;
//! an unknown command exits 127 with the list of builtins. Brace expansion is not done
//! (`{a,b}` stays as written) and positional parameters (`$1`, `$@`) are empty.
//!
//! Each call starts afresh in the working directory (or `ExecOptions::working_dir`) with
//! `HOME` (the environment's working directory), `PWD`, `SHELL`, `USER` and the caller's
//! `env_vars`. Commands run one after another, so a pipeline hands its whole output to the next
//! stage. Only `sleep` (on the runtime's timer) and host commands wait; they honour the timeout,
//! which ends the command with `timed_out` and exit status 124, keeping the output so far.
//! Scripts may run scripts 64 deep.
//!
//! `ExecOptions::sandbox` confines what a command writes (`confine`): nothing in `read-only`,
//! only the working directory, `/tmp` and the policy's writable roots in `workspace-write`
//! (never their protected paths), as the native host's kernel sandbox does.

mod builtins;
mod confine;
mod escapes;
mod exec;
mod expand;
mod parse;

use std::rc::Rc;

pub use self::confine::Confinement;
use self::confine::Files;
use super::fs::resolve;
use super::{MemoryEnvironment, SCRATCH_DIRECTORY};
use openagent_core::env::{EnvError, ExecOptions, ExecResult};
use openagent_core::runtime::EpochMillis;
use openagent_core::sorted_map::SortedMap;

pub(crate) use builtins::is_builtin;

/// The exit status of a command stopped by the timeout, as `timeout(1)` reports it.
const TIMED_OUT: i32 = 124;

/// How deeply scripts may run scripts (`sh -c`, `$(...)`, `bash script.sh`): a script that runs
/// itself stops here instead of overflowing the stack.
const MAX_DEPTH: usize = 64;

/// Where a piece of output went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    Out,
    Err,
}

/// Output in the order it was written, so that `2>&1` interleaves as it would in a terminal.
#[derive(Default)]
struct Output {
    chunks: Vec<(Stream, Vec<u8>)>,
}

impl Output {
    fn out(&mut self, bytes: impl AsRef<[u8]>) {
        self.push(Stream::Out, bytes.as_ref());
    }

    fn err(&mut self, bytes: impl AsRef<[u8]>) {
        self.push(Stream::Err, bytes.as_ref());
    }

    fn push(&mut self, stream: Stream, bytes: &[u8]) {
        if !bytes.is_empty() {
            self.chunks.push((stream, bytes.to_vec()));
        }
    }

    /// Everything written to one stream.
    fn collect(&self, stream: Stream) -> Vec<u8> {
        let mut all = Vec::new();
        for (_, bytes) in self.chunks.iter().filter(|(s, _)| *s == stream) {
            all.extend_from_slice(bytes);
        }
        all
    }
}

/// The state of one `exec_command` call.
struct Shell {
    env: MemoryEnvironment,
    cwd: String,
    /// The variables, sorted by name as `env` and `set` list them.
    vars: SortedMap<String, String>,
    /// `$?`
    status: i32,
    /// Set by `exit`: the rest of the script is skipped.
    exit: Option<i32>,
    deadline: Option<EpochMillis>,
    timed_out: bool,
    errexit: bool,
    pipefail: bool,
    /// Counts command substitutions, so that `x=$(false)` can report the substitution's status.
    substitutions: u64,
    /// How many command lists are running inside one another.
    depth: usize,
    /// What the sandbox lets the command write; `None` when it is not confined. Shared with
    /// the host commands it runs, whose refusals it reports too.
    confinement: Option<Rc<Confinement>>,
}

impl Shell {
    /// The files, whose writes the sandbox checks.
    fn tree(&self) -> Files<'_> {
        Files::new(self.env.inner.tree.borrow_mut(), self.confinement.as_deref())
    }

    fn now(&self) -> EpochMillis {
        self.env.now()
    }

    fn resolve(&self, path: &str) -> Result<String, EnvError> {
        resolve(&self.cwd, path)
    }

    fn var(&self, name: &str) -> String {
        self.vars.get(name).cloned().unwrap_or_default()
    }

    /// True once nothing more may run: `exit` was called or the time is up.
    fn stopped(&self) -> bool {
        self.exit.is_some() || self.timed_out
    }

    /// Checks the deadline between commands (the clock may have moved while the host waited).
    fn past_deadline(&mut self) -> bool {
        if self.deadline.is_some_and(|deadline| self.now() >= deadline) {
            self.timed_out = true;
        }
        self.timed_out
    }

    /// Sleeps on the runtime's timer, but not past the deadline; false when the time ran out.
    async fn sleep(&mut self, ms: u64) -> bool {
        let runtime = self.env.runtime();
        if let Some(deadline) = self.deadline {
            let left = deadline.saturating_sub(self.now());
            if ms >= left {
                runtime.sleep(left).await;
                self.timed_out = true;
                return false;
            }
        }
        runtime.sleep(ms).await;
        true
    }
}

/// How a shell command names an environment error (`cat: x: No such file or directory`).
fn describe(err: &EnvError) -> String {
    match err {
        EnvError::NotFound(_) => "No such file or directory".into(),
        EnvError::IsADirectory(_) => "Is a directory".into(),
        EnvError::NotADirectory(_) => "Not a directory".into(),
        EnvError::InvalidPath { reason, .. } => reason.clone(),
        // The sandbox's refusals (`confine`) carry the words a shell prints for them.
        EnvError::PermissionDenied(error) => error.clone(),
        other => other.to_string(),
    }
}

/// Runs `command` in the built-in shell.
pub(super) async fn run(env: &MemoryEnvironment, command: &str, options: &ExecOptions) -> Result<ExecResult, EnvError> {
    let start = env.now();
    let cwd = match &options.working_dir {
        Some(dir) => env.resolve(dir)?,
        None => env.working_dir(),
    };
    if !env.inner.tree.borrow().get(&cwd)?.is_dir() {
        return Err(EnvError::NotADirectory(cwd));
    }
    let home = env.working_dir();
    let mut vars = SortedMap::new();
    let defaults = [("HOME", home.as_str()), ("PWD", cwd.as_str()), ("SHELL", "/bin/sh"), ("USER", "agent")];
    let given = options.env_vars.iter().flatten().map(|(name, value)| (name.as_str(), value.as_str()));
    for (name, value) in defaults.into_iter().chain(given) {
        vars.insert(name.to_owned(), value.to_owned());
    }
    let mut shell = Shell {
        env: env.clone(),
        cwd,
        vars,
        status: 0,
        exit: None,
        deadline: (options.timeout_ms > 0).then(|| start.saturating_add(options.timeout_ms)),
        timed_out: false,
        errexit: false,
        pipefail: false,
        substitutions: 0,
        depth: 0,
        confinement: Confinement::new(options.sandbox.as_ref(), &home, SCRATCH_DIRECTORY).map(Rc::new),
    };
    let mut output = Output::default();
    match parse::parse(command) {
        Ok(list) => shell.run_list(&list, &mut output, options.on_output.as_deref()).await,
        Err(message) => {
            output.err(format!("sh: syntax error: {message}\n"));
            shell.status = 2;
            if let Some(on_output) = &options.on_output {
                on_output(&String::from_utf8_lossy(&output.collect(Stream::Err)));
            }
        }
    }
    let exit_code = if shell.timed_out { TIMED_OUT } else { shell.exit.unwrap_or(shell.status) };
    Ok(ExecResult {
        stdout: String::from_utf8_lossy(&output.collect(Stream::Out)).into_owned(),
        stderr: String::from_utf8_lossy(&output.collect(Stream::Err)).into_owned(),
        exit_code,
        timed_out: shell.timed_out,
        duration_ms: env.now().saturating_sub(start),
        sandbox_denied: shell.confinement.as_deref().and_then(Confinement::denied),
    })
}

/// Runs a command with default options, for tests.
#[cfg(test)]
fn run_in(env: &MemoryEnvironment, command: &str) -> ExecResult {
    futures::executor::block_on(run(env, command, &ExecOptions::default())).expect("the shell could start")
}

/// A test environment holding text files (paths relative to `/workspace`).
#[cfg(test)]
fn env_with(files: &[(&str, &str)]) -> MemoryEnvironment {
    let env = super::test_env();
    for (path, text) in files {
        env.write_bytes(path, text.as_bytes()).expect("test files are writable");
    }
    env
}

/// Runs a command and gives (stdout, stderr, exit code), for tests.
#[cfg(test)]
fn sh(env: &MemoryEnvironment, command: &str) -> (String, String, i32) {
    let result = run_in(env, command);
    (result.stdout, result.stderr, result.exit_code)
}
