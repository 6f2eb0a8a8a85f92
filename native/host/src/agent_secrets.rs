//! The agent's own secrets (provider keys, the serve token, passwords in URLs), kept from the
//! commands it runs. Leaving them out of a command's variables is not enough: a command could
//! read them from the agent itself, in `/proc/<agent pid>/environ` (the environment the agent
//! was started with, as it still lies in its memory) or through `/proc/<pid>/mem`.
//!
//! [`keep_from_commands`] makes the agent not dumpable, so only a process with CAP_SYS_PTRACE may
//! read its memory, and commands are started without that capability (`exec.rs`). A process of
//! the same user can still read the environ of one that is not dumpable on some kernels, and root
//! always owns the files that guard it, so the secret values are also moved out of the startup
//! environment and their original bytes overwritten: /proc shows `NAME=****`.

use std::ffi::OsString;

/// What [`keep_from_commands`] writes over a secret value's bytes.
const MASK: u8 = b'*';

/// Called first thing in `main`, while the process has a single thread (setting variables is
/// not safe once others may read them). Linux only; elsewhere it does nothing.
pub fn keep_from_commands() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: prctl with PR_SET_DUMPABLE reads no memory of ours; on failure (never on
        // Linux) the process stays as it was.
        unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0 as libc::c_ulong, 0, 0, 0) };
        let secrets: Vec<(OsString, OsString)> = std::env::vars_os()
            .filter(|(name, value)| name.to_str().is_some_and(|name| crate::local_env::is_secret(name, value)))
            .collect();
        if let Some(block) = startup_environment() {
            for (name, value) in &secrets {
                // A copy the C library allocates takes the variable's place, so the original
                // bytes are no longer read by anyone before they are overwritten.
                std::env::set_var(name, value);
                mask(block, name, value);
            }
        }
    }
}

/// Where the environment the process was started with lies: /proc/self/stat's `env_start` and
/// `env_end` (fields 50 and 51; the name in field 2 may hold spaces, so count after its `)`).
#[cfg(target_os = "linux")]
fn startup_environment() -> Option<(usize, usize)> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let mut fields = stat.rsplit_once(')')?.1.split_whitespace().skip(47);
    let start: usize = fields.next()?.parse().ok()?;
    let end: usize = fields.next()?.parse().ok()?;
    (start < end).then_some((start, end))
}

/// Overwrites the value of every `name=value` entry of the startup environment `block`.
#[cfg(target_os = "linux")]
fn mask((start, end): (usize, usize), name: &OsString, value: &OsString) {
    use std::os::unix::ffi::OsStrExt;
    let entry = [name.as_bytes(), b"=", value.as_bytes()].concat();
    // SAFETY: the kernel mapped [start, end) as part of the initial stack, readable and
    // writable for the life of the process; it is copied before anything is written.
    let copy = unsafe { std::slice::from_raw_parts(start as *const u8, end - start) }.to_vec();
    let mut offset = 0;
    for string in copy.split(|&byte| byte == 0) {
        if string == entry.as_slice() {
            let value_at = start + offset + name.len() + 1;
            // SAFETY: inside the block, over the value's own bytes only (the NUL after it stays).
            unsafe { std::ptr::write_bytes(value_at as *mut u8, MASK, value.len()) };
        }
        offset += string.len() + 1;
    }
}
