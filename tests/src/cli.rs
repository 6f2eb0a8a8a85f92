//! Running the real `openagent` binary: where it is, a sandbox per test (a working directory and
//! a data directory of its own, a provider pointed at a mock), and the process's output read
//! back as `openagent.run_event.v1` records.
//!
//! The binary belongs to `openagent-cli`, so cargo gives this crate no `CARGO_BIN_EXE_openagent`
//! (and the native crates may not depend on this crate: DESIGN.md's direction is `tests -> {core, native}`).
//! [`binary`] therefore asks cargo for it, once per test process: `cargo build -p openagent-cli
//! --bin openagent` in the profile these tests were built in, which is a no-op taking a fraction
//! of a second when the binary is fresh (`cargo test --workspace` has already built it for the
//! native crate's own CLI tests) and rebuilds it when it is stale. `OPENAGENT_BIN=/path/to/openagent`
//! tests that binary instead, without building.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

use crate::MockServer;
use serde_json::Value;

use crate::over_http::KEY;

/// No run in these tests takes more than a few seconds; one that takes this long is stuck.
pub const DEADLINE: Duration = Duration::from_secs(60);

/// The envelope of every `openagent.run_event.v1` line, in its serialised order.
pub const ENVELOPE: [&str; 7] = ["schema_version", "sequence", "ts", "run_id", "step", "type", "data"];

/// The `openagent` binary under test.
pub fn binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| std::env::var_os("OPENAGENT_BIN").map_or_else(build, PathBuf::from))
}

/// Builds `openagent` with the cargo running these tests and returns the executable cargo reports.
fn build() -> PathBuf {
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo.args(["build", "--quiet", "--message-format=json", "-p", "openagent-cli", "--bin", "openagent"]);
    cargo.arg("--profile").arg(test_profile()).current_dir(env!("CARGO_MANIFEST_DIR"));
    // Cargo describes this crate to its tests in these variables. Build scripts (ring's, for one)
    // declare some of them as inputs, so a nested cargo that inherited them would see changed
    // inputs and rebuild, and the next outer build would rebuild back.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        let per_crate = ["CARGO_PKG_", "CARGO_MANIFEST_", "CARGO_BIN_EXE_"].iter().any(|p| name.starts_with(p))
            || ["CARGO_CRATE_NAME", "CARGO_BIN_NAME", "CARGO_PRIMARY_PACKAGE", "CARGO_TARGET_TMPDIR", "OUT_DIR"]
                .contains(&&*name);
        if per_crate {
            cargo.env_remove(&*name);
        }
    }
    let output = cargo.stderr(Stdio::inherit()).output().expect("cargo runs");
    assert!(output.status.success(), "`cargo build -p openagent-cli --bin openagent` failed (its errors are above)");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact" && message["target"]["name"] == "openagent")
        .find_map(|message| message["executable"].as_str().map(PathBuf::from))
        .expect("cargo reported the openagent executable")
}

/// The cargo profile of this test executable, from the directory it is in
/// (`target/<profile dir>/deps/`; the `dev` profile's directory is `debug`).
fn test_profile() -> String {
    let exe = std::env::current_exe().expect("the test executable's path");
    let dir = exe.parent().and_then(Path::parent).and_then(Path::file_name).and_then(|d| d.to_str()).unwrap_or("debug");
    if dir == "debug" { "dev" } else { dir }.to_owned()
}

/// A directory of its own for one test, removed when dropped: `work/` is the agent's working
/// directory, `data/` its data directory, `home/` its `$HOME`.
pub struct Sandbox {
    root: PathBuf,
}

impl Sandbox {
    pub fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("openagent-run-cli-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::SeqCst));
        let root = std::env::temp_dir().join(name);
        for dir in ["work", "data", "home"] {
            std::fs::create_dir_all(root.join(dir)).expect("a temporary directory");
        }
        // Canonical, as the CLI reports its working directory.
        Self { root: root.canonicalize().expect("the sandbox exists") }
    }

    pub fn cwd(&self) -> PathBuf {
        self.root.join("work")
    }

    pub fn data_dir(&self) -> PathBuf {
        self.root.join("data")
    }

    /// A path in the sandbox, outside the working directory.
    pub fn path(&self, name: &str) -> PathBuf {
        self.root.join(name)
    }

    /// Writes a file in the working directory.
    pub fn write(&self, name: &str, content: &str) {
        std::fs::write(self.cwd().join(name), content).expect("the working directory is writable");
    }

    /// `openagent <args> --cwd <work> --data-dir <data>`; see [`Sandbox::bare`].
    pub fn openagent(&self, server: Option<&MockServer>, args: &[&str]) -> Command {
        let mut command = self.bare(server, args);
        command.arg("--cwd").arg(self.cwd()).arg("--data-dir").arg(self.data_dir());
        command
    }

