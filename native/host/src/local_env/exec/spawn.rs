//! A command started in namespaces of its own by the agent itself rather than through `Command`,
//! whose `pre_exec` can only make them in a process that must then fork again and stay behind as
//! a supervisor. Here the process the agent forks is the namespace's init, and the agent waits for
//! it directly; the init starts the shell with a `vfork`-style clone, which shares its memory until
//! exec instead of copying the agent's page tables once more. A command costs two processes
//! instead of three, and one copy of the agent instead of three.
//!
//! ```text
//! agent ─ init (pid 1: reaps, ends the rest) ─ bash (pid 2) ─ …
//!        └─ the new PID namespace ─────────────────────────┘
//! ```
//!
//! Between fork and exec only system calls are made, on what [`Exec`] and [`spawn`] prepared
//! before the fork. Whatever fails there (the namespaces' maps, a mount, the confinement, the exec)
//! is sent back as its errno over a pipe that closes at exec, and read once the init has exited,
//! so the caller gets the error the command's start met, as `Command::spawn` reports it.

use std::ffi::{CString, OsString};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::confined::Confined;
use super::namespace::{self, Namespaces};
use super::{Program, Started};

/// The shell's stack while it shares the init's memory, before exec: what it runs there is a few
/// calls deep, but a debug build's frames are large, and the pages cost only as they are touched.
const STACK: usize = 256 * 1024;

/// Where a program named without a slash is looked for when the command has no `PATH`: what
/// `execvp(3)` uses.
const DEFAULT_PATH: &[u8] = b"/bin:/usr/bin";

/// What the shell execs, made before any fork: between fork and exec nothing may allocate.
pub(super) struct Exec {
    /// Where the program may be, tried in order: its path, or each `PATH` directory with its name.
    candidates: Vec<CString>,
    argv: Vec<CString>,
    envp: Vec<CString>,
    dir: CString,
}

impl Exec {
    /// `program` in `dir` with exactly `vars`; an argument, variable or path holding a NUL byte
    /// cannot be passed to exec, and is refused here.
    pub(super) fn new(program: Program<'_>, dir: &Path, vars: &[(OsString, OsString)]) -> io::Result<Self> {
        let text = |bytes: &[u8]| CString::new(bytes).map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte"));
        let (name, arg0, args): (&str, &str, Vec<&str>) = match program {
            Program::Shell(line) => ("/bin/bash", "/bin/bash", vec!["-c", line]),
            Program::Direct { program, args } => (program, program, args.to_vec()),
            Program::Found { path, name, args } => (path, name, args.to_vec()),
        };
        let path = vars.iter().find(|(key, _)| key == "PATH").map_or(DEFAULT_PATH, |(_, value)| value.as_bytes());
        let candidates = if name.contains('/') {
            vec![text(name.as_bytes())?]
        } else {
            // An empty entry is the working directory, as for execvp.
            let within = |entry: &[u8]| if entry.is_empty() { b".".as_slice() } else { entry }.to_vec();
            path.split(|&byte| byte == b':')
                .map(|entry| text(&[within(entry), b"/".to_vec(), name.as_bytes().to_vec()].concat()))
                .collect::<io::Result<_>>()?
        };
        let argv = std::iter::once(arg0).chain(args).map(|arg| text(arg.as_bytes())).collect::<io::Result<_>>()?;
        let envp = vars
            .iter()
            .map(|(key, value)| text(&[key.as_bytes(), b"=", value.as_bytes()].concat()))
            .collect::<io::Result<_>>()?;
        Ok(Self { candidates, argv, envp, dir: text(dir.as_os_str().as_bytes())? })
    }
}

/// What the shell needs between its clone and exec, in the init's memory, which it shares.
struct Shell<'a> {
    exec: &'a Exec,
    argv: &'a [*const libc::c_char],
    envp: &'a [*const libc::c_char],
    stdin: RawFd,
    stdout: RawFd,
    stderr: RawFd,
    report: RawFd,
    confinement: Option<&'a Confined>,
}

