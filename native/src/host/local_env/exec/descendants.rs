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

use std::collections::HashSet;

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
        let needle = format!("\0{}={marker}\0", super::MARKER).into_bytes();
        Self { shell, needle, agent: std::process::id() as libc::pid_t, known: HashSet::new() }
    }

    /// Sends `signal` to the shell's group and every running process of the command; whether
    /// any was there to get it.
    pub(super) fn signal(&mut self, signal: libc::c_int) -> bool {
        // SAFETY: kill has no memory effects; a negative pid addresses the whole process group.
        let group = unsafe { libc::kill(-self.shell, signal) } == 0;
        let running = self.scan();
        for pid in &running {
            // SAFETY: as above, for one process.
            unsafe { libc::kill(*pid, signal) };
        }
        group || !running.is_empty()
    }

    /// The command's running processes. Its dead ones whose parent is now the agent are reaped
    /// on the way (not the shell: its `Child` reaps it).
    pub(super) fn scan(&mut self) -> Vec<libc::pid_t> {
        let all = processes();
        let mut members: HashSet<libc::pid_t> =
            all.iter().filter(|p| p.session == self.shell || p.pgrp == self.shell).map(|p| p.pid).collect();
        let orphans: Vec<_> = all
            .iter()
            .filter(|p| p.ppid == self.agent && !p.zombie && !members.contains(&p.pid) && self.carries_marker(p.pid))
            .map(|p| p.pid)
            .collect();
        members.extend(orphans);
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

    fn carries_marker(&self, pid: libc::pid_t) -> bool {
        let Some(environ) = settled_environ(pid) else { return false };
        let mut padded = Vec::with_capacity(environ.len() + 1);
        padded.push(0);
        padded.extend_from_slice(&environ);
        padded.windows(self.needle.len()).any(|window| window == self.needle)
    }

    /// Something that signals the whole command from another thread (the agent leaving on a
    /// signal), however far its own supervision got.
    pub(super) fn killer(&self) -> crate::host::signals::Killer {
        let (shell, needle, agent) = (self.shell, self.needle.clone(), self.agent);
        Box::new(move |signal| {
            Descendants { shell, needle: needle.clone(), agent, known: HashSet::new() }.signal(signal);
        })
    }
}

/// A process's environment once it has one. A process in the middle of `execve` (`setsid`
/// becoming `sleep` just as the shell exits) shows an empty environment and an empty command
/// line for a moment; it is looked at again rather than taken for one that cleared its
/// environment, which still has a command line.
fn settled_environ(pid: libc::pid_t) -> Option<Vec<u8>> {
    const TRIES: u32 = 50;
    for _ in 0..TRIES {
        let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
        if !environ.is_empty() || !std::fs::read(format!("/proc/{pid}/cmdline")).ok()?.is_empty() {
            return Some(environ);
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    None
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
