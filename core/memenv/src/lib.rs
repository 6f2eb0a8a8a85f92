//! # openagent-memenv
//!
//! [`MemoryEnvironment`]: an [`ExecutionEnvironment`] whose files are held in memory, with a small
//! built-in shell. It is the environment of the browser host (a tab has no filesystem), of the
//! WASI sandbox's guest, and of every test that runs tools or sessions. A host that can run
//! commands itself (a JS callback, a sandbox) plugs in a [`CommandRunner`] instead of the shell,
//! and a host that runs one program (`node` in a Web Worker) adds it to the shell as a
//! [`HostCommand`].
//!
//! It implements the core's seam, so it depends on `openagent-core` (the `env` module's trait,
//! errors and options; the `runtime` clock and timers; the base64 and sort helpers of the LLM
//! layer) and never the other way round: the core, its loop and its tools know only the trait.
//! It must not depend on a host nor do I/O of its own. It builds and passes its tests on
//! `wasm32-unknown-unknown`, and nothing in it needs `Send`.
//!
//! The files: `fs` (the tree and paths), `search` (grep and glob), `snapshot` (JSON), `runner`
//! and `host_command` (the host's two command seams: whole lines, or one named command) and
//! `shell` (the built-in shell: parser, expansion, execution and the builtins, one file per family).

mod fs;
mod host_command;
mod runner;
mod search;
mod shell;
mod snapshot;

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use async_trait::async_trait;

pub use self::fs::resolve as resolve_path;
use self::fs::{resolve, Kind, Tree};
pub use self::host_command::{HostCall, HostCommand, HostOutput, HOST_GRACE_MS};
pub use self::runner::CommandRunner;
pub use self::shell::Confinement;
#[cfg(feature = "typings")]
pub use self::snapshot::Snapshot as MemorySnapshot;
use openagent_core::env::{line_start, DirEntry, EnvError, ExecOptions, ExecResult, ExecutionEnvironment, FileInfo, GrepOptions};
use openagent_core::llm::SharedText;
use openagent_core::runtime::{EpochMillis, Runtime};

const DEFAULT_WORKING_DIRECTORY: &str = "/workspace";

/// Every environment has `/tmp`, because agents reach for it.
const SCRATCH_DIRECTORY: &str = "/tmp";

/// An [`ExecutionEnvironment`] held entirely in memory: the environment of the browser host and
/// of every test.
///
/// Files live in a tree of directories and byte files, each stamped with the runtime's clock and
/// a write sequence (so "newest first" is deterministic when the clock stands still). Paths are
/// absolute or relative to the working directory (`/workspace` by default) and can never leave
/// `/`. The whole environment can be saved to and restored from JSON ([`Self::snapshot`]).
///
/// `exec_command` runs a built-in shell over these files unless the host plugs in its own
/// [`CommandRunner`]: simple commands joined by `;`, `&&`, `||` and `|`, quoting, `$VAR`,
/// `$(...)`, `*`/`?` expansion, redirections (`>`, `>>`, `<`, `2>&1`, `/dev/null`,
/// here-documents) and about forty builtins (`cat`, `ls`, `grep`, `find`, `sed`, `head`,
/// `sort`, `mkdir`, `rm`, `mv`, `cp`, `test`, `xargs`, `sh -c`, ...), plus the commands the
/// host adds ([`add_host_command`](Self::add_host_command)). There are no `if`/`for`/
/// `while` blocks, functions or subshells; such scripts, and unknown commands, fail with a
/// message that says what is available. `sleep` and host commands honour the timeout.
///
/// Clones share the same files, so a host can keep one to read and write while a session uses
/// another.
///
/// ```
/// use std::rc::Rc;
/// use openagent_core::env::{ExecOptions, ExecutionEnvironment};
/// use openagent_core::runtime::VirtualRuntime;
/// use openagent_memenv::MemoryEnvironment;
///
/// let env = MemoryEnvironment::new(Rc::new(VirtualRuntime::new(|_| {})));
/// env.write_bytes("notes.txt", b"one\ntwo\n").unwrap();
/// let result = futures::executor::block_on(env.exec_command("grep -n two notes.txt", &ExecOptions::default())).unwrap();
/// assert_eq!(result.stdout, "2:two\n");
/// ```
#[derive(Clone)]
pub struct MemoryEnvironment {
    inner: Rc<Inner>,
    /// Clones share it; a [`view`](MemoryEnvironment::view) has its own.
    working_dir: Rc<RefCell<String>>,
}

