//! `openagent` on a pseudo-terminal, for the tests of what a real terminal does: Ctrl-C typed,
//! the terminal hung up.

use std::ffi::{CStr, OsStr};
use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

use openagent_tests::cli::DEADLINE;

/// `openagent` in a terminal, as a person runs it: a pseudo-terminal whose slave is the process's
/// controlling terminal (it leads a session of its own, so it is the terminal's foreground process
/// group) and its stderr, and its stdin and stdout unless others are given. Bytes written to the
/// master are typed: 0x03 is Ctrl-C, which the terminal driver turns into SIGINT for that group,
/// and closing the master hangs the terminal up, which sends the session leader SIGHUP.
pub struct Terminal {
    child: Child,
    /// `None` once hung up.
    master: Option<File>,
    /// Everything the terminal showed, and how much of it [`Terminal::wait_for`] has passed.
    shown: String,
    seen: usize,
    started: Instant,
}

impl Terminal {
    /// Starts `command` on a new terminal, with `stdin` and `stdout` where given.
    pub fn start(mut command: Command, stdin: Option<Stdio>, stdout: Option<Stdio>) -> Self {
        let (master, slave) = open_pty();
        let on_terminal = || Stdio::from(slave.try_clone().expect("the terminal's descriptor duplicates"));
        command.stdin(stdin.unwrap_or_else(on_terminal)).stdout(stdout.unwrap_or_else(on_terminal)).stderr(on_terminal());
        // SAFETY: setsid and ioctl are async-signal-safe and touch no memory of ours. The closure
        // runs once the standard descriptors are set up, so stderr is the terminal by then.
        unsafe {
            command.pre_exec(|| match libc::setsid() != -1 && libc::ioctl(2, libc::TIOCSCTTY, 0) != -1 {
                true => Ok(()),
                false => Err(std::io::Error::last_os_error()),
            });
        }
        let child = command.spawn().expect("openagent starts");
        // `command` and `slave` close here: the child holds the only slave descriptors.
        Self { child, master: Some(master), shown: String::new(), seen: 0, started: Instant::now() }
    }

    /// The process's stdin, when it was started with a piped one.
    pub fn stdin(&mut self) -> ChildStdin {
        self.child.stdin.take().expect("started with a piped stdin")
    }

    /// The process's id.
    pub fn pid(&self) -> i32 {
        i32::try_from(self.child.id()).expect("a pid fits i32")
    }

    /// Types `bytes` on the terminal.
    pub fn type_bytes(&mut self, bytes: &[u8]) {
        let master = self.master.as_mut().expect("the terminal is not hung up");
        master.write_all(bytes).expect("the terminal takes the input");
    }

    /// Reads what the terminal shows until, after what earlier calls found, it shows `text`.
    pub fn wait_for(&mut self, text: &str) {
        loop {
            if let Some(at) = self.shown[self.seen..].find(text) {
                self.seen += at + text.len();
                return;
            }
            assert!(self.started.elapsed() < DEADLINE, "the terminal never showed {text:?}: {:?}", self.shown);
            let master = self.master.as_mut().expect("the terminal is not hung up");
            let mut ready = libc::pollfd { fd: master.as_raw_fd(), events: libc::POLLIN, revents: 0 };
            // SAFETY: poll(2) on one live pollfd.
            if unsafe { libc::poll(&mut ready, 1, 100) } < 1 {
                continue;
            }
            let mut chunk = [0; 4096];
            // A read after every slave descriptor closed fails (EIO): the process has gone.
            match master.read(&mut chunk) {
                Ok(n) if n > 0 => self.shown.push_str(&String::from_utf8_lossy(&chunk[..n])),
                _ => panic!("the terminal closed before showing {text:?}: {:?}", self.shown),
            }
        }
    }

    /// Everything the terminal showed so far.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Closes the master: the terminal hangs up.
    pub fn hang_up(&mut self) {
        self.master = None;
    }

    /// Waits for the process to exit (killing it past the deadline); its exit code, `None` if a
    /// signal killed it.
    pub fn exit_code(mut self) -> Option<i32> {
        loop {
            if let Some(status) = self.child.try_wait().expect("the child can be waited for") {
                return status.code();
            }
            if self.started.elapsed() > DEADLINE {
                let _ = self.child.kill();
                panic!("openagent still runs after {DEADLINE:?}: {:?}", self.shown);
            }
            thread::sleep(Duration::from_millis(10));
        }
    }
}

/// A new pseudo-terminal: its master and its slave, both close-on-exec, so that no process the
/// tests start in the meantime keeps the terminal from hanging up.
fn open_pty() -> (File, OwnedFd) {
    // SAFETY: posix_openpt opens a descriptor that nothing else owns; grantpt, unlockpt and
    // ptsname_r read it and write only into `name`, within its length.
    let (master, name) = unsafe {
        let fd = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY | libc::O_CLOEXEC);
        assert!(fd >= 0, "posix_openpt: {}", std::io::Error::last_os_error());
        let master = File::from_raw_fd(fd);
        let mut name = [0 as libc::c_char; 64];
        let named = libc::grantpt(fd) == 0 && libc::unlockpt(fd) == 0 && libc::ptsname_r(fd, name.as_mut_ptr(), name.len()) == 0;
        assert!(named, "the pseudo-terminal's slave: {}", std::io::Error::last_os_error());
        (master, CStr::from_ptr(name.as_ptr()).to_owned())
    };
    // std opens with O_CLOEXEC; O_NOCTTY keeps the test process from taking it as its terminal.
    let slave = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOCTTY)
        .open(OsStr::from_bytes(name.to_bytes()))
        .expect("the pseudo-terminal's slave opens");
    (master, slave.into())
}
