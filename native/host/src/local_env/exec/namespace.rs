//! A PID namespace per command (Linux): nothing a command starts can outlive it, by construction.
//!
//! A command leaves for new PID and mount namespaces, and a new user namespace when the agent is
//! not root (so any user can make the other two). The namespace's first process, its *init*,
//! mounts a `/proc` of the namespace (so `ps`, `pgrep` and `kill` inside agree on pids) and
//! starts the shell. However a process of the command detaches (`setsid`, a double fork, a
//! cleared environment), it stays in the namespace, and the kernel kills every process in it
//! when its init exits. The init exits when the shell has: it sends SIGTERM to what is left,
//! gives it [`GRACE`] to go, and exits, which SIGKILLs the rest.
//!
//! The model's commands are forked by the agent straight into their namespaces, the init being
//! the agent's child ([`super::spawn`]). A program started through `Command` (an MCP server a
//! sandbox policy confines) goes there from `pre_exec`, which can only make the namespaces for
//! the children of the process it runs in: that process, the *supervisor*, forks the init and
//! stays behind, waiting for it and mirroring its exit, so the caller's `Child` stays the
//! program's.
//!
//! ```text
//! agent ─ init (pid 1: reaps, ends the rest) ─ bash (pid 2) ─ …
//! agent ─ supervisor (waits, mirrors the exit) ─┬─ init ─ program (pid 2) ─ …
//!                                                 └─ the new PID namespace ─┘
//! ```
//!
//! The supervisor and the init are copies of the agent that never exec: a copy of a multithreaded
//! process may make only async-signal-safe calls, so both make system calls alone, on buffers
//! prepared before the fork. They hold no descriptor (each closes all of its own), so only the
//! command's processes hold its pipes. A signal to the command's group reaches the shell and its
//! jobs, which end, and the init follows; the init, pid 1 of its namespace, takes no signal it
//! has no handler for but SIGKILL, and the supervisor ignores SIGTERM, SIGINT, SIGHUP and
//! SIGQUIT. SIGKILL of the init or the supervisor (supervision's last resort, or the agent
//! dying: parent-death signals) ends the namespace.
//!
//! Where the kernel refuses (no user namespaces for this user, a seccomp filter), commands run
//! as before, and [`super::descendants`] finds what they leave behind by scanning /proc; a
//! confined command does not run at all.
//!
//! For a confined command the init also makes the confinement's mounts (read-only protected
//! paths, hidden keys) once the namespace's mounts are private and before forking the shell, so
//! that they hold for every process of the command and no Landlock domain yet forbids them. A
//! refused mount fails the command's start.

use std::sync::Arc;

use super::{Confined, GRACE};

/// What the supervisor needs between fork and exec, prepared before the fork: it cannot
/// allocate there.
pub(super) struct Namespaces {
    flags: libc::c_int,
    /// `<uid> <uid> 1`: the agent's user is itself in the new user namespace (empty for root,
    /// which needs no user namespace).
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    /// The confinement whose mounts the init makes.
    confinement: Option<Arc<Confined>>,
}

impl Namespaces {
    pub(super) fn new(confinement: Option<Arc<Confined>>) -> Self {
        // SAFETY: getuid, geteuid and getgid cannot fail and touch no memory.
        let (uid, euid, gid) = unsafe { (libc::getuid(), libc::geteuid(), libc::getgid()) };
        let mut flags = libc::CLONE_NEWPID | libc::CLONE_NEWNS;
        let (mut uid_map, mut gid_map) = (Vec::new(), Vec::new());
        if euid != 0 {
            flags |= libc::CLONE_NEWUSER;
            uid_map = format!("{uid} {uid} 1\n").into_bytes();
            gid_map = format!("{gid} {gid} 1\n").into_bytes();
        }
        Self { flags, uid_map, gid_map, confinement }
    }

    /// Run in the forked child, before exec: makes the namespaces and the init, and returns only
    /// in the shell (pid 2), for `Command` to exec it. An error (the namespaces refused, a fork
    /// failed) is returned before anything was forked, so `Command::spawn` reports it.
    ///
    /// # Safety
    /// Only between fork and exec: it never returns in the supervisor and the init, which exit.
    pub(super) unsafe fn enter(&self) -> std::io::Result<()> {
        self.unshare()?;
        match fork()? {
            0 => init(self.confinement.as_deref()),
            pid => supervise(pid),
        }
    }
}