    /// `openagent <args>` run in `work/` with an environment of nothing but `PATH`, `HOME` and,
    /// given a `server`, the Anthropic key and base URL pointing at it: no key or setting of the
    /// machine running the tests reaches the run.
    pub fn bare(&self, server: Option<&MockServer>, args: &[&str]) -> Command {
        let mut command = Command::new(binary());
        command.args(args).current_dir(self.cwd()).env_clear().env("HOME", self.root.join("home"));
        if let Some(path) = std::env::var_os("PATH") {
            command.env("PATH", path);
        }
        if let Some(server) = server {
            command.env("ANTHROPIC_API_KEY", KEY).env("ANTHROPIC_BASE_URL", server.base_url());
        }
        command
    }

    /// `openagent sessions <args> --data-dir <data>`, to the end.
    pub fn sessions(&self, args: &[&str]) -> Finished {
        let mut command = self.bare(None, &[&["sessions"], args].concat());
        command.arg("--data-dir").arg(self.data_dir());
        Running::start(command).finish()
    }

    /// `openagent trust --cwd <work> --data-dir <data>`, to the end: the working directory's hooks
    /// and MCP servers, as its files are now, may run. Asserts that it succeeded.
    pub fn trust(&self) -> Finished {
        let trusted = Running::start(self.openagent(None, &["trust"])).finish();
        assert_eq!(trusted.code, Some(0), "{trusted:?}");
        trusted
    }

    /// `openagent run <task> --output json <extra>` against `server`, to the end.
    pub fn run_json(&self, server: &MockServer, task: &str, extra: &[&str]) -> Finished {
        let args = [&["run", task, "--output", "json"], extra].concat();
        Running::start(self.openagent(Some(server), &args)).finish()
    }

    /// `openagent <args>` against `server` with the variables `env` added, to the end.
    pub fn run_with_env(&self, server: &MockServer, args: &[&str], env: &[(&str, &str)]) -> Finished {
        let mut command = self.openagent(Some(server), args);
        command.envs(env.iter().copied());
        Running::start(command).finish()
    }

    /// `openagent run <task> <extra>` against `server`, to the end (human output unless `extra` says otherwise).
    pub fn run(&self, server: &MockServer, task: &str, extra: &[&str]) -> Finished {
        let args = [&["run", task], extra].concat();
        Running::start(self.openagent(Some(server), &args)).finish()
    }
}

impl Default for Sandbox {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.root);
    }
}

/// Which of the process's outputs a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pipe {
    Stdout,
    Stderr,
}

/// A started `openagent`, its output read line by line as it comes.
pub struct Running {
    child: Child,
    stdin: Option<ChildStdin>,
    /// Each line as read, with its newline if it had one.
    lines: Receiver<(Pipe, Vec<u8>)>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    started: Instant,
}

impl Running {
    /// Starts `command` with no stdin at all.
    pub fn start(command: Command) -> Self {
        Self::spawn(command, Stdio::null())
    }

    /// Starts `command` with a pipe for stdin, open until [`Running::close_stdin`] or
    /// [`Running::finish`].
    pub fn with_stdin(command: Command) -> Self {
        Self::spawn(command, Stdio::piped())
    }

    fn spawn(mut command: Command, stdin: Stdio) -> Self {
        let mut child = command.stdin(stdin).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("openagent starts");
        let (tx, lines) = mpsc::channel();
        forward_lines(Pipe::Stdout, child.stdout.take().expect("piped stdout"), tx.clone());
        forward_lines(Pipe::Stderr, child.stderr.take().expect("piped stderr"), tx);
        Self { stdin: child.stdin.take(), child, lines, stdout: Vec::new(), stderr: Vec::new(), started: Instant::now() }
    }

    /// Types `text` on stdin.
    pub fn write(&mut self, text: &str) {
        let stdin = self.stdin.as_mut().expect("started with_stdin, not closed");
        stdin.write_all(text.as_bytes()).and_then(|()| stdin.flush()).expect("stdin takes the text");
    }

    /// Ends the input.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// Reads output until a line of `pipe` satisfies `wanted`; returns that line.
    pub fn wait_for_line(&mut self, pipe: Pipe, wanted: impl Fn(&str) -> bool) -> String {
        loop {
            match self.lines.recv_timeout(DEADLINE.saturating_sub(self.started.elapsed())) {
                Ok((from, line)) => {
                    let text = String::from_utf8_lossy(&line).into_owned();
                    let found = from == pipe && wanted(&text);
                    self.keep(from, line);
                    if found {
                        return text;
                    }
                }
                Err(RecvTimeoutError::Disconnected) => panic!("the output ended before the line awaited: {}", self.so_far()),
                Err(RecvTimeoutError::Timeout) => {
                    let _ = self.child.kill();
                    panic!("no such line within {DEADLINE:?}: {}", self.so_far())
                }
            }
        }
    }

