//! The process that writes a session, recorded with it so that a reader can tell a session still
//! being written from one whose writer died without finishing it (SIGKILL, a crash, the machine
//! going down): the pid, and on Linux the process's start time, since a pid is reused once its
//! process is gone.

/// Who writes a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Writer {
    pub pid: u32,
    /// Clock ticks after boot at which the process started (`/proc/<pid>/stat`); `None` where
    /// the system does not say.
    pub started: Option<u64>,
}

impl Writer {
    /// This process.
    pub fn current() -> Self {
        let pid = std::process::id();
        Self { pid, started: proc_stat(pid).map(|stat| stat.started) }
    }

    /// Whether this writer still runs. A process that exists but is another one (its start time
    /// differs) or a zombie (killed, not yet reaped) no longer writes anything.
    pub fn is_alive(&self) -> bool {
        let Ok(pid) = libc::pid_t::try_from(self.pid) else { return false };
        // SAFETY: signal 0 only checks that the process exists and may be signalled.
        let exists = unsafe { libc::kill(pid, 0) } == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM);
        if !exists {
            return false;
        }
        match proc_stat(self.pid) {
            Some(stat) => !stat.zombie && self.started.is_none_or(|started| started == stat.started),
            // No /proc (not Linux): the pid's existence is all there is to go on.
            None => true,
        }
    }
}

struct ProcStat {
    zombie: bool,
    started: u64,
}

/// The state and start time of `pid`, from `/proc/<pid>/stat`.
fn proc_stat(pid: u32) -> Option<ProcStat> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid ...`: comm may hold spaces and parentheses, so fields are counted
    // from the last `)`. After it, the state is the first field and starttime the twentieth.
    let fields: Vec<&str> = stat.get(stat.rfind(')')? + 1..)?.split_whitespace().collect();
    Some(ProcStat { zombie: *fields.first()? == "Z", started: fields.get(19)?.parse().ok()? })
}
