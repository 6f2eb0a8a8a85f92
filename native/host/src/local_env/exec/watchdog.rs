//! The watchdog: what ends a command's processes when the agent itself is killed (SIGKILL, the
//! OOM killer) and supervision dies with it. The shell dies too (its parent-death signal), but
//! what it started, background jobs, `setsid` daemons, double forks, would be orphaned to PID 1
//! and run on.
//!
//! One small process per agent, started at its first command: `/bin/sh` blocked reading a pipe
//! whose only write end the agent holds (close-on-exec, so no command inherits it). However the
//! agent ends, the kernel closes that end; the watchdog's read then sees end of file, and it
//! SIGKILLs every process whose environment still carries `OPENAGENT_COMMAND_ID=<agent pid>.`,
//! the marker all of a command's processes inherit, and exits. After a normal exit the commands
//! are gone already: it finds nothing and exits at once.
//!
//! It is a program of its own, not a fork of the agent, because a forked copy of a multithreaded
//! process may only make async-signal-safe calls. It leads a session of its own, so the signals
//! of the agent's terminal and process group do not reach it; it holds neither the terminal nor a
//! command's pipes (stdin is the pipe, stdout and stderr /dev/null, every other descriptor closed
//! at exec); its environment is `PATH` alone, so it carries no marker. Its cost is one spawn at
//! the first command, nothing per command. Linux only: it reads /proc.

use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// How the watchdog shows in `ps`: its shell's `$0`.
const NAME: &str = "openagent-watchdog";

/// Waits for end of input, then kills every process whose environment has a variable matching
/// `$1` exactly. A round that killed something is followed by another, for children forked while
/// it ran; the rounds are bounded so that a process that will not die does not keep it looping.
const SCRIPT: &str = r#"read -r _
for _ in 1 2 3 4 5 6 7 8; do
    killed=
    for environ in $(grep -lsxz -e "$1" /proc/[0-9]*/environ); do
        pid=${environ#/proc/}
        kill -KILL "${pid%/environ}" 2>/dev/null && killed=1
    done
    [ "$killed" ] || exit 0
done"#;

/// Starts the agent's watchdog unless it runs already. When it cannot start, commands run as
/// before: killing the agent then leaves what they started running.
pub(super) fn start() {
    /// The pipe's write end, held until the agent ends: its closing wakes the watchdog.
    static ALIVE: OnceLock<Option<OwnedFd>> = OnceLock::new();
    ALIVE.get_or_init(spawn);
}

/// Spawns the watchdog and returns the write end of its stdin.
fn spawn() -> Option<OwnedFd> {
    let mut fds = [0; 2];
    // SAFETY: `fds` has room for the two descriptors pipe2(2) writes.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return None;
    }
    // SAFETY: pipe2 has just opened both descriptors, and nothing else owns them.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    // The marker's value is `<agent pid>.<n>`: the dot is escaped, so pid 12 does not match 123.
    let marker = format!("{}={}\\.[0-9]*", super::MARKER, std::process::id());
    let mut watchdog = Command::new("/bin/sh");
    watchdog
        .args(["-c", SCRIPT, NAME, &marker])
        .env_clear()
        // It may outlive the agent for a moment: it keeps no directory of the agent's busy.
        .current_dir("/")
        .stdin(read)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(path) = std::env::var_os("PATH") {
        watchdog.env("PATH", path);
    }
    // SAFETY: between fork and exec the closure makes only system calls, which are
    // async-signal-safe, and touches no memory of ours.
    unsafe { watchdog.pre_exec(own_session_and_nothing_inherited) };
    // Never waited for: it exits only once the agent has, unless someone kills it.
    watchdog.spawn().ok()?;
    Some(write)
}

/// In the forked watchdog, before exec: a session of its own, and every descriptor above stderr
/// closed at exec, including those the agent inherited without close-on-exec (a jobserver pipe, a
/// terminal). Before Linux 5.11 (no close_range) those inherited ones stay open.
fn own_session_and_nothing_inherited() -> std::io::Result<()> {
    // SAFETY: setsid and close_range take no pointers.
    unsafe {
        if libc::setsid() == -1 {
            return Err(std::io::Error::last_os_error());
        }
        libc::syscall(libc::SYS_close_range, 3 as libc::c_uint, libc::c_uint::MAX, libc::CLOSE_RANGE_CLOEXEC);
    }
    Ok(())
}