/// How an environment reaches the built-in shell: [`builtin_shell`], or a host's way to it (the
/// browser package fetches it, from a module of its own, when the first command runs). It runs
/// `command` as `exec_command` does.
pub type Shell = for<'a> fn(&'a MemoryEnvironment, &'a str, &'a ExecOptions) -> ShellRun<'a>;

/// One command's run in the built-in shell.
pub type ShellRun<'a> = Pin<Box<dyn Future<Output = Result<ExecResult, EnvError>> + 'a>>;

/// The built-in shell.
pub fn builtin_shell<'a>(env: &'a MemoryEnvironment, command: &'a str, options: &'a ExecOptions) -> ShellRun<'a> {
    Box::pin(shell::run(env, command, options))
}

struct Inner {
    tree: RefCell<Tree>,
    runtime: Rc<dyn Runtime>,
    shell: Shell,
    runner: RefCell<Option<Rc<dyn CommandRunner>>>,
    /// The host's commands, by name, in the order they were added.
    commands: RefCell<Vec<(String, Rc<dyn HostCommand>)>>,
}

impl MemoryEnvironment {
    /// An empty filesystem with the working directory `/workspace` and `/tmp`; `runtime` gives the clock
    /// for modification times and the timer for `sleep`.
    pub fn new(runtime: Rc<dyn Runtime>) -> Self {
        Self::with_shell(runtime, builtin_shell)
    }

    /// [`new`](Self::new), with the built-in shell reached through `shell`: a host that names
    /// [`builtin_shell`] only where it loads it keeps the shell out of its own code until then.
    pub fn with_shell(runtime: Rc<dyn Runtime>, shell: Shell) -> Self {
        let mut tree = Tree::new(runtime.now_ms());
        // Cannot fail: the root is an empty directory.
        let _ = tree.mkdir(DEFAULT_WORKING_DIRECTORY, runtime.now_ms(), true);
        let _ = tree.mkdir(SCRATCH_DIRECTORY, runtime.now_ms(), true);
        let inner = Inner { tree: RefCell::new(tree), runtime, shell, runner: RefCell::new(None), commands: RefCell::default() };
        Self { inner: Rc::new(inner), working_dir: Rc::new(RefCell::new(DEFAULT_WORKING_DIRECTORY.to_owned())) }
    }

    /// Uses `path` (absolute, or relative to the current working directory) as the working
    /// directory, creating it.
    pub fn with_working_directory(self, path: &str) -> Result<Self, EnvError> {
        let dir = self.resolve(path)?;
        self.inner.tree.borrow_mut().mkdir(&dir, self.now(), true)?;
        *self.working_dir.borrow_mut() = dir;
        Ok(self)
    }

    /// The same files seen from another working directory, which must exist (`path` is absolute or
    /// relative to this view's). Writes through either are seen by both; changing one's working
    /// directory leaves the other's alone. A subagent scoped to a subdirectory works on one.
    pub fn view(&self, path: &str) -> Result<Self, EnvError> {
        let dir = self.resolve(path)?;
        if !self.inner.tree.borrow().get(&dir)?.is_dir() {
            return Err(EnvError::NotADirectory(dir));
        }
        Ok(Self { inner: self.inner.clone(), working_dir: Rc::new(RefCell::new(dir)) })
    }

