//! Every process a command started, wherever it went: in the shell's session (background jobs,
//! `set -m` jobs with groups of their own), below one of those (ancestry), or orphaned by a
//! double fork or `setsid` and reparented to the agent, which is a child subreaper so that they
//! come to it rather than to PID 1. An orphan that also left the session is recognised by the
//! marker variable it inherited. Read from /proc (Linux); elsewhere only the shell's process
//! group is reached.
//!
//! A per-command cgroup would hold even a process that clears its environment and leaves the
//! session, but it needs a cgroup v2 subtree delegated to the user, which containers and most
//! sessions without systemd do not give: this works for every user on every Linux.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

/// Makes the agent a child subreaper, once, so that orphans of its commands are reparented to
/// it (and can be found and killed) instead of escaping to PID 1.
pub(super) fn become_subreaper() {
    #[cfg(target_os = "linux")]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        // SAFETY: prctl with PR_SET_CHILD_SUBREAPER reads no memory of ours. When it fails (it
        // cannot on Linux 3.4+), orphans go to PID 1 and only the session and group are reached.
        ONCE.call_once(|| unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1 as libc::c_ulong, 0, 0, 0);
        });
    }
}

/// The processes of one command: its shell leads a session and group whose id is its pid.
pub(super) struct Descendants {
    shell: libc::pid_t,
    /// `\0OPENAGENT_COMMAND_ID=<id>\0`, as it shows in /proc/PID/environ behind a leading NUL.
    needle: Vec<u8>,
    agent: libc::pid_t,
    /// Processes seen as the command's while they ran: once dead, an orphan that left the session
    /// can no longer be recognised, but must still be reaped.
    known: HashSet<libc::pid_t>,
    /// Whether the last scan met an orphan of the agent in the middle of `execve`, which shows
    /// no environment yet: it may be the command's, and is looked at again by the next scan.
    unsettled: bool,
    /// When each such orphan was first seen so: one still without an environment after
    /// [`SETTLED_AFTER`] cleared it (`env -i`), and is no longer waited for.
    changing: HashMap<libc::pid_t, Instant>,
    /// The signal last sent, and to whom: a process found later (one that settled) gets it too.
    signalled: Option<(libc::c_int, HashSet<libc::pid_t>)>,
}

struct Process {
    pid: libc::pid_t,
    ppid: libc::pid_t,
    pgrp: libc::pid_t,
    session: libc::pid_t,
    zombie: bool,
}

impl Descendants {
    pub(super) fn new(shell: libc::pid_t, marker: String) -> Self {
        Self::looking_for(shell, format!("\0{}={marker}\0", super::MARKER).into_bytes())
    }

    /// The processes of `shell`'s command, found by `needle`, before any scan.
    fn looking_for(shell: libc::pid_t, needle: Vec<u8>) -> Self {
        Self {
            shell,
            needle,
            agent: std::process::id() as libc::pid_t,
            known: HashSet::new(),
            unsettled: false,
            changing: HashMap::new(),
            signalled: None,
        }
    }

    /// Sends `signal` to the shell's group and every running process of the command; whether
    /// any was there to get it (or may be: an orphan not yet known to be the command's).
    pub(super) fn signal(&mut self, signal: libc::c_int) -> bool {
        // SAFETY: kill has no memory effects; a negative pid addresses the whole process group.
        let group = unsafe { libc::kill(-self.shell, signal) } == 0;
        let running = self.scan();
        for pid in &running {
            // SAFETY: as above, for one process.
            unsafe { libc::kill(*pid, signal) };
        }
        let any = group || !running.is_empty() || self.unsettled;
        self.signalled = Some((signal, running.into_iter().collect()));
        any
    }

    /// Whether the command may still have a process: a running one, or an orphan that could not
    /// yet be told apart. One found since the last [`Self::signal`] gets that signal now.
    pub(super) fn any_left(&mut self) -> bool {
        let running = self.scan();
        if let Some((signal, sent)) = &mut self.signalled {
            for pid in &running {
                if sent.insert(*pid) {
                    // SAFETY: kill has no memory effects.
                    unsafe { libc::kill(*pid, *signal) };
                }
            }
        }
        !running.is_empty() || self.unsettled
    }

