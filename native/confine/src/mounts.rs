//! Mounts in the command's own mount namespace: what Landlock cannot say. Landlock grants writes
//! beneath a root and cannot take them back below it, so the [`PROTECTED`] paths inside a root
//! (git's config and hooks, which would run code outside the sandbox later; the agent's and the
//! shell's start-up files) are bound read-only over themselves. Landlock handles only writes, so
//! the [`READ_DENIED`] keys and credentials under the home, and the agent's data directory, are
//! hidden: an empty read-only tmpfs over a directory, `/dev/null` over a file.
//!
//! The plan is made in the agent, which may allocate and `stat`; the namespace's init, after it
//! made every mount private (nothing here reaches the agent's namespace) and before any Landlock
//! domain exists (one forbids mount changes), carries it out with bare `mount` calls.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use openagent_core::sandbox::{PROTECTED, READ_DENIED};

/// One mount the init makes.
#[derive(Debug)]
enum Mount {
    /// `path` bound over itself, then made read-only, keeping the flags its mount has (a user
    /// namespace may not clear nosuid, nodev or noexec on a mount it was given).
    ReadOnly { path: CString, kept: libc::c_ulong },
    /// An empty read-only tmpfs over a directory.
    EmptyDir { path: CString },
    /// `/dev/null` bound read-only over a file.
    NullFile { path: CString, kept: libc::c_ulong },
}

/// The mounts of one confinement, in the order they are made.
#[derive(Debug, Default)]
pub struct Mounts {
    mounts: Vec<Mount>,
}

impl Mounts {
    /// The protected paths that exist inside the writable `roots`, and the denied ones under
    /// `home`, with `data_dir`; a denied path that holds the working directory `cwd` or a root is
    /// left visible, or the command could not run.
    pub fn plan(roots: &[PathBuf], cwd: &Path, home: Option<&Path>, data_dir: Option<&Path>) -> Self {
        let mut mounts = Vec::new();
        for root in roots {
            for name in PROTECTED {
                let path = root.join(name);
                if std::fs::symlink_metadata(&path).is_ok() {
                    if let Some(path) = c_path(&path) {
                        mounts.push(Mount::ReadOnly { kept: kept_flags(&path), path });
                    }
                }
            }
        }
        let denied = home.into_iter().flat_map(|home| READ_DENIED.iter().map(move |name| home.join(name)));
        for path in denied.chain(data_dir.map(Path::to_path_buf)) {
            let Ok(meta) = std::fs::metadata(&path) else { continue };
            if cwd.starts_with(&path) || roots.iter().any(|root| root.starts_with(&path)) {
                continue;
            }
            let Some(c) = c_path(&path) else { continue };
            mounts.push(match meta.is_dir() {
                true => Mount::EmptyDir { path: c },
                false => Mount::NullFile { kept: kept_flags(&c), path: c },
            });
        }
        Self { mounts }
    }

    /// Makes the mounts. Stops at the first refused, which the command must then not run past.
    ///
    /// # Safety
    /// Async-signal-safe (bare `mount` calls on prepared strings); only in a mount namespace of the
    /// command's own whose mounts are private.
    pub unsafe fn apply(&self) -> std::io::Result<()> {
        let none = std::ptr::null();
        let check = |result: libc::c_int| match result {
            -1 => Err(std::io::Error::last_os_error()),
            _ => Ok(()),
        };
        for mount in &self.mounts {
            match mount {
                Mount::ReadOnly { path, kept } => {
                    check(libc::mount(path.as_ptr(), path.as_ptr(), none, libc::MS_BIND | libc::MS_REC, none.cast()))?;
                    read_only(path, *kept)?;
                }
                Mount::EmptyDir { path } => {
                    let flags = libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
                    let data = c"mode=0755";
                    check(libc::mount(c"tmpfs".as_ptr(), path.as_ptr(), c"tmpfs".as_ptr(), flags, data.as_ptr().cast()))?;
                }
                Mount::NullFile { path, kept } => {
                    check(libc::mount(c"/dev/null".as_ptr(), path.as_ptr(), none, libc::MS_BIND, none.cast()))?;
                    read_only(path, *kept)?;
                }
            }
        }
        Ok(())
    }
}

unsafe fn read_only(path: &CString, kept: libc::c_ulong) -> std::io::Result<()> {
    let flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY | kept;
    match libc::mount(std::ptr::null(), path.as_ptr(), std::ptr::null(), flags, std::ptr::null()) {
        -1 => Err(std::io::Error::last_os_error()),
        _ => Ok(()),
    }
}

fn c_path(path: &Path) -> Option<CString> {
    CString::new(path.as_os_str().as_bytes()).ok()
}

/// The flags of the mount `path` is on that a remount must repeat (a user namespace may not drop them).
fn kept_flags(path: &CString) -> libc::c_ulong {
    // SAFETY: statvfs writes only the struct it is given.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statvfs(path.as_ptr(), &mut stat) } != 0 {
        return 0;
    }
    let pairs = [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ];
    pairs.into_iter().filter(|(st, _)| stat.f_flag & st != 0).fold(0, |flags, (_, ms)| flags | ms)
}