    /// Runs commands with `runner` instead of the built-in shell.
    pub fn with_command_runner(self, runner: Rc<dyn CommandRunner>) -> Self {
        *self.inner.runner.borrow_mut() = Some(runner);
        self
    }

    /// Adds `command` to the built-in shell as `name` (replacing one of that name), for this
    /// environment and every clone and view of it. The name is a plain word that is not a
    /// builtin's: a host command adds to the shell and never changes what `cat` does.
    pub fn add_host_command(&self, name: &str, command: Rc<dyn HostCommand>) -> Result<(), EnvError> {
        let plain = name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.+".contains(c));
        // concat rather than format!, which costs the browser bundle more.
        if name.is_empty() || !plain || name.starts_with('-') {
            let why = ["a host command named `", name, "`: use letters, digits, `-`, `_`, `.` and `+`"].concat();
            return Err(EnvError::Unsupported(why));
        }
        if shell::is_builtin(name) {
            return Err(EnvError::Unsupported(["a host command named `", name, "`: the built-in shell has one"].concat()));
        }
        let mut commands = self.inner.commands.borrow_mut();
        match commands.iter_mut().find(|(known, _)| known == name) {
            Some(known) => known.1 = command,
            None => commands.push((name.to_owned(), command)),
        }
        Ok(())
    }

    /// The host command named `name`, if one was added.
    fn host_command(&self, name: &str) -> Option<Rc<dyn HostCommand>> {
        self.inner.commands.borrow().iter().find(|(known, _)| known == name).map(|(_, command)| command.clone())
    }

    /// The names of the host commands, in the order they were added, joined by `, `.
    fn host_command_names(&self) -> String {
        let mut names = String::new();
        for (name, _) in self.inner.commands.borrow().iter() {
            if !names.is_empty() {
                names.push_str(", ");
            }
            names.push_str(name);
        }
        names
    }

    /// Writes a file whole from bytes, creating parent directories (for hosts: uploads, seeding).
    pub fn write_bytes(&self, path: &str, bytes: &[u8]) -> Result<(), EnvError> {
        let path = self.resolve(path)?;
        self.inner.tree.borrow_mut().write(&path, bytes.to_vec(), self.now(), true)
    }

    /// A file's bytes, synchronously (for hosts).
    pub fn read_bytes_sync(&self, path: &str) -> Result<Vec<u8>, EnvError> {
        let path = self.resolve(path)?;
        self.inner.tree.borrow().read(&path).map(|content| content.bytes().to_vec())
    }

    /// A text file's text, shared; [`EnvError::BinaryFile`] for any other file.
    fn text(&self, path: &str) -> Result<SharedText, EnvError> {
        let abs = self.resolve(path)?;
        let tree = self.inner.tree.borrow();
        let text = tree.read(&abs)?.text().cloned();
        text.ok_or(EnvError::BinaryFile(abs))
    }

    /// Removes a file or a directory; a non-empty directory only when `recursive`.
    pub fn remove(&self, path: &str, recursive: bool) -> Result<(), EnvError> {
        let path = self.resolve(path)?;
        self.inner.tree.borrow_mut().remove(&path, recursive, self.now())
    }

    /// Creates a directory and its missing parents; an existing directory is fine.
    pub fn mkdir_p(&self, path: &str) -> Result<(), EnvError> {
        let path = self.resolve(path)?;
        self.inner.tree.borrow_mut().mkdir(&path, self.now(), true)
    }

    /// The absolute path of every file, sorted (for a host's file tree view).
    pub fn list_all_files(&self) -> Vec<String> {
        self.list_all(false)
    }

    /// The absolute path of every directory but the root, sorted: an empty one is in no file's
    /// path, so a host that copies the files elsewhere needs these too.
    pub fn list_all_dirs(&self) -> Vec<String> {
        self.list_all(true)
    }