    /// The command's running processes. Its dead ones whose parent is now the agent are reaped
    /// on the way (not the shell: its `Child` reaps it).
    pub(super) fn scan(&mut self) -> Vec<libc::pid_t> {
        let all = processes();
        let mut members: HashSet<libc::pid_t> =
            all.iter().filter(|p| p.session == self.shell || p.pgrp == self.shell).map(|p| p.pid).collect();
        self.unsettled = false;
        for process in &all {
            if process.ppid != self.agent || process.zombie || members.contains(&process.pid) {
                continue;
            }
            match self.carries_marker(process.pid) {
                Some(true) => {
                    members.insert(process.pid);
                }
                Some(false) => {}
                None => self.unsettled = true,
            }
        }
        // Below a member is a member, however far down and whatever its session.
        loop {
            let before = members.len();
            members.extend(all.iter().filter(|p| members.contains(&p.ppid)).map(|p| p.pid).collect::<Vec<_>>());
            if members.len() == before {
                break;
            }
        }
        let mut running = Vec::new();
        for process in &all {
            let ours = members.contains(&process.pid) || (process.zombie && self.known.contains(&process.pid));
            if !ours {
                continue;
            }
            if !process.zombie {
                self.known.insert(process.pid);
                running.push(process.pid);
            } else if process.ppid == self.agent && process.pid != self.shell {
                // SAFETY: waitpid on one pid that is the agent's child; WNOHANG never blocks.
                unsafe { libc::waitpid(process.pid, std::ptr::null_mut(), libc::WNOHANG) };
            }
        }
        running
    }

    /// Whether `pid` inherited the command's marker; `None` while it cannot be told (it is in
    /// the middle of `execve`).
    fn carries_marker(&mut self, pid: libc::pid_t) -> Option<bool> {
        let environ = match settled_environ(pid) {
            Environ::Settled(environ) => environ,
            Environ::Unreadable => return Some(false),
            Environ::Empty => {
                let first = *self.changing.entry(pid).or_insert_with(Instant::now);
                return (first.elapsed() >= SETTLED_AFTER).then_some(false);
            }
        };
        let mut padded = Vec::with_capacity(environ.len() + 1);
        padded.push(0);
        padded.extend_from_slice(&environ);
        Some(padded.windows(self.needle.len()).any(|window| window == self.needle))
    }

    /// Something that signals the whole command from another thread (the agent leaving on a
    /// signal), however far its own supervision got.
    pub(super) fn killer(&self) -> crate::signals::Killer {
        let (shell, needle) = (self.shell, self.needle.clone());
        Box::new(move |signal| {
            Descendants::looking_for(shell, needle.clone()).signal(signal);
        })
    }
}

/// How long an orphan may show an empty environment before it is taken to have cleared it.
const SETTLED_AFTER: Duration = Duration::from_millis(500);

/// What /proc shows of a process's environment.
enum Environ {
    Settled(Vec<u8>),
    /// Gone, or not ours to read (another user's).
    Unreadable,
    /// None: the process cleared its environment (`env -i`), or it is in the middle of `execve`
    /// (`setsid` becoming `sleep` just as the shell exits), which shows an empty environment for
    /// a moment, with or without its new command line (the kernel sets the arguments' end before
    /// it lays out the environment). Under load that moment can outlast any fixed wait.
    Empty,
}

/// A process's environment, looked at a few times while it is empty.
fn settled_environ(pid: libc::pid_t) -> Environ {
    const TRIES: u32 = 3;
    for _ in 0..TRIES {
        match std::fs::read(format!("/proc/{pid}/environ")) {
            Ok(environ) if !environ.is_empty() => return Environ::Settled(environ),
            Ok(_) => std::thread::sleep(Duration::from_millis(1)),
            Err(_) => return Environ::Unreadable,
        }
    }
    Environ::Empty
}

/// Every process /proc shows; none where it cannot be read.
fn processes() -> Vec<Process> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid = entry.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            // `pid (name) state ppid pgrp session ...`: the name may hold spaces and parentheses.
            let mut fields = stat.rsplit_once(')')?.1.split_whitespace();
            let zombie = fields.next()? == "Z";
            let mut number = || fields.next()?.parse().ok();
            Some(Process { pid, ppid: number()?, pgrp: number()?, session: number()?, zombie })
        })
        .collect()
}
