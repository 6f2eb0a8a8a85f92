//! Temporary directories for `LocalEnvironment`, and checks that processes are gone, for the tests
//! of the native host and of the CLI.

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use openagent_host::LocalEnvironment;

/// A fresh directory under the system's temp dir, removed when dropped.
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new() -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let name = format!("openagent-local-env-{}-{}", std::process::id(), NEXT.fetch_add(1, Ordering::SeqCst));
        let dir = std::env::temp_dir().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    pub fn env(&self) -> LocalEnvironment {
        LocalEnvironment::new(&self.0).unwrap()
    }
}

impl Default for TempDir {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Whether a process is running. A killed process whose parent is gone may stay a zombie until
/// PID 1 reaps it (containers often never do), so zombies do not count where /proc shows them.
pub fn running(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')),
        // SAFETY: signal 0 only checks that the process exists.
        Err(_) => unsafe { libc::kill(pid, 0) == 0 },
    }
}

fn wait_for(within: Duration, done: impl Fn() -> bool) -> bool {
    let until = Instant::now() + within;
    while !done() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    done()
}

pub fn wait_until_gone(pid: i32, within: Duration) -> bool {
    wait_for(within, || !running(pid))
}

/// Waits until no process of the group `pgid` is left: `kill(-pgid, 0)` fails with ESRCH, or
/// (where /proc shows them) every member left is a zombie that PID 1 has yet to reap.
pub fn wait_until_group_gone(pgid: i32, within: Duration) -> bool {
    wait_for(within, || {
        // SAFETY: signal 0 only checks for existence; a negative pid addresses the group.
        let result = unsafe { libc::kill(-pgid, 0) };
        let no_group = result == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH);
        no_group || group_members(pgid).is_some_and(|members| members.into_iter().all(|pid| !running(pid)))
    })
}

/// The processes of the group `pgid`, from /proc; `None` where it cannot be read.
fn group_members(pgid: i32) -> Option<Vec<i32>> {
    let members = std::fs::read_dir("/proc").ok()?.flatten().filter_map(|process| {
        let pid = process.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(process.path().join("stat")).ok()?;
        // `pid (name) state ppid pgrp ...`
        let pgrp: i32 = stat.rsplit_once(')')?.1.split_whitespace().nth(2)?.parse().ok()?;
        (pgrp == pgid).then_some(pid)
    });
    Some(members.collect())
}

/// The running processes whose arguments are exactly `sleep <seconds>`.
pub fn sleepers(seconds: &str) -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    let wanted = format!("sleep\0{seconds}\0");
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
            let cmdline = std::fs::read(entry.path().join("cmdline")).ok()?;
            (cmdline == wanted.as_bytes() && running(pid)).then_some(pid)
        })
        .collect()
}

/// Fails when a `sleep <seconds>` still runs a moment after the tool returned, killing it first so
/// that no test leaves a process behind.
pub fn assert_no_survivor(seconds: &str) {
    let survivors = survivors_after(seconds, Duration::from_millis(500));
    assert!(survivors.is_empty(), "sleep {seconds} survived the command: {survivors:?}");
}

/// Waits up to `wait` for the `sleep <seconds>` processes to be gone, then kills and reaps any
/// left and returns their pids.
pub fn survivors_after(seconds: &str, wait: Duration) -> Vec<i32> {
    let until = Instant::now() + wait;
    while !sleepers(seconds).is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survivors = sleepers(seconds);
    kill_and_reap(&survivors);
    survivors
}

pub fn kill_and_reap(pids: &[i32]) {
    for &pid in pids {
        // SAFETY: kill and waitpid have no memory effects; the pid is a leftover of this test.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
            // The test process is the agent here, so an orphan may have been reparented to it.
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
    }
}
