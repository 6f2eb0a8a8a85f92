//! The watchdog: what ends a command's processes when the agent itself is killed (SIGKILL, the
//! OOM killer) and supervision dies with it, where commands are scanned for rather than held in
//! namespaces of their own. The shell dies too (its parent-death signal), but what it started,
//! background jobs, `setsid` daemons, double forks, would be orphaned to PID 1 and run on.
//!
//! One small process per agent, started at its first scanned command: a fork of the agent,
//! blocked reading a pipe whose only write end the agent holds (close-on-exec, so no command
//! inherits it). However the agent ends, the kernel closes that end; the watchdog's read then
//! sees end of file, and it SIGKILLs every process whose environment still carries
//! `OPENAGENT_COMMAND_ID=<agent pid>.`, the marker all of a command's processes inherit, and
//! exits. An agent that leaves normally has ended its commands already (`signals::end_commands`): it writes
//! a byte first, and the watchdog exits without looking at a single process.
//!
//! It is a fork, not a program: starting it costs a fork, not an exec and a shell's start. A
//! forked copy of a multithreaded process may only make async-signal-safe calls, so it makes
//! system calls alone, on buffers allocated before the fork. It leads a session of its own, so
//! the signals of the agent's terminal and process group do not reach it; it holds neither the
//! terminal nor a command's pipes (stdin is the pipe, stdout and stderr /dev/null, every other
//! descriptor closed). Linux only: it reads /proc.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::sync::{Mutex, PoisonError};

/// How the watchdog shows in `ps` (its command line is still the agent's): at most 15 bytes.
const NAME: &std::ffi::CStr = c"openagent-watch";

/// Rounds of killing: a round that killed something is followed by another, for children forked
/// while it ran; bounded, so that a process that will not die does not keep it looping.
const ROUNDS: usize = 8;

/// The write end of the running watchdog's pipe, held until the agent ends or says all ended.
static ALIVE: Mutex<Option<OwnedFd>> = Mutex::new(None);

/// Starts the agent's watchdog unless it runs already. When it cannot start, commands run as
/// before: killing the agent then leaves what they started running.
pub(super) fn start() {
    let mut alive = ALIVE.lock().unwrap_or_else(PoisonError::into_inner);
    if alive.is_none() {
        *alive = spawn();
        crate::signals::when_all_ended(all_ended);
    }
}

/// Tells the watchdog that every command has ended under its supervision, so there is nothing
/// for it to look for: it exits at once. For the agent leaving normally; a command started after
/// this starts a new watchdog.
fn all_ended() {
    if let Some(write) = ALIVE.lock().unwrap_or_else(PoisonError::into_inner).take() {
        // SAFETY: writes one byte from a live buffer to a descriptor we own.
        unsafe { libc::write(write.as_raw_fd(), b"0".as_ptr().cast(), 1) };
    }
}

/// What the watchdog needs after the fork, made before it: it cannot allocate there.
struct Prepared {
    read: OwnedFd,
    null: OwnedFd,
    /// `\0OPENAGENT_COMMAND_ID=<agent pid>.`: a variable of the environment as /proc shows it,
    /// NUL-separated, behind a NUL that stands for the start.
    needle: Vec<u8>,
    /// getdents64 records of /proc.
    entries: Vec<u8>,
    /// One environment, read in pieces, behind the last `needle.len()` bytes of the piece before.
    environ: Vec<u8>,
    own_pid: libc::pid_t,
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
    // SAFETY: a path literal; the descriptor, when opened, is ours alone.
    let null = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if null < 0 {
        return None;
    }
    // The dot ends the pid: pid 12 does not match 123.
    let needle = format!("\0{}={}.", super::MARKER, std::process::id()).into_bytes();
    let prepared = Prepared {
        read,
        // SAFETY: just opened, owned by nothing else.
        null: unsafe { OwnedFd::from_raw_fd(null) },
        environ: vec![0; needle.len() + 64 * 1024],
        needle,
        entries: vec![0; 32 * 1024],
        own_pid: 0,
    };
    // SAFETY: the child makes only system calls on `prepared`, allocated before the fork, and
    // exits without returning.
    match unsafe { libc::syscall(libc::SYS_clone, libc::SIGCHLD as libc::c_ulong, 0, 0, 0, 0) } {
        -1 => None,
        0 => unsafe { watch(prepared) },
        // Never waited for: it exits only once the agent has, or has said all ended, and the
        // agent, a child subreaper, reaps it with the other orphans it finds (or init does).
        _ => Some(write),
    }
}

