//! What a command's worker sleeps on between looks at its command: the shell's exit (a pidfd,
//! readable once it has exited) and the caller's cancel (an eventfd the cancel writes), so it
//! wakes the moment either happens rather than at its next tick. A quick command is then seen to
//! end within microseconds, and a long one costs no wake-ups at all but its deadline and scans.
//!
//! It also wakes for the command's output, which it reads itself ([`Output`]).
//!
//! Where the kernel has no pidfd (Linux before 5.3, or a seccomp filter that refuses it) and off
//! Linux, the worker sleeps in steps that start at [`FIRST_POLL`] and double up to [`POLL`]
//! instead (waking sooner for output), as it always did there.

use std::time::Duration;

use super::output::Output;

/// The sleep between looks without a pidfd: it starts short, so a quick command is seen to end
/// within a millisecond or two, and doubles up to [`POLL`], a wake-up per 10 ms for a long one.
const FIRST_POLL: Duration = Duration::from_micros(250);
pub(super) const POLL: Duration = Duration::from_millis(10);

/// `timeout` as poll(2) takes it: milliseconds, -1 for none. Rounded up: a deadline a fraction
/// of a millisecond away must not spin.
pub(super) fn poll_ms(timeout: Option<Duration>) -> libc::c_int {
    timeout.map_or(-1, |t| t.as_micros().div_ceil(1000).min(i32::MAX as u128) as libc::c_int)
}

/// The caller's side: rung when the result is no longer wanted.
pub(super) struct Alarm {
    #[cfg(target_os = "linux")]
    fd: Option<std::os::fd::OwnedFd>,
}

impl Alarm {
    pub(super) fn new() -> Self {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::FromRawFd;
            // SAFETY: eventfd takes no pointers; a descriptor it returns is ours alone.
            let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
            // SAFETY: `fd` was just opened and nothing else owns it.
            Self { fd: (fd >= 0).then(|| unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) }) }
        }
        #[cfg(not(target_os = "linux"))]
        Self {}
    }

    /// Wakes the worker waiting on this alarm (or makes its next wait return at once).
    pub(super) fn ring(&self) {
        #[cfg(target_os = "linux")]
        if let Some(fd) = &self.fd {
            use std::os::fd::AsRawFd;
            let one = 1u64.to_ne_bytes();
            // SAFETY: writes eight bytes from a live buffer to a descriptor we own.
            unsafe { libc::write(fd.as_raw_fd(), one.as_ptr().cast(), one.len()) };
        }
    }
}

/// The worker's side: waits for the shell's exit, the alarm, or a timeout, whichever is first.
pub(super) struct Wake {
    #[cfg(target_os = "linux")]
    exit: Option<std::os::fd::OwnedFd>,
    /// The next sleep when there is no pidfd to wait on.
    pause: Duration,
}

impl Wake {
    /// Waits on the process `pid`, which must be a child not yet reaped (so the pid is still its).
    pub(super) fn on(pid: libc::pid_t) -> Self {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::FromRawFd;
            // SAFETY: pidfd_open takes no pointers; a descriptor it returns is ours alone.
            let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as libc::c_int;
            // SAFETY: `fd` was just opened and nothing else owns it.
            let exit = (fd >= 0).then(|| unsafe { std::os::fd::OwnedFd::from_raw_fd(fd) });
            Self { exit, pause: FIRST_POLL }
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = pid;
            Self { pause: FIRST_POLL }
        }
    }

    /// Returns when the process has exited, `alarm` rang, or `timeout` (none: no limit) passed,
    /// reading whatever of `output` comes meanwhile; without a pidfd, after a pause that grows
    /// from look to look (or sooner, when output comes). Spurious returns are allowed: the caller
    /// looks at everything again either way.
    pub(super) fn wait(&mut self, alarm: &Alarm, output: &mut Output, timeout: Option<Duration>) {
        let none = libc::pollfd { fd: -1, events: libc::POLLIN, revents: 0 };
        // The two pipes by their index, then the exit and the alarm where there are descriptors.
        let mut fds = [none; 4];
        for (index, fd) in output.open() {
            fds[index].fd = fd;
        }
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            fds[2].fd = self.exit.as_ref().map_or(-1, AsRawFd::as_raw_fd);
            fds[3].fd = alarm.fd.as_ref().map_or(-1, AsRawFd::as_raw_fd);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = alarm;
        let events = fds[2].fd >= 0 && fds[3].fd >= 0;
        let timeout = if events {
            timeout
        } else {
            let pause = self.pause;
            self.pause = (self.pause * 2).min(POLL);
            Some(timeout.map_or(pause, |timeout| timeout.min(pause)))
        };
        let ms = poll_ms(timeout);
        // SAFETY: `fds` is a live array of four pollfds; poll skips the negative ones. EINTR is a
        // spurious return.
        unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, ms) };
        for (index, fd) in fds[..2].iter().enumerate() {
            if fd.fd >= 0 && fd.revents != 0 {
                output.read(index);
            }
        }
        #[cfg(target_os = "linux")]
        if fds[3].fd >= 0 && fds[3].revents != 0 {
            let mut count = [0u8; 8];
            // SAFETY: reads eight bytes into a live buffer; the eventfd is non-blocking.
            unsafe { libc::read(fds[3].fd, count.as_mut_ptr().cast(), count.len()) };
        }
    }
}
