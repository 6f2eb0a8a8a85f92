//! SIGINT (Ctrl-C), SIGTERM and SIGHUP (the terminal closed) as a stream the single-threaded run
//! can await: all three stop a run alike. `signal-hook` turns each signal into an iteration of a
//! thread of ours (its handler only writes to a pipe, all a handler may safely do); that thread
//! forwards it into a channel, which wakes whatever awaits it on the local executor. On SIGHUP it
//! first takes the standard output off a terminal that hung up (`leave_a_hung_up_terminal`).
//!
//! Also the registry of running commands, so that a host leaving on a signal ends them first
//! ([`end_commands`]) rather than leaving them to run on without it.

use std::collections::BTreeMap;
use std::io;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use futures::channel::mpsc::{unbounded, UnboundedReceiver, UnboundedSender};
use signal_hook::iterator::Signals;

/// Where the signal thread forwards signals; replaced by each call to [`interrupts`].
static SINK: OnceLock<Mutex<Option<UnboundedSender<i32>>>> = OnceLock::new();

/// From now on, SIGINT, SIGTERM and SIGHUP arrive on the returned channel instead of ending the process.
/// A later call takes the signals over for its own receiver.
pub fn interrupts() -> io::Result<UnboundedReceiver<i32>> {
    let (tx, rx) = unbounded();
    let sink = SINK.get_or_init(Default::default);
    let first = sink.lock().unwrap_or_else(PoisonError::into_inner).replace(tx).is_none();
    if first {
        install()?;
    }
    Ok(rx)
}

fn install() -> io::Result<()> {
    // A signal the parent set to be ignored stays ignored: `nohup openagent ...` goes on when its
    // terminal closes, as a job started with `&` by a script ignores Ctrl-C.
    let taken = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP].into_iter().filter(|&signal| !ignored(signal));
    let mut signals = Signals::new(taken)?;
    std::thread::Builder::new().name("openagent-signals".into()).spawn(move || {
        for signal in signals.forever() {
            if signal == libc::SIGHUP {
                leave_a_hung_up_terminal();
            }
            let sink = SINK.get().and_then(|sink| sink.lock().unwrap_or_else(PoisonError::into_inner).clone());
            if let Some(tx) = sink {
                let _ = tx.unbounded_send(signal);
            }
        }
    })?;
    Ok(())
}

/// Whether `signal` is set to be ignored (by the parent: ignored signals stay so across exec).
fn ignored(signal: libc::c_int) -> bool {
    // SAFETY: with no new action, sigaction(2) only writes the current one into a zeroed struct.
    unsafe {
        let mut current: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut current) == 0 && current.sa_sigaction == libc::SIG_IGN
    }
}

/// Points stdout and stderr at /dev/null where nothing will read them again (poll says POLLHUP:
/// a terminal that hung up). Such a terminal fails every write, and the print macros panic on
/// that: the run would end there, unreported, its commands left to their supervisors. Done before
/// the SIGHUP is passed on, so nothing that reacts to it writes there.
fn leave_a_hung_up_terminal() {
    let Ok(null) = std::fs::OpenOptions::new().write(true).open("/dev/null") else { return };
    for fd in [libc::STDOUT_FILENO, libc::STDERR_FILENO] {
        let mut status = libc::pollfd { fd, events: libc::POLLOUT, revents: 0 };
        // SAFETY: poll reads and writes one live pollfd; dup2 swaps what a standard descriptor
        // points at, atomically, under std's handles, which keep using the number.
        unsafe {
            if libc::poll(&mut status, 1, 0) == 1 && status.revents & libc::POLLHUP != 0 {
                libc::dup2(std::os::fd::AsRawFd::as_raw_fd(&null), fd);
            }
        }
    }
}

/// Signals one running command and everything it started, from any thread.
pub(crate) type Killer = Box<dyn Fn(libc::c_int) + Send>;

/// The commands running now, each with its killer; a command's supervisor removes it when done.
static COMMANDS: Mutex<BTreeMap<u64, Killer>> = Mutex::new(BTreeMap::new());

/// A running command's place in the registry; dropped when its supervisor is done with it.
pub(crate) struct Supervised(u64);

impl Drop for Supervised {
    fn drop(&mut self) {
        commands().remove(&self.0);
    }
}

/// Registers a running command until the returned value is dropped.
pub(crate) fn supervise(kill: Killer) -> Supervised {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    commands().insert(id, kill);
    Supervised(id)
}

fn commands() -> std::sync::MutexGuard<'static, BTreeMap<u64, Killer>> {
    // Only inserted into and removed from: a panic cannot leave the map half-changed.
    COMMANDS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Ends every command still running, before the process leaves: SIGTERM to each (a command whose
/// caller is gone already has it, from its supervisor), up to `grace` for their supervisors to
/// see them gone, then SIGKILL to what is left. Returns at once when none runs.
pub fn end_commands(grace: Duration) {
    if !commands().is_empty() {
        commands().values().for_each(|kill| kill(libc::SIGTERM));
        let until = Instant::now() + grace;
        while !commands().is_empty() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        commands().values().for_each(|kill| kill(libc::SIGKILL));
    }
    // Every command ended under its supervision, which ended what it started: the watchdog need
    // not look through the machine's processes after the agent. One that had to be killed may
    // have left something: the watchdog looks then, as it does for an agent that is killed.
    if commands().is_empty() {
        if let Some(all_ended) = ALL_ENDED.get() {
            all_ended();
        }
    }
}

/// What [`end_commands`] calls once every command has ended under its supervision: the
/// watchdog's release, set when the first scanned command starts one.
static ALL_ENDED: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Has `all_ended` called when the process leaves with every command ended.
pub(crate) fn when_all_ended(all_ended: fn()) {
    let _ = ALL_ENDED.set(all_ended);
}