    fn list_all(&self, dirs: bool) -> Vec<String> {
        let tree = self.inner.tree.borrow();
        let walked = tree.walk("/", usize::MAX).unwrap_or_default();
        walked.into_iter().filter(|(_, node, _)| node.is_dir() == dirs).map(|(rel, _, _)| format!("/{rel}")).collect()
    }

    fn resolve(&self, path: &str) -> Result<String, EnvError> {
        resolve(&self.working_dir(), path)
    }

    fn working_dir(&self) -> String {
        self.working_dir.borrow().clone()
    }

    fn now(&self) -> EpochMillis {
        self.inner.runtime.now_ms()
    }

    fn runtime(&self) -> Rc<dyn Runtime> {
        self.inner.runtime.clone()
    }
}

#[async_trait(?Send)]
impl ExecutionEnvironment for MemoryEnvironment {
    async fn read_file(&self, path: &str, offset: Option<usize>, limit: Option<usize>) -> Result<String, EnvError> {
        let text = self.text(path)?;
        if offset.is_none() && limit.is_none() {
            return Ok(text.into_string());
        }
        let skip = offset.unwrap_or(1).saturating_sub(1);
        let start = line_start(&text, skip);
        let end = start + line_start(&text[start..], limit.unwrap_or(usize::MAX));
        Ok(text[start..end].to_owned())
    }

    fn shared_text(&self, path: &str) -> Option<Result<SharedText, EnvError>> {
        Some(self.text(path))
    }

    async fn read_bytes(&self, path: &str) -> Result<Vec<u8>, EnvError> {
        self.read_bytes_sync(path)
    }

    async fn write_file(&self, path: &str, content: &str) -> Result<(), EnvError> {
        self.write_bytes(path, content.as_bytes())
    }

    async fn remove_file(&self, path: &str) -> Result<(), EnvError> {
        let abs = self.resolve(path)?;
        let mut tree = self.inner.tree.borrow_mut();
        if tree.get(&abs)?.is_dir() {
            return Err(EnvError::IsADirectory(abs));
        }
        tree.remove(&abs, false, self.now())
    }

    async fn stat(&self, path: &str) -> Result<FileInfo, EnvError> {
        let abs = self.resolve(path)?;
        let tree = self.inner.tree.borrow();
        let node = tree.get(&abs)?;
        Ok(FileInfo { is_dir: node.is_dir(), size: node.size(), modified_ms: Some(node.stamp.ms) })
    }

    async fn list_directory(&self, path: &str, depth: usize) -> Result<Vec<DirEntry>, EnvError> {
        let abs = self.resolve(path)?;
        let tree = self.inner.tree.borrow();
        if !tree.get(&abs)?.is_dir() {
            return Err(EnvError::NotADirectory(abs));
        }
        // Depth 0 would list nothing, which is never what a caller wants.
        let entries = tree.walk(&abs, depth.max(1))?;
        Ok(entries
            .into_iter()
            .map(|(name, node, _)| DirEntry {
                name,
                is_dir: node.is_dir(),
                size: matches!(node.kind, Kind::File(_)).then(|| node.size()),
            })
            .collect())
    }

    async fn exec_command(&self, command: &str, options: &ExecOptions) -> Result<ExecResult, EnvError> {
        let runner = self.inner.runner.borrow().clone();
        match runner {
            Some(runner) => runner.run(command, options).await,
            None => (self.inner.shell)(self, command, options).await,
        }
    }

    async fn grep(&self, pattern: &str, path: &str, options: &GrepOptions) -> Result<String, EnvError> {
        search::grep(&self.inner.tree.borrow(), &self.working_dir(), pattern, path, options)
    }

    async fn glob(&self, pattern: &str, path: &str) -> Result<Vec<String>, EnvError> {
        search::glob(&self.inner.tree.borrow(), &self.working_dir(), pattern, path)
    }

    /// The tree has no symlinks: the path as every operation here resolves it, `..` above `/`
    /// and paths too deep refused.
    async fn canonical_path(&self, path: &str) -> Result<String, EnvError> {
        self.resolve(path)
    }

