//! `LocalEnvironment`: the spec 4.2 environment over the real filesystem and `/bin/bash`. The
//! files: this one (paths and the environment's operations), `files` (bounded reads, confined and
//! atomic writes), `exec` (commands in process groups), `confined` (the sandbox policy held by the
//! kernel for commands), `vars` (the environment variable policy),
//! `search` (ripgrep's walker, and glob) and `grep` (with ripgrep's searcher).

pub(crate) mod confined;
pub(crate) mod exec;
mod files;
mod grep;
mod search;
pub(crate) mod vars;

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::time::UNIX_EPOCH;

use async_trait::async_trait;
use openagent_core::env::{DirEntry, EnvError, ExecOptions, ExecResult, ExecutionEnvironment, FileInfo, GrepOptions};

pub use self::exec::Supervision;
pub(crate) use self::vars::is_secret;
pub use self::vars::{secret_values, EnvPass, EnvPolicy};

/// An [`ExecutionEnvironment`] on the local machine: files through `std::fs`, commands through
/// `/bin/bash -c` in a process group of their own (so a timeout or a dropped future kills
/// everything the command started), grep and glob through the `ignore` walker (which honours
/// `.gitignore`) with ripgrep's searcher and `globset`. A command that times out is killed
/// (SIGTERM to its group, SIGKILL 2 s later) and reports `timed_out` with exit code 124, as
/// coreutils' `timeout` does, keeping the output it had written. A command whose
/// `ExecOptions::sandbox` is `read-only` or `workspace-write` runs confined by the kernel
/// ([`check_sandbox`] says whether this machine can), or not at all; its result says in
/// `sandbox_denied` when the output shows the confinement refused it.
///
/// Paths are absolute or relative to the working directory. Reads may leave it (this is the
/// user's own machine: docs, toolchains), but only regular files are read, at most 16 MiB at a
/// time. Writes and deletes may not leave it: a path that resolves outside, through `..`, an
/// absolute path or a symlink, is refused before anything is changed, and a file is written
/// whole or not at all.
#[derive(Debug, Clone)]
pub struct LocalEnvironment {
    working_dir: PathBuf,
    /// `working_dir` with its symlinks resolved: the boundary writes are checked against.
    root: PathBuf,
    policy: EnvPolicy,
    pass: EnvPass,
    /// How commands are supervised; probed at the first command when not chosen.
    supervision: Option<Supervision>,
    /// The home whose keys confined commands may not read, when not this process's `$HOME`.
    home: Option<PathBuf>,
    /// The sandbox policy last prepared for this environment's commands.
    prepared: confined::Prepared,
}

impl LocalEnvironment {
    /// An environment on `working_dir`, which must be an existing directory (made absolute
    /// against the process's current directory if relative). Commands get the core variables
    /// only ([`EnvPolicy::CoreOnly`]).
    pub fn new(working_dir: impl AsRef<Path>) -> Result<Self, EnvError> {
        let dir = working_dir.as_ref();
        let cwd = std::env::current_dir().map_err(|err| EnvError::Io(err.to_string()))?;
        let dir = normalize(&cwd.join(dir));
        let shown = dir.display().to_string();
        match fs::metadata(&dir) {
            Ok(meta) if meta.is_dir() => {
                let root = fs::canonicalize(&dir).map_err(|err| io_error(err, &shown))?;
                Ok(Self {
                    working_dir: dir,
                    root,
                    policy: EnvPolicy::default(),
                    pass: EnvPass::default(),
                    supervision: None,
                    home: None,
                    prepared: confined::Prepared::default(),
                })
            }
            Ok(_) => Err(EnvError::NotADirectory(shown)),
            Err(err) => Err(io_error(err, &shown)),
        }
    }

