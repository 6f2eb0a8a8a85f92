//! Running a command: `/bin/bash -c` in a process group of its own, watched by a worker thread
//! so the async caller never blocks; output and the exit come back over a channel.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use futures::channel::mpsc::{unbounded, UnboundedSender};
use futures::StreamExt;
use openagent_core::env::{EnvError, ExecOptions, ExecResult};

/// The exit code of a command killed by its timeout, as coreutils' `timeout` reports it.
const TIMEOUT_EXIT_CODE: i32 = 124;

/// How long a group has after SIGTERM before SIGKILL (spec 5.4).
const GRACE: Duration = Duration::from_secs(2);

/// How often, at most, the worker checks for exit, timeout and cancellation. It starts at
/// [`FIRST_POLL`] and doubles up to this, so a quick command is seen to end within a
/// millisecond or two while a long one costs a wake-up per 10 ms.
const POLL: Duration = Duration::from_millis(10);
const FIRST_POLL: Duration = Duration::from_micros(250);

enum Event {
    Stdout(String),
    Stderr(String),
    Exit { code: i32, timed_out: bool },
}

/// Kills the group when the exec future is dropped before the command ended: SIGTERM now, and
/// the worker escalates to SIGKILL after the grace period.
struct CancelOnDrop {
    pgid: libc::pid_t,
    cancelled: Arc<AtomicBool>,
    finished: Arc<AtomicBool>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.finished.load(Ordering::SeqCst) {
            self.cancelled.store(true, Ordering::SeqCst);
            signal_group(self.pgid, libc::SIGTERM);
        }
    }
}

fn signal_group(pgid: libc::pid_t, signal: libc::c_int) {
    // SAFETY: kill has no memory effects; a negative pid addresses the whole process group.
    unsafe { libc::kill(-pgid, signal) };
}

/// Whether any process of the group is still running. Zombies do not count: a background
/// process orphaned by the shell's death is reaped by PID 1 when PID 1 gets to it (a second or
/// two later in some containers, never in others), and a zombie holds nothing open.
fn group_alive(pgid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks for existence.
    if unsafe { libc::kill(-pgid, 0) } != 0 {
        return false;
    }
    // Where /proc cannot be read (not Linux), every member counts.
    let Ok(processes) = std::fs::read_dir("/proc") else { return true };
    processes.flatten().any(|process| {
        let stat = std::fs::read_to_string(process.path().join("stat")).unwrap_or_default();
        // `pid (name) state ppid pgrp ...`: the name may hold spaces and parentheses.
        let mut fields = stat.rsplit_once(')').map_or("", |(_, rest)| rest).split_whitespace();
        let state = fields.next();
        let pgrp = fields.nth(1).and_then(|pgrp| pgrp.parse::<libc::pid_t>().ok());
        pgrp == Some(pgid) && state != Some("Z")
    })
}

pub(super) async fn run(
    command: &str,
    dir: &Path,
    vars: Vec<(OsString, OsString)>,
    options: &ExecOptions,
) -> Result<ExecResult, EnvError> {
    let started = Instant::now();
    let mut child = Command::new("/bin/bash")
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env_clear()
        .envs(vars)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|err| EnvError::Io(format!("could not start /bin/bash: {err}")))?;
    // The group was created with the child as its leader, so its id is the child's pid.
    let pgid = child.id() as libc::pid_t;
    let (tx, mut rx) = unbounded();
    if let Some(out) = child.stdout.take() {
        forward(out, tx.clone(), Event::Stdout);
    }
    if let Some(err) = child.stderr.take() {
        forward(err, tx.clone(), Event::Stderr);
    }
    let guard = CancelOnDrop { pgid, cancelled: Arc::default(), finished: Arc::default() };
    let (cancelled, finished) = (guard.cancelled.clone(), guard.finished.clone());
    // As in the in-memory environment, 0 means no timeout.
    let deadline = (options.timeout_ms > 0).then(|| started + Duration::from_millis(options.timeout_ms));
    thread::spawn(move || {
        let (code, timed_out) = watch(&mut child, pgid, deadline, &cancelled);
        finished.store(true, Ordering::SeqCst);
        let _ = tx.unbounded_send(Event::Exit { code, timed_out });
    });

    let mut result = ExecResult::default();
    // The stream ends when the worker and both readers are done, so no output is lost.
    while let Some(event) = rx.next().await {
        match event {
            Event::Stdout(text) | Event::Stderr(text) if text.is_empty() => {}
            Event::Stdout(text) => {
                emit(options, &text);
                result.stdout.push_str(&text);
            }
            Event::Stderr(text) => {
                emit(options, &text);
                result.stderr.push_str(&text);
            }
            Event::Exit { code, timed_out } => (result.exit_code, result.timed_out) = (code, timed_out),
        }
    }
    drop(guard);
    result.duration_ms = started.elapsed().as_millis() as u64;
    Ok(result)
}

fn emit(options: &ExecOptions, text: &str) {
    if let Some(on_output) = &options.on_output {
        on_output(text);
    }
}

/// Sends a pipe's output line by line (whole lines keep UTF-8 characters intact) until it closes.
fn forward(pipe: impl Read + Send + 'static, tx: UnboundedSender<Event>, wrap: fn(String) -> Event) {
    thread::spawn(move || {
        let mut reader = BufReader::new(pipe);
        let mut line = Vec::new();
        while matches!(reader.read_until(b'\n', &mut line), Ok(n) if n > 0) {
            if tx.unbounded_send(wrap(String::from_utf8_lossy(&line).into_owned())).is_err() {
                return;
            }
            line.clear();
        }
    });
}

/// Waits for the shell to exit, the deadline to pass or the caller to cancel, and leaves no
/// process of the group behind: background jobs would otherwise hold the pipes open and outlive
/// the command. Returns the exit code and whether the timeout fired.
fn watch(child: &mut Child, pgid: libc::pid_t, deadline: Option<Instant>, cancelled: &AtomicBool) -> (i32, bool) {
    let mut pause = FIRST_POLL;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                if group_alive(pgid) {
                    terminate(child, pgid);
                }
                return (exit_code(status), false);
            }
            // Nobody reads this result: the future that wanted it was dropped.
            Ok(None) if cancelled.load(Ordering::SeqCst) => {
                terminate(child, pgid);
                return (-1, false);
            }
            Ok(None) if deadline.is_some_and(|deadline| Instant::now() >= deadline) => {
                terminate(child, pgid);
                return (TIMEOUT_EXIT_CODE, true);
            }
            Ok(None) => {
                thread::sleep(pause);
                pause = (pause * 2).min(POLL);
            }
            Err(_) => {
                terminate(child, pgid);
                return (-1, false);
            }
        }
    }
}

/// SIGTERM to the group, up to [`GRACE`] for it to go, then SIGKILL; the shell is reaped.
fn terminate(child: &mut Child, pgid: libc::pid_t) {
    signal_group(pgid, libc::SIGTERM);
    let until = Instant::now() + GRACE;
    while Instant::now() < until {
        // Reaping the shell lets the group vanish once its other members have exited.
        let reaped = matches!(child.try_wait(), Ok(Some(_)));
        if reaped && !group_alive(pgid) {
            return;
        }
        thread::sleep(POLL);
    }
    signal_group(pgid, libc::SIGKILL);
    let _ = child.wait();
}

/// The shell's exit code, or 128 + the signal that killed it, as shells report it.
fn exit_code(status: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status.code().or_else(|| status.signal().map(|signal| 128 + signal)).unwrap_or(-1)
}
