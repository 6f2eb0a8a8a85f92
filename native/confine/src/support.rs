//! What this machine lacks to confine commands: Landlock, seccomp, and the namespaces a command
//! runs in (which, for a user other than root, need user namespaces). Asked before a run's first
//! model call, so that a policy the kernel cannot enforce refuses the run instead of running
//! commands unconfined.
//!
//! [`PRETEND_MISSING`] is the test seam: `OPENAGENT_CONFINE_PRETEND_MISSING=landlock` (or
//! `user-namespaces`, or both, comma-separated) makes this process behave as if the kernel
//! lacked them, here and in [`Confinement::prepare`](crate::Confinement::prepare).

use std::path::{Path, PathBuf};

use crate::ConfineError;

/// The variable that pretends parts are missing: `landlock`, `user-namespaces`, comma-separated.
pub const PRETEND_MISSING: &str = "OPENAGENT_CONFINE_PRETEND_MISSING";

/// Whether [`PRETEND_MISSING`] names `part`.
pub(crate) fn pretends_missing(part: &str) -> bool {
    std::env::var(PRETEND_MISSING).is_ok_and(|parts| parts.split(',').any(|named| named.trim() == part))
}

/// The Landlock ABI the kernel has (0: none), or 0 when the seam pretends it has none.
pub fn landlock_abi() -> i32 {
    if pretends_missing("landlock") {
        return 0;
    }
    kernel_landlock_abi()
}

#[cfg(target_os = "linux")]
fn kernel_landlock_abi() -> i32 {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with this flag and no attributes the call only returns the ABI version.
    let abi = unsafe {
        libc::syscall(libc::SYS_landlock_create_ruleset, std::ptr::null::<u8>(), 0usize, LANDLOCK_CREATE_RULESET_VERSION)
    };
    abi.max(0) as i32
}

#[cfg(not(target_os = "linux"))]
fn kernel_landlock_abi() -> i32 {
    0
}

#[cfg(target_os = "linux")]
fn has_seccomp() -> bool {
    // SAFETY: PR_GET_SECCOMP only reads this thread's mode; EINVAL means no seccomp in the kernel.
    unsafe { libc::prctl(libc::PR_GET_SECCOMP, 0, 0, 0, 0) != -1 }
}

#[cfg(not(target_os = "linux"))]
fn has_seccomp() -> bool {
    false
}

/// Whether commands can be confined here, given whether the host could make a command's
/// namespaces (`namespaces`: its own probe); the error names every missing part.
pub fn check_support(namespaces: bool) -> Result<(), ConfineError> {
    let mut missing = Vec::new();
    if cfg!(not(target_os = "linux")) {
        missing.push("no Linux kernel (confinement uses Linux's Landlock, seccomp and namespaces)");
    }
    if landlock_abi() < 1 {
        missing.push("no Landlock (it needs Linux 5.13 or later with `landlock` in the kernel's `lsm=` list)");
    }
    if !has_seccomp() {
        missing.push("no seccomp (a kernel built without CONFIG_SECCOMP_FILTER)");
    }
    if !namespaces || pretends_missing("user-namespaces") {
        missing.push(
            "no user namespaces (each command needs PID and mount namespaces of its own; allow them with \
             `sysctl kernel.unprivileged_userns_clone=1` or `user.max_user_namespaces`, or an AppArmor profile that permits them)",
        );
    }
    match missing.is_empty() {
        true => Ok(()),
        false => Err(ConfineError::Unsupported { missing: missing.join(", ") }),
    }
}

/// `path` with its symlinks resolved, if it is a directory.
pub(crate) fn real_dir(path: &Path) -> Result<PathBuf, ConfineError> {
    let bad = |reason: &str| ConfineError::BadRoot { path: path.display().to_string(), reason: reason.into() };
    match std::fs::canonicalize(path) {
        Ok(real) if real.is_dir() => Ok(real),
        Ok(_) => Err(bad("is not a directory")),
        Err(_) => Err(bad("does not exist")),
    }
}

/// A configured writable root: an existing directory, and no symlink (whose target could change
/// between the check and the command).
pub fn check_root(root: &Path) -> Result<PathBuf, ConfineError> {
    let bad = |reason: &str| ConfineError::BadRoot { path: root.display().to_string(), reason: reason.into() };
    match std::fs::symlink_metadata(root) {
        Err(_) => Err(bad("does not exist")),
        Ok(meta) if meta.file_type().is_symlink() => Err(bad("is a symlink")),
        Ok(meta) if !meta.is_dir() => Err(bad("is not a directory")),
        Ok(_) => real_dir(root),
    }
}