    /// Which of this process's variables commands see.
    pub fn with_env_policy(mut self, policy: EnvPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// Variables of this process that commands see whatever the policy.
    pub fn with_env_pass(mut self, pass: EnvPass) -> Self {
        self.pass = pass;
        self
    }

    /// How commands are held to themselves, instead of the best this machine allows
    /// ([`Supervision::detect`]): tests choose [`Supervision::Scan`] to exercise the fallback.
    pub fn with_supervision(mut self, supervision: Supervision) -> Self {
        self.supervision = Some(supervision);
        self
    }

    /// The home whose keys and credentials (and the agent's data directory under it) confined
    /// commands may not read, instead of this process's `$HOME`: for tests, and hosts that run
    /// the agent for another user.
    pub fn with_home(mut self, home: impl Into<PathBuf>) -> Self {
        self.home = Some(home.into());
        self
    }

    /// [`check_sandbox`] for this environment's commands: what it prepares (the Landlock ruleset,
    /// the seccomp filters) is kept for them, so the check before a run's first model call is
    /// also the first command's preparation.
    pub fn check_sandbox(&self, policy: &openagent_core::sandbox::SandboxPolicy) -> Result<(), String> {
        confined::check(policy, &self.root, exec::namespaces_available(), Some((&self.prepared, self.home.as_ref())))
    }

    /// How this environment's commands are supervised when they are not confined (a confined
    /// command always runs in namespaces of its own).
    pub fn supervision(&self) -> Supervision {
        self.supervision.unwrap_or_else(Supervision::detect)
    }

    /// A command or a program of the host's, in the working directory (or the one `options`
    /// names), with the environment's variables and, under a confining policy, its confinement.
    async fn exec(&self, program: exec::Program<'_>, options: &ExecOptions) -> Result<ExecResult, EnvError> {
        let dir = match &options.working_dir {
            Some(dir) => self.resolve(dir)?,
            None => self.working_dir.clone(),
        };
        if !dir.is_dir() {
            return Err(EnvError::NotADirectory(show(&dir)));
        }
        let mut vars = vars::command_vars(self.policy, &self.pass, std::env::vars_os(), options.env_vars.iter().flatten());
        // The working directory, not the command's, is the writable root.
        let confinement = match options.sandbox.as_ref().filter(|policy| policy.confines()) {
            Some(policy) => {
                Some(Arc::new(self.prepared.get(policy, &self.root, self.home.as_ref(), exec::namespaces_available())?))
            }
            None => None,
        };
        if let Some(confined) = &confinement {
            vars.extend(confined::vars(confined));
        }
        exec::run(program, &dir, vars, options, None, self.supervision(), confinement).await
    }

    fn resolve(&self, path: &str) -> Result<PathBuf, EnvError> {
        let invalid = |reason: &str| EnvError::InvalidPath { path: path.to_owned(), reason: reason.to_owned() };
        if path.is_empty() {
            return Err(invalid("the path is empty; use . for the working directory"));
        }
        if path.contains('\0') {
            return Err(invalid("the path contains a NUL character"));
        }
        Ok(normalize(&self.working_dir.join(path)))
    }

    /// `path` resolved for a change: inside the working directory once every symlink is followed
    /// (the last one too when `follow_last`), or an error naming the path and the boundary.
    fn resolve_inside(&self, path: &str, follow_last: bool) -> Result<PathBuf, EnvError> {
        files::confine(&self.root, &self.resolve(path)?, follow_last)
    }
}

/// Removes `.` and resolves `..` lexically, as the in-memory environment does, so that
/// `missing/../file` works and shown paths stay clean.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

fn show(path: &Path) -> String {
    path.display().to_string()
}

/// Maps an I/O error to the environment's kinds, naming `path`.
fn io_error(err: io::Error, path: &str) -> EnvError {
    match err.kind() {
        io::ErrorKind::NotFound => EnvError::NotFound(path.to_owned()),
        io::ErrorKind::PermissionDenied => EnvError::PermissionDenied(path.to_owned()),
        io::ErrorKind::IsADirectory => EnvError::IsADirectory(path.to_owned()),
        io::ErrorKind::NotADirectory => EnvError::NotADirectory(path.to_owned()),
        _ => EnvError::Io(format!("{path}: {err}")),
    }
}

/// Text content, or `None` for binary content: a NUL byte or invalid UTF-8 (as in openagent-memenv).
fn as_text(bytes: &[u8]) -> Option<&str> {
    // Vectorised (memchr, simdutf8): grep passes every byte of every file through both.
    match memchr::memchr(0, bytes) {
        Some(_) => None,
        None => simdutf8::basic::from_utf8(bytes).ok(),
    }
}

/// The first existing ancestor of `path` that is not a directory: what blocks creating it.
fn blocking_file(path: &Path) -> Option<PathBuf> {
    path.ancestors().skip(1).find(|dir| dir.exists()).filter(|dir| !dir.is_dir()).map(Path::to_path_buf)
}

fn list(dir: &Path, prefix: &str, depth: usize, out: &mut Vec<DirEntry>) -> Result<(), EnvError> {
    let shown = show(dir);
    let mut entries: Vec<(String, fs::Metadata)> = Vec::new();
    for entry in fs::read_dir(dir).map_err(|err| io_error(err, &shown))? {
        let entry = entry.map_err(|err| io_error(err, &shown))?;
        // Follow symlinks as `stat` does; a dangling link is shown as what it is.
        let meta = match fs::metadata(entry.path()) {
            Ok(meta) => meta,
            Err(_) => entry.metadata().map_err(|err| io_error(err, &shown))?,
        };
        entries.push((entry.file_name().to_string_lossy().into_owned(), meta));
    }
    entries.sort_by(|(a, _), (b, _)| a.cmp(b));
    for (name, meta) in entries {
        let rel = if prefix.is_empty() { name.clone() } else { format!("{prefix}/{name}") };
        let is_dir = meta.is_dir();
        out.push(DirEntry { name: rel.clone(), is_dir, size: (!is_dir).then_some(meta.len()) });
        if is_dir && depth > 1 {
            list(&dir.join(&name), &rel, depth - 1, out)?;
        }
    }
    Ok(())
}

#[async_trait(?Send)]
impl ExecutionEnvironment for LocalEnvironment {
    async fn read_file(&self, path: &str, offset: Option<usize>, limit: Option<usize>) -> Result<String, EnvError> {
        let abs = self.resolve(path)?;
        let bytes = match (offset, limit) {
            (None, None) => files::read_all(&abs)?,
            _ => files::read_lines(&abs, offset.unwrap_or(1).max(1), limit.unwrap_or(usize::MAX))?,
        };
        // What `as_text` decides, keeping the bytes without a copy: they may be 16 MiB.
        match memchr::memchr(0, &bytes) {
            Some(_) => Err(EnvError::BinaryFile(show(&abs))),
            None => String::from_utf8(bytes).map_err(|_| EnvError::BinaryFile(show(&abs))),
        }
    }