impl Namespaces {
    /// Leaves for the new namespaces, mapping the agent's user into a new user namespace.
    ///
    /// # Safety
    /// Only in a forked child: the calling process's namespaces change.
    unsafe fn unshare(&self) -> std::io::Result<()> {
        if libc::unshare(self.flags) == -1 {
            return Err(std::io::Error::last_os_error());
        }
        self.map_user()
    }

    /// Forks a child into the new namespaces, as their init (pid 1): returns its pid, or 0 in
    /// the child, which must then call [`Namespaces::map_user`] before anything else.
    ///
    /// # Safety
    /// As fork: the child may make only async-signal-safe calls.
    pub(super) unsafe fn fork_init(&self) -> std::io::Result<libc::pid_t> {
        clone(self.flags)
    }

    /// In a process that has just entered a new user namespace: the agent's user (and group) are
    /// themselves in it. Nothing to do for root, which made no user namespace.
    ///
    /// # Safety
    /// Async-signal-safe: for between fork and exec.
    pub(super) unsafe fn map_user(&self) -> std::io::Result<()> {
        if !self.uid_map.is_empty() {
            write_file(c"/proc/self/uid_map", &self.uid_map)?;
            // Unprivileged, a group map may be written only once setgroups(2) is refused.
            write_file(c"/proc/self/setgroups", b"deny")?;
            write_file(c"/proc/self/gid_map", &self.gid_map)?;
        }
        Ok(())
    }

    /// The confinement whose mounts the init makes.
    pub(super) fn confinement(&self) -> Option<&Confined> {
        self.confinement.as_deref()
    }
}

/// The supervisor: waits for the init and exits as it did.
unsafe fn supervise(init: libc::pid_t) -> ! {
    name(c"openagent-cmd");
    ignore_stop_signals();
    close_all();
    libc::_exit(wait_status(init).map_or(127, exit_code))
}

/// `pid`'s wait status once it has exited, waiting through interruptions; none when it cannot
/// be waited for.
unsafe fn wait_status(pid: libc::pid_t) -> Option<libc::c_int> {
    loop {
        let mut status = 0;
        if libc::waitpid(pid, &mut status, 0) == pid {
            return Some(status);
        }
        if *libc::__errno_location() != libc::EINTR {
            return None;
        }
    }
}

/// The init, pid 1 of the namespace: returns in the shell it forks, and otherwise reaps every
/// process reparented to it until the shell exits, then ends the rest and exits as the shell did.
unsafe fn init(confinement: Option<&Confined>) -> std::io::Result<()> {
    // Dies with the supervisor, and takes the namespace with it. (Were the supervisor killed in
    // the moment before this, the init would run on until its shell exits.)
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0);
    mount_init(confinement)?;
    let shell = fork()?;
    if shell == 0 {
        return Ok(());
    }
    reap(shell)
}

/// The init's mounts, before it starts the shell: a `/proc` of the namespace, private to it
/// (without it, a `/proc` the kernel will not let a user namespace mount again, commands still
/// run; only pids in /proc are the host's), and the confinement's, only where they cannot reach
/// the agent's namespace.
///
/// # Safety
/// Only in a namespace's init, before it forks the shell.
pub(super) unsafe fn mount_init(confinement: Option<&Confined>) -> std::io::Result<()> {
    let none = std::ptr::null();
    let private = libc::mount(none, c"/".as_ptr(), none, libc::MS_REC | libc::MS_PRIVATE, std::ptr::null()) == 0;
    if private {
        let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
        libc::mount(c"proc".as_ptr(), c"/proc".as_ptr(), c"proc".as_ptr(), flags, std::ptr::null());
    }
    if let Some(confinement) = confinement {
        if !private {
            return Err(std::io::Error::last_os_error());
        }
        confinement.mount()?;
    }
    Ok(())
}