/// The forked watchdog: its own session, its descriptors set, then one read of the pipe.
///
/// # Safety
/// Only in the child of the fork in [`spawn`].
unsafe fn watch(mut prepared: Prepared) -> ! {
    libc::setsid();
    // It may outlive the agent for a moment: it keeps no directory of the agent's busy.
    libc::chdir(c"/".as_ptr());
    libc::prctl(libc::PR_SET_NAME, NAME.as_ptr() as libc::c_ulong, 0, 0, 0);
    // The agent's handlers are the agent's: here a signal does what it does to any process.
    for signal in 1..32 {
        if signal != libc::SIGKILL && signal != libc::SIGSTOP {
            libc::signal(signal, libc::SIG_DFL);
        }
    }
    let mut none: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut none);
    libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
    libc::dup2(prepared.read.as_raw_fd(), 0);
    libc::dup2(prepared.null.as_raw_fd(), 1);
    libc::dup2(prepared.null.as_raw_fd(), 2);
    libc::syscall(libc::SYS_close_range, 3 as libc::c_uint, libc::c_uint::MAX, 0 as libc::c_uint);
    prepared.own_pid = libc::getpid();
    let mut byte = 0u8;
    let ended = loop {
        match libc::read(0, (&mut byte as *mut u8).cast(), 1) {
            // The agent said all its commands ended: nothing to look for.
            1 => break false,
            -1 if *libc::__errno_location() == libc::EINTR => continue,
            // End of file (or the pipe broken): the agent is gone without saying so.
            _ => break true,
        }
    };
    if ended {
        for _ in 0..ROUNDS {
            if !kill_marked(&mut prepared) {
                break;
            }
        }
    }
    libc::_exit(0)
}

/// SIGKILLs every process whose environment carries the needle; whether it killed any.
unsafe fn kill_marked(prepared: &mut Prepared) -> bool {
    let proc_dir = libc::open(c"/proc".as_ptr(), libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC);
    if proc_dir < 0 {
        return false;
    }
    let mut killed = false;
    loop {
        let length = libc::syscall(libc::SYS_getdents64, proc_dir, prepared.entries.as_mut_ptr(), prepared.entries.len());
        if length <= 0 {
            break;
        }
        let mut at = 0;
        while at < length as usize {
            // struct linux_dirent64: u64 inode, i64 offset, u16 record length, u8 type, name.
            let record = &prepared.entries[at..];
            let size = u16::from_ne_bytes([record[16], record[17]]) as usize;
            if let Some(pid) = pid_of(&record[19..size]) {
                if pid != prepared.own_pid && carries_needle(prepared, pid) && libc::kill(pid, libc::SIGKILL) == 0 {
                    killed = true;
                }
            }
            at += size;
        }
    }
    libc::close(proc_dir);
    killed
}

/// The pid a /proc entry's NUL-terminated name is, if it is all digits.
fn pid_of(name: &[u8]) -> Option<libc::pid_t> {
    let name = &name[..name.iter().position(|&b| b == 0)?];
    if name.is_empty() || name.len() > 9 || !name.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(name.iter().fold(0, |pid, digit| pid * 10 + libc::pid_t::from(digit - b'0')))
}

/// Whether `/proc/<pid>/environ` holds the needle, read in pieces into the prepared buffer.
unsafe fn carries_needle(prepared: &mut Prepared, pid: libc::pid_t) -> bool {
    let mut path = *b"/proc/0000000000/environ\0";
    let mut digits = [0u8; 10];
    let (mut n, mut count) = (pid as u32, 0);
    loop {
        digits[count] = b'0' + (n % 10) as u8;
        count += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let mut end = 6;
    for i in (0..count).rev() {
        path[end] = digits[i];
        end += 1;
    }
    let tail = b"/environ\0";
    path[end..end + tail.len()].copy_from_slice(tail);
    let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return false;
    }
    let needle_length = prepared.needle.len();
    // The piece before ends in these bytes; at the start they stand for the NUL before the first
    // variable.
    let mut kept = 1;
    prepared.environ[0] = 0;
    let mut found = false;
    loop {
        let room = prepared.environ.len() - kept;
        let read = libc::read(fd, prepared.environ[kept..].as_mut_ptr().cast(), room);
        if read <= 0 {
            break;
        }
        let filled = kept + read as usize;
        if prepared.environ[..filled].windows(needle_length).any(|window| window == prepared.needle.as_slice()) {
            found = true;
            break;
        }
        kept = filled.min(needle_length - 1);
        prepared.environ.copy_within(filled - kept..filled, 0);
    }
    libc::close(fd);
    found
}