    async fn read_bytes(&self, path: &str) -> Result<Vec<u8>, EnvError> {
        files::read_all(&self.resolve(path)?)
    }

    async fn write_file(&self, path: &str, content: &str) -> Result<(), EnvError> {
        // A symlink inside is followed to its target, which must be inside too; writing there
        // rather than over the link keeps the link.
        let abs = self.resolve_inside(path, true)?;
        if let Some(parent) = abs.parent() {
            if let Err(err) = fs::create_dir_all(parent) {
                return Err(match blocking_file(&abs) {
                    Some(file) => EnvError::NotADirectory(show(&file)),
                    None => io_error(err, &show(parent)),
                });
            }
        }
        if abs.is_dir() {
            return Err(EnvError::IsADirectory(show(&abs)));
        }
        files::write_atomically(&abs, content.as_bytes()).map_err(|err| io_error(err, &show(&abs)))
    }

    async fn remove_file(&self, path: &str) -> Result<(), EnvError> {
        let abs = self.resolve_inside(path, false)?;
        let shown = show(&abs);
        if fs::symlink_metadata(&abs).map_err(|err| io_error(err, &shown))?.is_dir() {
            return Err(EnvError::IsADirectory(shown));
        }
        fs::remove_file(&abs).map_err(|err| io_error(err, &shown))
    }