    /// Sends `signal` to the process.
    pub fn signal(&self, signal: libc::c_int) {
        let pid = libc::pid_t::try_from(self.child.id()).expect("a pid fits pid_t");
        // SAFETY: kill(2) on our own child, which has not been waited for, so the pid is still its.
        assert_eq!(unsafe { libc::kill(pid, signal) }, 0, "kill({pid}, {signal})");
    }

    /// The process's id.
    pub fn pid(&self) -> i32 {
        i32::try_from(self.child.id()).expect("a pid fits i32")
    }

    /// Closes stdin, waits for the process to exit (killing it past the deadline) and returns
    /// what it wrote.
    pub fn finish(mut self) -> Finished {
        self.close_stdin();
        let status = loop {
            if let Some(status) = self.child.try_wait().expect("the child can be waited for") {
                break status;
            }
            if self.started.elapsed() > DEADLINE {
                let _ = self.child.kill();
                panic!("openagent still runs after {DEADLINE:?}: {}", self.so_far());
            }
            thread::sleep(Duration::from_millis(10));
        };
        // The readers end with the pipes, so this collects every line.
        let rest: Vec<_> = self.lines.iter().collect();
        for (pipe, line) in rest {
            self.keep(pipe, line);
        }
        let utf8 = |bytes: Vec<u8>, name: &str| {
            String::from_utf8(bytes)
                .unwrap_or_else(|e| panic!("{name} is not UTF-8 ({e}): {:?}", String::from_utf8_lossy(e.as_bytes())))
        };
        Finished { code: status.code(), stdout: utf8(self.stdout, "stdout"), stderr: utf8(self.stderr, "stderr") }
    }

    fn keep(&mut self, pipe: Pipe, line: Vec<u8>) {
        match pipe {
            Pipe::Stdout => self.stdout.extend(line),
            Pipe::Stderr => self.stderr.extend(line),
        }
    }

    fn so_far(&self) -> String {
        format!("stdout: {:?}, stderr: {:?}", String::from_utf8_lossy(&self.stdout), String::from_utf8_lossy(&self.stderr))
    }
}

/// Sends each line `output` gives (with its newline, if it had one) to `tx`, from a thread.
fn forward_lines(pipe: Pipe, output: impl Read + Send + 'static, tx: Sender<(Pipe, Vec<u8>)>) {
    let mut output = BufReader::new(output);
    thread::spawn(move || loop {
        let mut line = Vec::new();
        match output.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) if tx.send((pipe, line)).is_err() => break,
            Ok(_) => {}
        }
    });
}

/// Polls `done` until it holds; panics past the deadline.
pub fn eventually(what: &str, done: impl Fn() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < DEADLINE, "{what}: still not after {DEADLINE:?}");
        thread::sleep(Duration::from_millis(10));
    }
}

/// What a finished `openagent` left: its exit code (`None` if a signal killed it) and output.
#[derive(Debug)]
pub struct Finished {
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Finished {
    /// Each stdout line parsed as JSON.
    pub fn records(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .map(|line| {
                serde_json::from_str(line).unwrap_or_else(|e| panic!("a stdout line is not JSON ({e}): {line:?}\n{self:?}"))
            })
            .collect()
    }

    /// The `type` of each record, in order.
    pub fn types(&self) -> Vec<String> {
        self.records().iter().map(|record| record["type"].as_str().unwrap_or_default().to_owned()).collect()
    }

    /// The `data` of every record of type `kind`, in order.
    pub fn data_of(&self, kind: &str) -> Vec<Value> {
        self.records().into_iter().filter(|record| record["type"] == kind).map(|record| record["data"].clone()).collect()
    }

    /// The last record, which must be the one `run_finished`; its `data`.
    pub fn run_finished(&self) -> Value {
        let records = self.records();
        let finished: Vec<_> = records.iter().filter(|record| record["type"] == "run_finished").collect();
        assert_eq!(finished.len(), 1, "exactly one run_finished: {self:?}");
        assert_eq!(records.last(), Some(finished[0]), "run_finished comes last: {self:?}");
        finished[0]["data"].clone()
    }
}

/// The internal events of an `--events` file (or a run's `events.jsonl`), parsed.
pub fn read_events(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines().map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))).collect()
}

/// A JSON file the run wrote, parsed.
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{} is not JSON ({e})", path.display()))
}
