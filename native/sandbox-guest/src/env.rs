//! [`WasiEnvironment`]: the core's `ExecutionEnvironment` over the directory the host preopened.
//!
//! Every operation works on a mirror: the directory is read into a core `MemoryEnvironment`, the
//! operation runs there (the same file tools, search and built-in shell as in a browser tab, not
//! a copy of them), and what it changed is written back through WASI. So commands see the real
//! files and leave their changes on disk, without a second shell. The price is reading the
//! directory for each operation, which suits the small trees a sandboxed agent is given; a tree
//! over [`MAX_MIRROR_BYTES`] is refused with a message saying so.
//!
//! Paths never leave [`WORKSPACE`]: `..` above `/` is refused by the core's resolution, and an
//! absolute path elsewhere (`/etc/passwd`) is refused here before anything is read. Under them
//! WASI enforces the same boundary again: only the preopened directory exists for the guest, and
//! a symlink that points out of it cannot be opened (such links are left out of the mirror).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::SystemTime;

use async_trait::async_trait;
use openagent_core::env::{DirEntry, EnvError, ExecOptions, ExecResult, ExecutionEnvironment, FileInfo, GrepOptions};
use openagent_core::Runtime;
use openagent_memenv::{resolve_path, MemoryEnvironment};

/// Where the preopened directory appears to the guest and to the model.
pub const WORKSPACE: &str = "/workspace";

/// The most file content one mirror holds: the guest's memory is capped by the host.
pub const MAX_MIRROR_BYTES: u64 = 64 * 1024 * 1024;

/// The preopened directory as an `ExecutionEnvironment`. Cheap to clone.
#[derive(Clone)]
pub struct WasiEnvironment {
    /// The directory [`WORKSPACE`] stands for: `/workspace` itself under WASI, any directory
    /// natively (the tests).
    root: PathBuf,
    /// Absolute, under [`WORKSPACE`].
    working_dir: String,
    runtime: Rc<dyn Runtime>,
}

/// The directory as read: the mirror and what it held, to tell afterwards what changed.
struct Mirror {
    memory: MemoryEnvironment,
    files: BTreeMap<String, Vec<u8>>,
    dirs: BTreeSet<String>,
}

fn io_error(path: &str, err: &io::Error) -> EnvError {
    match err.kind() {
        io::ErrorKind::NotFound => EnvError::NotFound(path.to_owned()),
        io::ErrorKind::PermissionDenied => EnvError::PermissionDenied(path.to_owned()),
        _ => EnvError::Io(format!("{path}: {err}")),
    }
}

impl WasiEnvironment {
    /// The environment over `root`, working in [`WORKSPACE`].
    pub fn new(root: impl Into<PathBuf>, runtime: Rc<dyn Runtime>) -> Self {
        Self { root: root.into(), working_dir: WORKSPACE.to_owned(), runtime }
    }

    /// `path` resolved against the working directory; an error unless it is inside [`WORKSPACE`].
    fn inside(&self, path: &str) -> Result<String, EnvError> {
        let abs = resolve_path(&self.working_dir, path)?;
        if abs == WORKSPACE || abs.starts_with(&format!("{WORKSPACE}/")) {
            Ok(abs)
        } else {
            Err(EnvError::PermissionDenied(format!("{abs} is outside the sandbox; only {WORKSPACE} can be used")))
        }
    }

    /// The real path of a path under [`WORKSPACE`].
    fn real(&self, abs: &str) -> PathBuf {
        let rel = abs.strip_prefix(WORKSPACE).unwrap_or(abs).trim_start_matches('/');
        if rel.is_empty() {
            self.root.clone()
        } else {
            self.root.join(rel)
        }
    }

    /// Reads the directory into a fresh mirror, oldest file first so that the mirror's
    /// modification order (which `glob` sorts by) follows the real one.
    fn mirror(&self) -> Result<Mirror, EnvError> {
        let mut files = Vec::new();
        let mut dirs = BTreeSet::from([WORKSPACE.to_owned()]);
        let mut total = 0u64;
        self.walk(&self.root, WORKSPACE, &mut files, &mut dirs, &mut total)?;
        files.sort_by(|(a_time, a_path, _), (b_time, b_path, _)| a_time.cmp(b_time).then_with(|| a_path.cmp(b_path)));
        let memory = MemoryEnvironment::new(self.runtime.clone());
        for dir in &dirs {
            memory.mkdir_p(dir)?;
        }
        for (_, path, bytes) in &files {
            memory.write_bytes(path, bytes)?;
        }
        let memory = memory.with_working_directory(&self.working_dir)?;
        let files = files.into_iter().map(|(_, path, bytes)| (path, bytes)).collect();
        Ok(Mirror { memory, files, dirs })
    }