    async fn stat(&self, path: &str) -> Result<FileInfo, EnvError> {
        let abs = self.resolve(path)?;
        let meta = fs::metadata(&abs).map_err(|err| io_error(err, &show(&abs)))?;
        let modified_ms = meta.modified().ok().and_then(|time| time.duration_since(UNIX_EPOCH).ok());
        Ok(FileInfo {
            is_dir: meta.is_dir(),
            size: if meta.is_dir() { 0 } else { meta.len() },
            modified_ms: modified_ms.map(|since| since.as_millis() as u64),
        })
    }

    async fn list_directory(&self, path: &str, depth: usize) -> Result<Vec<DirEntry>, EnvError> {
        let abs = self.resolve(path)?;
        let shown = show(&abs);
        if !fs::metadata(&abs).map_err(|err| io_error(err, &shown))?.is_dir() {
            return Err(EnvError::NotADirectory(shown));
        }
        let mut out = Vec::new();
        // Depth 0 would list nothing, which is never what a caller wants.
        list(&abs, "", depth.max(1), &mut out)?;
        Ok(out)
    }

    async fn exec_command(&self, command: &str, options: &ExecOptions) -> Result<ExecResult, EnvError> {
        self.exec(exec::Program::Shell(command), options).await
    }

    async fn exec_program(&self, program: &str, args: &[&str], options: &ExecOptions) -> Result<ExecResult, EnvError> {
        self.exec(exec::Program::Direct { program, args }, options).await
    }

    async fn grep(&self, pattern: &str, path: &str, options: &GrepOptions) -> Result<String, EnvError> {
        grep::grep(&self.working_dir, &self.resolve(path)?, pattern, options)
    }

    async fn glob(&self, pattern: &str, path: &str) -> Result<Vec<String>, EnvError> {
        search::glob(&self.working_dir, &self.resolve(path)?, pattern)
    }

    /// Through the real filesystem, as reads and writes reach it: `..` folded by name first (as
    /// every operation here does), then the symlinks followed.
    async fn canonical_path(&self, path: &str) -> Result<String, EnvError> {
        files::real_path(&self.resolve(path)?, true, &self.root).map(|real| show(&real))
    }

    fn scoped(&self, working_dir: &str) -> Result<Rc<dyn ExecutionEnvironment>, EnvError> {
        // A subagent's directory is inside this one, so that scoping cannot widen the boundary.
        let dir = self.resolve_inside(working_dir, true)?;
        let scoped =
            Self { supervision: self.supervision, home: self.home.clone(), ..Self::new(dir)?.with_env_policy(self.policy) };
        Ok(Rc::new(scoped.with_env_pass(self.pass.clone())))
    }

    fn working_directory(&self) -> String {
        show(&self.working_dir)
    }

    /// `linux`, `macos`, ... as Rust names them.
    fn platform(&self) -> String {
        std::env::consts::OS.into()
    }

    /// The kernel release (`uname -r`), or the OS name when it cannot be read.
    fn os_version(&self) -> String {
        kernel_release().map_or_else(|| std::env::consts::OS.to_owned(), |release| format!("{} {release}", std::env::consts::OS))
    }
}

fn kernel_release() -> Option<String> {
    // SAFETY: `uname` fills the zeroed struct it is given; its fields are NUL-terminated.
    let mut name: libc::utsname = unsafe { std::mem::zeroed() };
    if unsafe { libc::uname(&mut name) } != 0 {
        return None;
    }
    let release = unsafe { std::ffi::CStr::from_ptr(name.release.as_ptr()) };
    Some(release.to_string_lossy().into_owned())
}

/// Whether this machine can enforce `policy` for the commands of an environment on `cwd`, checked
/// before a run's first model call so that a policy the kernel cannot enforce refuses the run
/// instead of running commands unconfined. The error names what is missing and what to give
/// (`--sandbox full-access` among it); a writable root that does not exist or is a symlink is
/// refused too. `full-access` always passes.
pub fn check_sandbox(policy: &openagent_core::sandbox::SandboxPolicy, cwd: &Path) -> Result<(), String> {
    confined::check(policy, cwd, exec::namespaces_available(), None)
}