/// The init once the shell runs: holds no descriptor (the command's pipes are its processes' to
/// hold), reaps every process reparented to it until the shell exits, then ends the rest and
/// exits as the shell did.
///
/// # Safety
/// Only in a namespace's init, whose child `shell` is.
pub(super) unsafe fn reap(shell: libc::pid_t) -> ! {
    name(c"openagent-init");
    close_all();
    let mut status = 0;
    loop {
        let mut reaped = 0;
        let pid = libc::waitpid(-1, &mut reaped, 0);
        if pid == shell {
            status = reaped;
            break;
        }
        if pid == -1 && *libc::__errno_location() != libc::EINTR {
            break;
        }
    }
    // What the shell left behind gets SIGTERM and the grace period; the init's exit SIGKILLs
    // whatever is still there then.
    if libc::kill(-1, libc::SIGTERM) == 0 {
        let deadline = now_ms() + GRACE.as_millis() as i64;
        while now_ms() < deadline {
            let pid = libc::waitpid(-1, std::ptr::null_mut(), libc::WNOHANG);
            if pid == -1 && *libc::__errno_location() == libc::ECHILD {
                break;
            }
            if pid <= 0 {
                let pause = libc::timespec { tv_sec: 0, tv_nsec: 2_000_000 };
                libc::nanosleep(&pause, std::ptr::null_mut());
            }
        }
    }
    libc::_exit(exit_code(status))
}

/// fork(2) as a bare system call: the C library's fork would run the handlers libraries
/// registered with pthread_atfork, which need not be safe in a copy of a multithreaded process.
unsafe fn fork() -> std::io::Result<libc::pid_t> {
    clone(0)
}

/// fork(2) into the new namespaces that `flags` name, as a bare system call (see [`fork`]).
unsafe fn clone(flags: libc::c_int) -> std::io::Result<libc::pid_t> {
    match libc::syscall(libc::SYS_clone, (flags | libc::SIGCHLD) as libc::c_ulong, 0, 0, 0, 0) {
        -1 => Err(std::io::Error::last_os_error()),
        pid => Ok(pid as libc::pid_t),
    }
}

/// A shell's exit code for a wait status: the code, or 128 + the signal.
fn exit_code(status: libc::c_int) -> libc::c_int {
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        127
    }
}

unsafe fn write_file(path: &std::ffi::CStr, bytes: &[u8]) -> std::io::Result<()> {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd == -1 {
        return Err(std::io::Error::last_os_error());
    }
    let written = libc::write(fd, bytes.as_ptr().cast(), bytes.len());
    let error = std::io::Error::last_os_error();
    libc::close(fd);
    if written != bytes.len() as isize {
        return Err(error);
    }
    Ok(())
}

pub(super) unsafe fn ignore_stop_signals() {
    for signal in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGQUIT] {
        libc::signal(signal, libc::SIG_IGN);
    }
}

/// Closes every descriptor: the command's pipes are its processes' to hold, and `Command`'s
/// report pipe is the shell's to close at exec.
unsafe fn close_all() {
    libc::syscall(libc::SYS_close_range, 0 as libc::c_uint, libc::c_uint::MAX, 0 as libc::c_uint);
}

/// How the process shows in `ps` (its command line is still the agent's).
unsafe fn name(name: &std::ffi::CStr) {
    libc::prctl(libc::PR_SET_NAME, name.as_ptr() as libc::c_ulong, 0, 0, 0);
}

fn now_ms() -> i64 {
    let mut now = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes only the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut now) };
    now.tv_sec * 1000 + now.tv_nsec / 1_000_000
}

/// Whether a command can be run in namespaces here: a forked child makes the namespaces (and the
/// user namespace's maps) the way a command's supervisor does, and exits. The refusals this meets
/// (no user namespaces for this user, a seccomp filter) are the ones a command would: this is the
/// check every run makes before its first command, at the cost of one fork.
pub(super) fn probe() -> bool {
    let namespaces = Namespaces::new(None);
    // SAFETY: the child makes only async-signal-safe system calls on memory prepared before the
    // fork, and exits.
    unsafe {
        match namespaces.fork_init() {
            Ok(0) => libc::_exit(if namespaces.map_user().is_ok() { 0 } else { 1 }),
            Ok(pid) => wait_status(pid).is_some_and(|status| libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0),
            Err(_) => false,
        }
    }
}