    fn walk(
        &self,
        real: &Path,
        shown: &str,
        files: &mut Vec<(SystemTime, String, Vec<u8>)>,
        dirs: &mut BTreeSet<String>,
        total: &mut u64,
    ) -> Result<(), EnvError> {
        let entries = fs::read_dir(real).map_err(|e| io_error(shown, &e))?;
        for entry in entries {
            let entry = entry.map_err(|e| io_error(shown, &e))?;
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else { continue };
            let path = format!("{shown}/{name}");
            let Ok(kind) = entry.file_type() else { continue };
            // A symlink is followed only to a file, and only where WASI lets it be opened: one
            // pointing out of the directory fails here and is left out. Linked directories are
            // left out too, so that a link cycle cannot make the walk endless.
            let metadata = if kind.is_symlink() { fs::metadata(entry.path()) } else { entry.metadata() };
            let Ok(metadata) = metadata else { continue };
            if metadata.is_dir() {
                if !kind.is_symlink() {
                    dirs.insert(path.clone());
                    self.walk(&entry.path(), &path, files, dirs, total)?;
                }
                continue;
            }
            *total += metadata.len();
            if *total > MAX_MIRROR_BYTES {
                return Err(EnvError::Unsupported(format!(
                    "a sandbox directory holding more than {} MB of files",
                    MAX_MIRROR_BYTES / (1024 * 1024)
                )));
            }
            let Ok(bytes) = fs::read(entry.path()) else { continue };
            files.push((metadata.modified().unwrap_or(SystemTime::UNIX_EPOCH), path, bytes));
        }
        Ok(())
    }

    /// Writes what changed in the mirror back to the directory: new directories, then new and
    /// changed files, then removed files and, deepest first, removed directories.
    async fn write_back(&self, mirror: &Mirror) -> Result<(), EnvError> {
        let entries = mirror.memory.list_directory(WORKSPACE, usize::MAX).await?;
        let mut dirs = BTreeSet::from([WORKSPACE.to_owned()]);
        let mut files = BTreeSet::new();
        for entry in entries {
            let path = format!("{WORKSPACE}/{}", entry.name);
            if entry.is_dir {
                dirs.insert(path);
            } else {
                files.insert(path);
            }
        }
        for dir in dirs.difference(&mirror.dirs) {
            fs::create_dir_all(self.real(dir)).map_err(|e| io_error(dir, &e))?;
        }
        for file in &files {
            let bytes = mirror.memory.read_bytes_sync(file)?;
            if mirror.files.get(file) != Some(&bytes) {
                fs::write(self.real(file), &bytes).map_err(|e| io_error(file, &e))?;
            }
        }
        for file in mirror.files.keys().filter(|file| !files.contains(*file)) {
            match fs::remove_file(self.real(file)) {
                Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(io_error(file, &e)),
                _ => {}
            }
        }
        let removed: Vec<&String> = mirror.dirs.difference(&dirs).collect();
        for dir in removed.into_iter().rev() {
            // A directory may still hold what the mirror left out (a symlink): it stays.
            let _ = fs::remove_dir(self.real(dir));
        }
        Ok(())
    }
}

#[async_trait(?Send)]
impl ExecutionEnvironment for WasiEnvironment {
    async fn read_file(&self, path: &str, offset: Option<usize>, limit: Option<usize>) -> Result<String, EnvError> {
        let abs = self.inside(path)?;
        self.mirror()?.memory.read_file(&abs, offset, limit).await
    }

    async fn read_bytes(&self, path: &str) -> Result<Vec<u8>, EnvError> {
        let abs = self.inside(path)?;
        self.mirror()?.memory.read_bytes(&abs).await
    }

    async fn write_file(&self, path: &str, content: &str) -> Result<(), EnvError> {
        let abs = self.inside(path)?;
        let mirror = self.mirror()?;
        mirror.memory.write_file(&abs, content).await?;
        self.write_back(&mirror).await
    }

    async fn remove_file(&self, path: &str) -> Result<(), EnvError> {
        let abs = self.inside(path)?;
        let mirror = self.mirror()?;
        mirror.memory.remove_file(&abs).await?;
        self.write_back(&mirror).await
    }

    async fn stat(&self, path: &str) -> Result<FileInfo, EnvError> {
        let abs = self.inside(path)?;
        self.mirror()?.memory.stat(&abs).await
    }

    async fn list_directory(&self, path: &str, depth: usize) -> Result<Vec<DirEntry>, EnvError> {
        let abs = self.inside(path)?;
        self.mirror()?.memory.list_directory(&abs, depth).await
    }

    async fn exec_command(&self, command: &str, options: &ExecOptions) -> Result<ExecResult, EnvError> {
        if let Some(dir) = &options.working_dir {
            self.inside(dir)?;
        }
        let mirror = self.mirror()?;
        let result = mirror.memory.exec_command(command, options).await?;
        self.write_back(&mirror).await?;
        Ok(result)
    }

    async fn grep(&self, pattern: &str, path: &str, options: &GrepOptions) -> Result<String, EnvError> {
        let abs = self.inside(path)?;
        self.mirror()?.memory.grep(pattern, &abs, options).await
    }

    async fn glob(&self, pattern: &str, path: &str) -> Result<Vec<String>, EnvError> {
        let abs = self.inside(path)?;
        self.mirror()?.memory.glob(pattern, &abs).await
    }

    fn scoped(&self, working_dir: &str) -> Result<Rc<dyn ExecutionEnvironment>, EnvError> {
        let dir = self.inside(working_dir)?;
        if !self.real(&dir).is_dir() {
            return Err(EnvError::NotADirectory(dir));
        }
        Ok(Rc::new(Self { working_dir: dir, ..self.clone() }))
    }

    fn working_directory(&self) -> String {
        self.working_dir.clone()
    }

    fn platform(&self) -> String {
        "wasi".into()
    }

    fn os_version(&self) -> String {
        "WASI preview 1 (sandboxed: one directory, no processes, no network)".into()
    }
}

#[cfg(test)]
#[path = "env_tests.rs"]
mod tests;