/// Starts `exec` in `namespaces` (held to their confinement, if they have one), with a pipe for
/// stdin when `piped_stdin` (else `/dev/null`) and pipes for stdout and stderr.
pub(super) fn spawn(namespaces: &Namespaces, exec: &Exec, piped_stdin: bool) -> io::Result<Started> {
    let (stdin_read, stdin_write) =
        if piped_stdin { pipe().map(|(read, write)| (read, Some(write)))? } else { (dev_null()?, None) };
    let (stdout_read, stdout_write) = pipe()?;
    let (stderr_read, stderr_write) = pipe()?;
    let (report_read, report_write) = pipe()?;
    // The agent as a descriptor the init can look at: see `init`.
    // SAFETY: pidfd_open takes no pointers; a descriptor it returns is ours alone.
    let agent = unsafe { owned(libc::syscall(libc::SYS_pidfd_open, libc::getpid(), 0) as RawFd) };
    let pointers = |strings: &[CString]| strings.iter().map(|s| s.as_ptr()).chain([std::ptr::null()]).collect::<Vec<_>>();
    let (argv, envp) = (pointers(&exec.argv), pointers(&exec.envp));
    let mut stack = vec![0u8; STACK];
    let shell = Shell {
        exec,
        argv: &argv,
        envp: &envp,
        stdin: stdin_read.as_raw_fd(),
        stdout: stdout_write.as_raw_fd(),
        stderr: stderr_write.as_raw_fd(),
        report: report_write.as_raw_fd(),
        confinement: namespaces.confinement(),
    };
    // SAFETY: the child makes only async-signal-safe system calls, on memory prepared above, and
    // never returns (`init` execs the shell or exits).
    let pid = unsafe { namespaces.fork_init()? };
    if pid == 0 {
        // SAFETY: as above; the stack is this process's copy, and the shell's alone.
        unsafe { init(namespaces, &shell, &mut stack, agent.as_ref().map(AsRawFd::as_raw_fd)) }
    }
    drop((stdin_read, stdout_write, stderr_write, report_write));
    // Not waited for: the init tells of a failed start before it exits, and the caller reads
    // that once it has ([`failure`]), so a command that starts well starts without a round trip
    // through the init, which on a busy machine may not run again before the command ends.
    set_nonblocking(&report_read)?;
    Ok(Started {
        pid,
        stdin: stdin_write.map(File::from),
        stdout: File::from(stdout_read),
        stderr: File::from(stderr_read),
        report: Some(report_read),
    })
}

/// The init, between its fork and the shell's start: it leads the command's session, maps the
/// user, makes its mounts and clones the shell, then reaps; it never returns.
unsafe fn init(namespaces: &Namespaces, shell: &Shell, stack: &mut [u8], agent: Option<RawFd>) -> ! {
    let report = shell.report;
    let started = (|| {
        namespaces.map_user()?;
        // The command's session and group are the init's; it dies with the agent's thread that
        // forked it (and takes the namespace with it).
        super::leader_of_its_own(None)?;
        // The agent died between the fork and the line above, so the signal will never come.
        // (Its parent is outside the namespace, so getppid says nothing: the agent's pidfd does.)
        if agent.is_some_and(|agent| readable(agent, 0)) {
            return Err(io::Error::from_raw_os_error(libc::ESRCH));
        }
        namespace::mount_init(shell.confinement)?;
        // The stack grows down from its end, 16-byte aligned as the ABI wants.
        let top = (stack.as_mut_ptr() as usize + stack.len()) & !15;
        let argument = shell as *const Shell as *mut libc::c_void;
        match libc::clone(shell_main, top as *mut libc::c_void, libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD, argument) {
            -1 => Err(io::Error::last_os_error()),
            pid => Ok(pid),
        }
    })();
    match started {
        // The shell has exec'd or failed (and said why) by now: `vfork` waits for either.
        Ok(pid) => namespace::reap(pid),
        Err(error) => fail(report, error),
    }
}

