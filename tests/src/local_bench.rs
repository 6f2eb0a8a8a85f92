//! The local-model task set of `tests/local-bench/tasks/`: small coding tasks, each with its
//! starting files, the prompt and a command that checks the result. `local-bench` gives them to
//! an agent against a real model; the `local_bench_tasks` test proves every check with the task's
//! reference solution, so a model's failure is never a broken check.
//!
//! A task is a directory `NN-slug/` holding `task.md` (the prompt, given verbatim), `files/` (the
//! starting workspace), `check.sh` (run in the finished workspace, with `$ANSWER` naming a file
//! that holds the agent's final answer; exit 0 passes, and the first line of its output says what
//! is wrong when it fails) and `solve.sh` (the reference solution, run in a fresh copy of `files/`).

use std::fs;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::thread;
use std::time::{Duration, Instant};

/// The task set in this repository.
pub fn tasks_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("local-bench/tasks")
}

/// A check or a solution that runs longer than this is stuck.
pub const SCRIPT_TIMEOUT: Duration = Duration::from_secs(60);

pub struct Task {
    /// The directory name, `NN-slug`.
    pub name: String,
    pub dir: PathBuf,
    pub prompt: String,
}

/// The tasks of `root` in name order, or what is wrong with the first broken one.
pub fn load(root: &Path) -> Result<Vec<Task>, String> {
    let entries = fs::read_dir(root).map_err(|e| format!("cannot read {}: {e}", root.display()))?;
    let mut dirs: Vec<PathBuf> = entries.filter_map(|entry| entry.ok().map(|e| e.path())).filter(|p| p.is_dir()).collect();
    dirs.sort();
    dirs.into_iter().map(|dir| Task::load(&dir)).collect()
}

impl Task {
    fn load(dir: &Path) -> Result<Task, String> {
        let name = dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let prompt = fs::read_to_string(dir.join("task.md")).map_err(|e| format!("{name}: task.md: {e}"))?;
        for needed in ["files", "check.sh", "solve.sh"] {
            if !dir.join(needed).exists() {
                return Err(format!("{name}: no {needed}"));
            }
        }
        Ok(Task { name, dir: dir.to_owned(), prompt: prompt.trim().to_owned() })
    }

    /// A fresh copy of the starting files at `work` (which must not exist yet).
    pub fn seed(&self, work: &Path) -> Result<(), String> {
        copy_dir(&self.dir.join("files"), work).map_err(|e| format!("{}: copying its files: {e}", self.name))
    }

    /// Runs `check.sh` in `work`; `Err` holds its first line of output (or why it could not run).
    pub fn check(&self, work: &Path, answer: &Path) -> Result<(), String> {
        self.script("check.sh", work, answer)
    }

    /// Runs the reference solution in `work`.
    pub fn solve(&self, work: &Path, answer: &Path) -> Result<(), String> {
        self.script("solve.sh", work, answer).map_err(|e| format!("solve.sh failed: {e}"))
    }

    fn script(&self, script: &str, work: &Path, answer: &Path) -> Result<(), String> {
        let mut command = Command::new("bash");
        command.arg(self.dir.join(script)).current_dir(work).env("ANSWER", answer).env("PYTHONDONTWRITEBYTECODE", "1");
        let finished = run_bounded(command, SCRIPT_TIMEOUT, None).map_err(|e| format!("{script}: {e}"))?;
        match finished.status {
            Some(status) if status.success() => Ok(()),
            Some(_) => {
                let first = finished.output.lines().find(|line| !line.trim().is_empty()).unwrap_or("(no output)");
                Err(first.trim().to_owned())
            }
            None => Err(format!("{script} did not finish within {} s", SCRIPT_TIMEOUT.as_secs())),
        }
    }
}

/// A process that ran to its end or was killed at its deadline.
pub struct Finished {
    /// `None` when it was killed at the deadline.
    pub status: Option<ExitStatus>,
    /// Stdout and stderr together, unless stdout was sent to a file.
    pub output: String,
    pub elapsed: Duration,
}

/// Runs `command` in a process group of its own, with no stdin, and kills the whole group at
/// `timeout`: an agent's shell command may leave children behind. Stdout goes to `stdout_file`
/// when given (a long JSONL stream must not fill a pipe nobody reads); the rest is collected.
pub fn run_bounded(mut command: Command, timeout: Duration, stdout_file: Option<&Path>) -> Result<Finished, String> {
    let log = tempfile_in_target()?;
    let stdout = match stdout_file {
        Some(path) => fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))?,
        None => log.try_clone().map_err(|e| e.to_string())?,
    };
    command.stdin(Stdio::null()).stdout(stdout).stderr(log.try_clone().map_err(|e| e.to_string())?).process_group(0);
    let started = Instant::now();
    let mut child = command.spawn().map_err(|e| format!("cannot start {:?}: {e}", command.get_program()))?;
    let status = loop {
        if let Some(status) = child.try_wait().map_err(|e| e.to_string())? {
            break Some(status);
        }
        if started.elapsed() >= timeout {
            // SAFETY: kill(2) on the child's own process group, which `process_group(0)` created.
            unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
            let _ = child.wait();
            break None;
        }
        thread::sleep(Duration::from_millis(50));
    };
    let elapsed = started.elapsed();
    // The group may outlive its leader (a daemon the agent started): end it either way.
    // SAFETY: as above; the group id is the leader's pid, which we reaped, so it names our group.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
    let mut output = String::new();
    let mut log = log;
    use std::io::Seek;
    log.seek(std::io::SeekFrom::Start(0)).map_err(|e| e.to_string())?;
    log.take(1 << 20).read_to_string(&mut output).map_err(|e| e.to_string())?;
    Ok(Finished { status, output, elapsed })
}

/// An unnamed file for a child's output: a file, not a pipe, so a grandchild that keeps the
/// descriptor open cannot make us wait for it.
fn tempfile_in_target() -> Result<fs::File, String> {
    let dir = std::env::temp_dir();
    for attempt in 0..100u32 {
        let path = dir.join(format!("local-bench-{}-{attempt}.log", std::process::id()));
        if let Ok(file) = fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path) {
            let _ = fs::remove_file(&path);
            return Ok(file);
        }
    }
    Err(format!("cannot create a log file in {}", dir.display()))
}

/// Copies a directory tree; symlinks are not followed (a task's files hold none).
pub fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    fs::create_dir_all(to)?;
    for entry in fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Milliseconds since the epoch of an RFC 3339 UTC timestamp as the session writes them
/// (`2026-11-24T14:02:03.456Z`), for differences between a run's events.
pub fn epoch_ms(timestamp: &str) -> Option<i64> {
    let (date, time) = timestamp.trim_end_matches('Z').split_once('T')?;
    let mut ymd = date.splitn(3, '-').map(|part| part.parse::<i64>().ok());
    let (y, m, d) = (ymd.next()??, ymd.next()??, ymd.next()??);
    let mut hms = time.splitn(3, ':');
    let (h, min) = (hms.next()?.parse::<i64>().ok()?, hms.next()?.parse::<i64>().ok()?);
    let seconds: f64 = hms.next()?.parse().ok()?;
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    Some(((days * 24 + h) * 60 + min) * 60_000 + (seconds * 1000.0).round() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_read_as_epoch_milliseconds() {
        assert_eq!(epoch_ms("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(epoch_ms("2000-02-29T00:00:00.123Z"), Some(951_782_400_123));
        assert_eq!(epoch_ms("2099-12-31T23:59:59.999Z"), Some(4_102_444_799_999));
        assert_eq!(epoch_ms("yesterday"), None);
    }
}