    fn scoped(&self, working_dir: &str) -> Result<Rc<dyn ExecutionEnvironment>, EnvError> {
        Ok(Rc::new(self.view(working_dir)?))
    }

    fn working_directory(&self) -> String {
        self.working_dir()
    }

    /// A builtin's name or a host command's; with a command runner, the runner's to say.
    fn has_command(&self, name: &str) -> Option<bool> {
        if self.inner.runner.borrow().is_some() {
            return None;
        }
        Some(shell::is_builtin(name) || self.inner.commands.borrow().iter().any(|(added, _)| added == name))
    }

    /// Always `memory`: the files are in memory whatever the host runs on.
    fn platform(&self) -> String {
        "memory".into()
    }

    /// Names the host commands, so the model knows it can run them.
    fn os_version(&self) -> String {
        let commands = self.host_command_names();
        match self.inner.runner.borrow().is_some() {
            true => "OpenAgent in-memory environment (host command runner)".into(),
            false if commands.is_empty() => "OpenAgent in-memory environment (built-in shell)".into(),
            false => ["OpenAgent in-memory environment (built-in shell; host commands: ", &commands, ")"].concat(),
        }
    }
}

/// An environment on a [`VirtualRuntime`](openagent_core::runtime::VirtualRuntime), for tests.
#[cfg(test)]
fn test_env() -> MemoryEnvironment {
    MemoryEnvironment::new(Rc::new(openagent_core::runtime::VirtualRuntime::new(|_| {})))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use futures::executor::block_on;

    use super::*;

    #[test]
    fn starts_in_workspace_and_resolves_relative_paths() {
        let env = test_env();
        assert_eq!(env.working_directory(), "/workspace");
        assert!(block_on(env.stat("/workspace")).unwrap().is_dir);
        block_on(env.write_file("src/../notes.txt", "hi")).unwrap();
        assert_eq!(env.list_all_files(), ["/workspace/notes.txt"]);
        let moved = test_env().with_working_directory("/project/app").unwrap();
        assert_eq!(moved.working_directory(), "/project/app");
        assert!(block_on(moved.file_exists("/project/app")));
        assert_eq!(env.platform(), "memory");
        assert!(env.os_version().contains("built-in shell"));
    }

    /// A program run without a shell reaches the built-in one with each word quoted: spaces,
    /// quotes, `$` and empty words come through as they were given.
    #[test]
    fn a_program_runs_through_the_shell_with_its_words_as_given() {
        let env = test_env();
        let options = ExecOptions::default();
        let words = ["a b", "it's", "$HOME", "", "plain-1.2/x=y"];
        let result =
            block_on(env.exec_program("printf", &["[%s]", words[0], words[1], words[2], words[3], words[4]], &options)).unwrap();
        assert_eq!(result.exit_code, 0, "{result:?}");
        assert_eq!(result.stdout, "[a b][it's][$HOME][][plain-1.2/x=y]");
    }

    #[test]
    fn refuses_paths_outside_the_root() {
        let env = test_env();
        let escape = block_on(env.read_file("../../etc/passwd", None, None)).unwrap_err();
        assert!(escape.to_string().contains("escapes the environment root"), "{escape}");
        assert!(matches!(env.write_bytes("/../x", b""), Err(EnvError::InvalidPath { .. })));
        assert!(matches!(env.remove("/", true), Err(EnvError::InvalidPath { .. })));
        assert!(test_env().with_working_directory("../..").is_err());
    }

    #[test]
    fn reads_lines_by_offset_and_limit_keeping_endings() {
        let env = test_env();
        env.write_bytes("f.txt", b"one\ntwo\r\nthree\nfour").unwrap();
        let read = |offset, limit| block_on(env.read_file("f.txt", offset, limit)).unwrap();
        assert_eq!(read(None, None), "one\ntwo\r\nthree\nfour");
        assert_eq!(read(Some(2), Some(2)), "two\r\nthree\n");
        assert_eq!(read(Some(3), None), "three\nfour");
        assert_eq!(read(None, Some(1)), "one\n");
        assert_eq!(read(Some(0), Some(1)), "one\n");
        assert_eq!(read(Some(9), None), "");
        assert_eq!(read(Some(4), Some(5)), "four");
        assert_eq!(read(Some(2), Some(0)), "");
        assert_eq!(read(Some(1), Some(usize::MAX)), "one\ntwo\r\nthree\nfour");
    }

    #[test]
    fn reports_binary_files_directories_and_missing_files() {
        let env = test_env();
        env.write_bytes("nul.bin", b"a\0b").unwrap();
        env.write_bytes("latin1.txt", &[b'c', 0xe9]).unwrap();
        for path in ["nul.bin", "latin1.txt"] {
            assert!(matches!(block_on(env.read_file(path, None, None)), Err(EnvError::BinaryFile(_))));
        }
        assert_eq!(block_on(env.read_bytes("nul.bin")).unwrap(), b"a\0b");
        assert!(matches!(block_on(env.read_file(".", None, None)), Err(EnvError::IsADirectory(_))));
        assert!(matches!(block_on(env.read_file("nope", None, None)), Err(EnvError::NotFound(_))));
        assert!(!block_on(env.file_exists("nope")));
    }

    #[test]
    fn writes_create_parents_but_not_through_files() {
        let env = test_env();
        block_on(env.write_file("a/b/c.txt", "x")).unwrap();
        assert!(block_on(env.stat("a/b")).unwrap().is_dir);
        let err = block_on(env.write_file("a/b/c.txt/d", "x")).unwrap_err();
        assert_eq!(err, EnvError::NotADirectory("/workspace/a/b/c.txt".into()));
        assert!(matches!(block_on(env.write_file("a", "x")), Err(EnvError::IsADirectory(_))));
    }

    #[test]
    fn stats_lists_and_removes() {
        let env = test_env();
        env.write_bytes("src/main.rs", b"fn main() {}").unwrap();
        env.write_bytes("src/util/mod.rs", b"").unwrap();
        env.write_bytes("Cargo.toml", b"[package]").unwrap();
        let info = block_on(env.stat("src/main.rs")).unwrap();
        assert_eq!((info.is_dir, info.size, info.modified_ms), (false, 12, Some(openagent_core::runtime::VirtualRuntime::START)));
        let names = |depth| -> Vec<String> {
            block_on(env.list_directory(".", depth)).unwrap().into_iter().map(|entry| entry.name).collect()
        };
        assert_eq!(names(1), ["Cargo.toml", "src"]);
        assert_eq!(names(3), ["Cargo.toml", "src", "src/main.rs", "src/util", "src/util/mod.rs"]);
        let listed = block_on(env.list_directory("src", 1)).unwrap();
        assert_eq!(listed[0], DirEntry { name: "main.rs".into(), is_dir: false, size: Some(12) });
        assert_eq!(listed[1], DirEntry { name: "util".into(), is_dir: true, size: None });
        assert!(matches!(block_on(env.list_directory("Cargo.toml", 1)), Err(EnvError::NotADirectory(_))));

        assert!(matches!(block_on(env.remove_file("src")), Err(EnvError::IsADirectory(_))));
        block_on(env.remove_file("Cargo.toml")).unwrap();
        assert!(matches!(block_on(env.remove_file("Cargo.toml")), Err(EnvError::NotFound(_))));
        assert!(env.remove("src", false).is_err());
        env.remove("src", true).unwrap();
        assert!(env.list_all_files().is_empty());
    }

    #[test]
    fn every_file_and_every_directory_are_listed_apart_the_empty_ones_too() {
        let env = test_env();
        env.write_bytes("src/main.rs", b"fn main() {}").unwrap();
        env.mkdir_p("dist/empty").unwrap();
        assert_eq!(env.list_all_files(), ["/workspace/src/main.rs"]);
        assert_eq!(env.list_all_dirs(), ["/tmp", "/workspace", "/workspace/dist", "/workspace/dist/empty", "/workspace/src"]);
    }

    #[test]
    fn deep_trees_are_walked_dropped_and_snapshotted() {
        let env = test_env();
        // With /workspace, 1024 names: the deepest path allowed.
        let deep = "d/".repeat(1022) + "leaf.txt";
        env.write_bytes(&deep, b"bottom").unwrap();
        assert_eq!(env.list_all_files().len(), 1);
        assert_eq!(block_on(env.glob("**/leaf.txt", ".")).unwrap(), std::slice::from_ref(&deep));
        let copy = MemoryEnvironment::from_snapshot(env.runtime(), &env.snapshot()).unwrap();
        assert_eq!(copy.read_bytes_sync(&deep).unwrap(), b"bottom");
        env.remove("d", true).unwrap();
    }

    #[test]
    fn clones_share_files() {
        let env = test_env();
        let host = env.clone();
        host.write_bytes("shared.txt", b"both").unwrap();
        assert_eq!(block_on(env.read_file("shared.txt", None, None)).unwrap(), "both");
    }

    struct Echo;

    #[async_trait(?Send)]
    impl CommandRunner for Echo {
        async fn run(&self, command: &str, _: &ExecOptions) -> Result<ExecResult, EnvError> {
            Ok(ExecResult { stdout: format!("host ran {command}"), ..ExecResult::default() })
        }
    }

    #[test]
    fn a_host_reaches_the_shell_through_its_entry_and_views_share_it() {
        // As the browser package does: its own way in, which then runs the built-in shell.
        fn counted<'a>(env: &'a MemoryEnvironment, command: &'a str, options: &'a ExecOptions) -> ShellRun<'a> {
            Box::pin(async move {
                let mut result = builtin_shell(env, command, options).await?;
                result.stdout.insert_str(0, "[entry] ");
                Ok(result)
            })
        }
        let env = MemoryEnvironment::with_shell(Rc::new(openagent_core::runtime::VirtualRuntime::new(|_| {})), counted);
        env.mkdir_p("sub").unwrap();
        let result = block_on(env.exec_command("echo hi > a.txt; cat a.txt", &ExecOptions::default())).unwrap();
        assert_eq!(result.stdout, "[entry] hi\n");
        let view = env.view("sub").unwrap();
        assert_eq!(block_on(view.exec_command("pwd", &ExecOptions::default())).unwrap().stdout, "[entry] /workspace/sub\n");
    }

    #[test]
    fn a_command_runner_replaces_the_shell() {
        let env = test_env().with_command_runner(Rc::new(Echo));
        let result = block_on(env.exec_command("python3 x.py", &ExecOptions::default())).unwrap();
        assert_eq!(result.stdout, "host ran python3 x.py");
        assert!(env.os_version().contains("host command runner"));
    }

    #[test]
    fn a_view_shares_the_files_but_not_the_working_directory() {
        let env = test_env();
        block_on(env.write_file("sub/a.txt", "one")).unwrap();
        let view = env.view("sub").unwrap();
        assert_eq!(view.working_directory(), "/workspace/sub");
        assert_eq!(block_on(view.read_file("a.txt", None, None)).unwrap(), "one");
        block_on(view.write_file("b.txt", "two")).unwrap();
        assert_eq!(block_on(env.read_file("sub/b.txt", None, None)).unwrap(), "two");
        assert_eq!(env.working_directory(), "/workspace");
        assert!(matches!(env.view("sub/a.txt"), Err(EnvError::NotADirectory(_))));
        assert!(matches!(env.view("missing"), Err(EnvError::NotFound(_))));
        assert_eq!(env.scoped("sub").unwrap().working_directory(), "/workspace/sub");
    }
}