/// The shell, in the init's memory until exec: its pipes, its directory, its confinement, then
/// exec of the first candidate that runs.
extern "C" fn shell_main(argument: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `argument` is the init's `Shell`, alive while this process shares its memory; only
    // system calls are made on it.
    unsafe {
        let shell = &*(argument as *const Shell);
        for (fd, target) in [(shell.stdin, 0), (shell.stdout, 1), (shell.stderr, 2)] {
            if libc::dup2(fd, target) == -1 {
                fail(shell.report, io::Error::last_os_error());
            }
        }
        // The agent ignores SIGPIPE, and an ignored signal stays ignored across exec: the
        // command gets the default, as a shell started from a terminal has.
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
        let mut none: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut none);
        libc::sigprocmask(libc::SIG_SETMASK, &none, std::ptr::null_mut());
        if libc::chdir(shell.exec.dir.as_ptr()) == -1 {
            fail(shell.report, io::Error::last_os_error());
        }
        if let Some(confinement) = shell.confinement {
            if let Err(error) = confinement.restrict() {
                fail(shell.report, error);
            }
        }
        // As execvp: a candidate that is not there leaves the search going; one that is there
        // but may not be run is the error, unless a later one runs.
        let mut error = libc::ENOENT;
        for candidate in &shell.exec.candidates {
            libc::execve(candidate.as_ptr(), shell.argv.as_ptr(), shell.envp.as_ptr());
            match *libc::__errno_location() {
                libc::ENOENT | libc::ENOTDIR => {}
                other if error == libc::ENOENT => error = other,
                _ => {}
            }
        }
        fail(shell.report, io::Error::from_raw_os_error(error))
    }
}

/// Sends `error`'s errno to the agent and exits, between fork and exec.
unsafe fn fail(report: RawFd, error: io::Error) -> ! {
    let errno = error.raw_os_error().unwrap_or(libc::EINVAL).to_ne_bytes();
    libc::write(report, errno.as_ptr().cast(), errno.len());
    libc::_exit(127)
}

/// Why the command's start failed, if it did, read from its report pipe once its init has
/// exited (so nothing more can come): nothing comes once the shell has exec'd.
pub(super) fn failure(report: &OwnedFd) -> Option<io::Error> {
    let mut errno = [0u8; 4];
    // SAFETY: reads into the live buffer; the pipe is non-blocking. The four bytes are written
    // at once, and a pipe never splits a write this small.
    let read = unsafe { libc::read(report.as_raw_fd(), errno.as_mut_ptr().cast(), errno.len()) };
    (read == errno.len() as isize).then(|| io::Error::from_raw_os_error(i32::from_ne_bytes(errno)))
}

/// Whether `fd` is readable (a pidfd: its process has exited; a pipe: data, or every writer gone)
/// within `ms` milliseconds.
pub(super) fn readable(fd: RawFd, ms: libc::c_int) -> bool {
    let mut poll = libc::pollfd { fd, events: libc::POLLIN, revents: 0 };
    // SAFETY: polls one live pollfd.
    unsafe { libc::poll(&mut poll, 1, ms) == 1 }
}

/// A close-on-exec pipe, both ends above stderr so that moving them onto 0, 1 and 2 cannot
/// overwrite one another (the agent may have been started with a standard descriptor closed).
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 writes two descriptors into the live array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: both were just opened and nothing else owns them.
    let (read, write) = unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) };
    Ok((above_stderr(read)?, above_stderr(write)?))
}

fn set_nonblocking(fd: &OwnedFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own, with no pointers.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    // SAFETY: as above.
    if flags == -1 || unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) } == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn dev_null() -> io::Result<OwnedFd> {
    above_stderr(File::open("/dev/null")?.into())
}

fn above_stderr(fd: OwnedFd) -> io::Result<OwnedFd> {
    if fd.as_raw_fd() > 2 {
        return Ok(fd);
    }
    // SAFETY: F_DUPFD_CLOEXEC takes no pointers; a descriptor it returns is ours alone.
    unsafe { owned(libc::fcntl(fd.as_raw_fd(), libc::F_DUPFD_CLOEXEC, 3)) }.ok_or_else(io::Error::last_os_error)
}

/// `fd` owned, when it is one (not -1).
///
/// # Safety
/// `fd` must be open and owned by nobody else.
unsafe fn owned(fd: RawFd) -> Option<OwnedFd> {
    (fd >= 0).then(|| OwnedFd::from_raw_fd(fd))
}
