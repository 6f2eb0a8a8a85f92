//! Running a command: `/bin/bash -c` as the leader of a session (and process group) of its own
//! (or the program itself, for a line bash would only exec: [`plain`]), supervised by a worker
//! thread, which also reads its output, so the async caller never blocks; output and the exit
//! come back over a channel.
//!
//! Supervision owns every process the command starts, not only its group. On Linux each command
//! runs in a PID namespace of its own ([`namespace`]), which nothing it starts can leave and the
//! kernel empties when the command ends. Where namespaces cannot be made (and as a second line
//! everywhere) the agent is a child subreaper, so a process orphaned by a double fork or `setsid`
//! is reparented to it instead of to PID 1, and [`descendants`] finds such processes by the
//! session they share with the shell, by their ancestry, or by a marker variable the command's
//! processes inherit. When the shell exits, times out or is cancelled, they are all ended
//! (SIGTERM, then SIGKILL after [`GRACE`]), and output stops being collected soon after whoever
//! still holds the pipes.
//!
//! A confined command (a sandbox policy below `full-access`, [`super::confined`]) always runs in
//! its namespaces, whatever `OPENAGENT_SUPERVISION` says: its init makes the confinement's mounts, and
//! the shell restricts itself (Landlock, no capabilities, seccomp) just before exec.

mod descendants;
#[cfg(target_os = "linux")]
mod namespace;
mod output;
mod plain;
#[cfg(target_os = "linux")]
mod spawn;
mod supervision;
mod wake;
#[cfg(target_os = "linux")]
mod watchdog;
mod workers;

use std::ffi::OsString;
use std::fs::File;
use std::os::fd::OwnedFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use futures::channel::mpsc::unbounded;
use futures::StreamExt;
use openagent_core::env::{EnvError, ExecOptions, ExecResult};

use descendants::Descendants;
use output::Output;
use wake::{Alarm, Wake, POLL};

use super::confined::{self, Confined};
pub(crate) use supervision::namespaces_available;
pub use supervision::Supervision;

/// The exit code of a command killed by its timeout, as coreutils' `timeout` reports it.
const TIMEOUT_EXIT_CODE: i32 = 124;

/// How long a command's processes have after SIGTERM before SIGKILL (spec 5.4).
pub(crate) const GRACE: Duration = Duration::from_secs(2);

/// How long output is still collected once every process found is gone. The pipes close at once
/// then, unless a process supervision could not find (one that cleared its environment and left
/// the command's session) holds them: its output is not waited for.
const LATE_OUTPUT: Duration = Duration::from_millis(200);

/// How often a long command's processes are listed, so that one that leaves the command's
/// session and then exits on its own is still known, and reaped, by the agent it was
/// reparented to.
const SCAN_EVERY: Duration = Duration::from_secs(1);

/// The variable every process of a command inherits, naming the command; how supervision
/// recognises a process that was orphaned and left the command's session.
const MARKER: &str = "OPENAGENT_COMMAND_ID";

enum Event {
    /// The command could not be started: nothing else comes.
    Failed(std::io::Error),
    Stdout(String),
    Stderr(String),
    Exit {
        code: i32,
        timed_out: bool,
    },
}

/// Kills the command when the exec future is dropped before it ended: SIGTERM now, and the
/// worker escalates to SIGKILL after the grace period. Dropped before the command has started,
/// it leaves the worker to end it as soon as it has.
struct CancelOnDrop {
    /// The command's process group once it has started (0 until then): the shell (or, in a
    /// namespace, its supervisor) leads its own session and group, so both ids are its pid.
    pgid: Arc<AtomicI32>,
    cancelled: Arc<AtomicBool>,
    finished: Arc<AtomicBool>,
    /// Wakes the worker, so it escalates without waiting for its next look.
    alarm: Arc<Alarm>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if !self.finished.load(Ordering::SeqCst) {
            self.cancelled.store(true, Ordering::SeqCst);
            let pgid = self.pgid.load(Ordering::SeqCst);
            if pgid > 0 {
                // SAFETY: kill has no memory effects; a negative pid addresses the whole process group.
                unsafe { libc::kill(-pgid, libc::SIGTERM) };
            }
            self.alarm.ring();
        }
    }
}

/// What a command runs: a line for `/bin/bash -c`, or a program of the host's own with its
/// arguments, with no shell between, or a line's program as bash found it ([`plain`]): run
/// from `path`, under the `name` the line called it by.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Program<'a> {
    Shell(&'a str),
    Direct { program: &'a str, args: &'a [&'a str] },
    Found { path: &'a str, name: &'a str, args: &'a [&'a str] },
}

impl Program<'_> {
    fn command(&self) -> Command {
        match *self {
            Program::Shell(line) => {
                let mut shell = Command::new("/bin/bash");
                shell.arg("-c").arg(line);
                shell
            }
            Program::Direct { program, args } => {
                let mut direct = Command::new(program);
                direct.args(args);
                direct
            }
            Program::Found { path, name, args } => {
                let mut found = Command::new(path);
                found.arg0(name).args(args);
                found
            }
        }
    }

    /// What could not be started, for its error.
    fn name(&self) -> &str {
        match *self {
            Program::Shell(_) => "/bin/bash",
            Program::Direct { program, .. } => program,
            Program::Found { name, .. } => name,
        }
    }
}

/// How a command is started: through `Command` (where its processes are found by the scan), or,
/// in namespaces of its own, by [`spawn`], with the namespaces' init as the agent's child.
enum Start {
    Command(Command),
    #[cfg(target_os = "linux")]
    Namespaces(namespace::Namespaces, std::io::Result<spawn::Exec>),
}

impl Start {
    fn spawn(self, piped_stdin: bool) -> std::io::Result<Started> {
        match self {
            Start::Command(mut command) => {
                let mut child = command.spawn()?;
                let pipe = |fd: Option<OwnedFd>| fd.map(File::from).ok_or_else(|| std::io::Error::other("no pipe"));
                Ok(Started {
                    pid: child.id() as libc::pid_t,
                    stdin: child.stdin.take().map(|stdin| File::from(OwnedFd::from(stdin))),
                    stdout: pipe(child.stdout.take().map(OwnedFd::from))?,
                    stderr: pipe(child.stderr.take().map(OwnedFd::from))?,
                    report: None,
                })
            }
            #[cfg(target_os = "linux")]
            Start::Namespaces(namespaces, exec) => spawn::spawn(&namespaces, &exec?, piped_stdin),
        }
    }
}

/// A started command: its leader's pid (the shell, or its namespace's init: a child of the agent,
/// leading the command's session and group) and the agent's ends of its pipes.
struct Started {
    pid: libc::pid_t,
    stdin: Option<File>,
    stdout: File,
    stderr: File,
    /// Where a start in namespaces says it failed, read once the init has exited.
    report: Option<OwnedFd>,
}

/// `program` as `Command` starts it: leader of a session of its own, dying with the worker.
fn shell_command(program: Program, dir: &Path, vars: Vec<(OsString, OsString)>, piped_stdin: bool) -> Command {
    let mut shell = program.command();
    shell
        .current_dir(dir)
        .env_clear()
        .envs(vars)
        .stdin(if piped_stdin { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let parent = std::process::id() as libc::pid_t;
    // SAFETY: between fork and exec the closure calls only async-signal-safe functions
    // (setsid, prctl, getppid) and allocates nothing.
    unsafe { shell.pre_exec(move || leader_of_its_own(Some(parent))) };
    shell
}

/// The command's leader, a child of the agent, waited for by its pid; started in namespaces, with
/// the pipe its init says a failed start on ([`Started::report`]).
struct Leader {
    pid: libc::pid_t,
    report: Option<OwnedFd>,
}

impl Leader {
    fn id(&self) -> libc::pid_t {
        self.pid
    }

    /// Waits, up to [`GRACE`], for a start in namespaces to have exec'd the shell (or failed):
    /// a signal to the command's group while the init is still starting the shell would be lost
    /// to it, and the command would run on to the escalation.
    fn until_started(&self) {
        // Readable (an errno) or hung up (closed at exec, and by the init): the start is over.
        #[cfg(target_os = "linux")]
        if let Some(report) = &self.report {
            use std::os::fd::AsRawFd;
            spawn::readable(report.as_raw_fd(), GRACE.as_millis() as libc::c_int);
        }
    }

    /// Why the start failed, if it did: read once the leader has exited.
    fn failure(&self) -> Option<std::io::Error> {
        #[cfg(target_os = "linux")]
        return self.report.as_ref().and_then(spawn::failure);
        #[cfg(not(target_os = "linux"))]
        return None;
    }

    /// Its exit status if it has exited (and is reaped now), or none while it runs.
    fn try_wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        self.wait_with(libc::WNOHANG)
    }

    fn wait(&mut self) -> std::io::Result<Option<ExitStatus>> {
        self.wait_with(0)
    }

    fn wait_with(&mut self, flags: libc::c_int) -> std::io::Result<Option<ExitStatus>> {
        use std::os::unix::process::ExitStatusExt;
        loop {
            let mut status = 0;
            // SAFETY: waitpid writes only the status it is given.
            match unsafe { libc::waitpid(self.pid, &mut status, flags) } {
                0 => return Ok(None),
                -1 if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
                -1 => return Err(std::io::Error::last_os_error()),
                _ => return Ok(Some(ExitStatus::from_raw(status))),
            }
        }
    }
}

/// Runs `program` in `dir` with exactly `vars`, supervised as `supervision` says (in namespaces
/// whatever it says when `confinement` is given, which the command is then held to); `input`,
/// when given, is written to its stdin (which is closed after it; otherwise stdin is `/dev/null`).
/// A shell line that bash would only exec is exec'd without bash ([`plain`]).
pub(crate) async fn run(
    program: Program<'_>,
    dir: &Path,
    vars: Vec<(OsString, OsString)>,
    options: &ExecOptions,
    input: Option<Vec<u8>>,
    supervision: Supervision,
    confinement: Option<Arc<Confined>>,
) -> Result<ExecResult, EnvError> {
    if let Program::Shell(line) = program {
        if let Some(plain::Plain { path, name, args, vars: plain_vars }) = plain::Plain::of(line, dir, &vars) {
            let direct = Program::Found { path: &path, name, args: &args };
            // A program that did not start (not runnable after all: a script with no `#!` line,
            // which bash runs itself) ran nothing, and goes to bash.
            if let Ok(result) = run_once(direct, dir, plain_vars, options, input.clone(), supervision, confinement.clone()).await
            {
                return Ok(result);
            }
        }
    }
    run_once(program, dir, vars, options, input, supervision, confinement).await
}

async fn run_once(
    program: Program<'_>,
    dir: &Path,
    vars: Vec<(OsString, OsString)>,
    options: &ExecOptions,
    input: Option<Vec<u8>>,
    supervision: Supervision,
    confinement: Option<Arc<Confined>>,
) -> Result<ExecResult, EnvError> {
    let supervision = if confinement.is_some() { Supervision::Namespace } else { supervision };
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let started = Instant::now();
    let marker = format!("{}.{}", std::process::id(), NEXT.fetch_add(1, Ordering::Relaxed));
    descendants::become_subreaper();
    let mut vars = vars;
    vars.retain(|(key, _)| key != MARKER);
    vars.push((MARKER.into(), marker.clone().into()));
    let piped_stdin = input.is_some();
    // The namespace dies with the agent (parent-death signals all the way down); a scanned
    // command's detached processes need the watchdog for that.
    let start = match supervision {
        #[cfg(target_os = "linux")]
        Supervision::Namespace => {
            Start::Namespaces(namespace::Namespaces::new(confinement.clone()), spawn::Exec::new(program, dir, &vars))
        }
        _ => {
            #[cfg(target_os = "linux")]
            watchdog::start();
            Start::Command(shell_command(program, dir, vars, piped_stdin))
        }
    };
    let (tx, mut rx) = unbounded();
    let (cancelled, finished) = (Arc::<AtomicBool>::default(), Arc::<AtomicBool>::default());
    let pgid = Arc::<AtomicI32>::default();
    let watch_pgid = pgid.clone();
    let (watch_cancelled, watch_finished) = (cancelled.clone(), finished.clone());
    let alarm = Arc::new(Alarm::new());
    let watch_alarm = alarm.clone();
    // As in the in-memory environment, 0 means no timeout.
    let deadline = (options.timeout_ms > 0).then(|| started + Duration::from_millis(options.timeout_ms));
    // The worker spawns the shell itself: the shell's parent-death signal fires when the thread
    // that forked it ends, and a worker ends only once its commands have ([`workers`]).
    workers::run(move || {
        let Started { pid, stdin, stdout, stderr, report } = match start.spawn(piped_stdin) {
            Ok(started) => started,
            Err(err) => {
                let _ = tx.unbounded_send(Event::Failed(err));
                return;
            }
        };
        watch_pgid.store(pid, Ordering::SeqCst);
        if let (Some(mut stdin), Some(input)) = (stdin, input) {
            // A thread of its own: a command that reads none of a large input must not stall
            // supervision. It ends when the input is written or the command's end closes the
            // pipe (EPIPE: Rust ignores SIGPIPE).
            let _ = thread::Builder::new().name("openagent-command-stdin".into()).spawn(move || {
                use std::io::Write;
                let _ = stdin.write_all(&input);
            });
        }
        let mut output = Output::new(stdout, stderr, tx.clone());
        let mut command = Descendants::new(pid, marker);
        let _registration = crate::signals::supervise(command.killer());
        let contained = supervision == Supervision::Namespace;
        let cancel = Cancel { flag: &watch_cancelled, alarm: &watch_alarm };
        let mut leader = Leader { pid, report };
        let (code, timed_out) = watch(&mut leader, &mut command, &mut output, contained, deadline, cancel);
        if let Some(err) = leader.failure() {
            // Reaped: its pid is no longer the command's to signal.
            watch_finished.store(true, Ordering::SeqCst);
            let _ = tx.unbounded_send(Event::Failed(err));
            return;
        }
        // The pipes close once every process holding them is gone; a holder supervision could
        // not find gets a short grace, not the caller's patience.
        output.until_closed(LATE_OUTPUT);
        drop(output);
        watch_finished.store(true, Ordering::SeqCst);
        let _ = tx.unbounded_send(Event::Exit { code, timed_out });
    })
    .map_err(|err| EnvError::Io(format!("could not start a thread to run the command: {err}")))?;
    // From here, dropping the future ends the command, started or about to be.
    let guard = CancelOnDrop { pgid, cancelled, finished, alarm };
    // Awaited, not waited for: a caller starting several commands at once has them start
    // together, each worker forking its own. A start that worked sends nothing, so the caller is
    // not woken while the command starts.
    let mut result = ExecResult::default();
    let mut ended = false;
    while let Some(event) = rx.next().await {
        match event {
            Event::Failed(err) => return Err(start_failed(program, supervision, confinement.is_some(), err)),
            Event::Stdout(text) | Event::Stderr(text) if text.is_empty() => {}
            Event::Stdout(text) => {
                emit(options, &text);
                result.stdout.push_str(&text);
            }
            Event::Stderr(text) => {
                emit(options, &text);
                result.stderr.push_str(&text);
            }
            // Output sent after this, by a holder the worker gave up on, is not waited for.
            Event::Exit { code, timed_out } => {
                (result.exit_code, result.timed_out, ended) = (code, timed_out, true);
                break;
            }
        }
    }
    if !ended {
        return Err(EnvError::Io("the thread that supervised the command ended before the command did".into()));
    }
    drop(guard);
    result.duration_ms = started.elapsed().as_millis() as u64;
    if let Some(confinement) = confinement.filter(|_| result.exit_code != 0 && !result.timed_out) {
        result.sandbox_denied = confined::denial(&confinement, &result.stdout, &result.stderr);
    }
    Ok(result)
}

/// Why the command could not be started, saying how it was being started.
fn start_failed(program: Program, supervision: Supervision, confined: bool, err: std::io::Error) -> EnvError {
    EnvError::Io(match supervision {
        Supervision::Scan => format!("could not start {}: {err}", program.name()),
        _ if confined => format!(
            "could not start {} confined (its namespaces, mounts, Landlock or seccomp were refused: {err}); \
             run with `--sandbox full-access` to run commands unconfined",
            program.name()
        ),
        _ => format!("could not start {} in a PID namespace of its own: {err}", program.name()),
    })
}

/// Starts `command` as a program of the user's that a sandbox policy names (an MCP server):
/// leader of its own session, and with `confined`, in namespaces of its own (which end with it)
/// and held to the confinement, as the model's commands are. The caller owns the child: killing
/// its process group ends the program, and its supervisor and init with it.
pub(crate) fn start(command: &mut Command, confined: Option<Arc<Confined>>) -> std::io::Result<Child> {
    let parent = std::process::id() as libc::pid_t;
    #[cfg(target_os = "linux")]
    let namespaces = confined.as_ref().map(|confined| namespace::Namespaces::new(Some(confined.clone())));
    // SAFETY: as in `run`: only async-signal-safe system calls on what was prepared before the fork.
    unsafe {
        command.pre_exec(move || {
            leader_of_its_own(Some(parent))?;
            #[cfg(target_os = "linux")]
            if let (Some(namespaces), Some(confinement)) = (&namespaces, &confined) {
                namespaces.enter()?;
                confinement.restrict()?;
            }
            #[cfg(not(target_os = "linux"))]
            let _ = &confined;
            Ok(())
        })
    };
    command.spawn()
}

/// linux/capability.h's number for the right to trace any process.
#[cfg(target_os = "linux")]
const CAP_SYS_PTRACE: libc::c_ulong = 19;

/// In the forked child, before exec: the shell leads a new session (so every process it starts
/// shares its session id unless it calls `setsid` itself, and none can reach the terminal) and,
/// on Linux, is killed when the worker thread that started it dies, which a SIGKILL of the agent
/// does. `parent`, the agent's pid where the child is the agent's own, catches the agent dying
/// before that was set up (a namespace's init cannot see its parent, and checks otherwise).
pub(crate) fn leader_of_its_own(parent: Option<libc::pid_t>) -> std::io::Result<()> {
    // SAFETY: setsid, prctl and getppid are async-signal-safe and touch no memory of ours.
    unsafe {
        if libc::setsid() == -1 {
            return Err(std::io::Error::last_os_error());
        }
        #[cfg(target_os = "linux")]
        {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL as libc::c_ulong, 0, 0, 0) == -1 {
                return Err(std::io::Error::last_os_error());
            }
            // The agent died between the fork and the prctl: the signal will never come. (No
            // message: making one would allocate.)
            if parent.is_some_and(|parent| libc::getppid() != parent) {
                return Err(std::io::Error::from_raw_os_error(libc::ESRCH));
            }
            // A command run as root would otherwise keep CAP_SYS_PTRACE, and with it the right
            // to read the agent's memory and /proc/PID/environ (its provider keys) although the
            // agent is not dumpable. Dropped from the bounding set, exec cannot give it back.
            // Without CAP_SETPCAP (any user but root) this fails, and there is nothing to drop.
            libc::prctl(libc::PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0);
        }
        #[cfg(not(target_os = "linux"))]
        let _ = parent;
    }
    Ok(())
}

fn emit(options: &ExecOptions, text: &str) {
    if let Some(on_output) = &options.on_output {
        on_output(text);
    }
}

/// How the caller says it wants the result no longer: the flag, and the alarm that wakes the
/// worker to look at it.
struct Cancel<'a> {
    flag: &'a AtomicBool,
    alarm: &'a Alarm,
}

/// Waits for the shell to exit, the deadline to pass or the caller to cancel, and leaves no
/// process of the command behind: background jobs and daemons would otherwise hold the pipes
/// open and outlive the command. Returns the exit code and whether the timeout fired. A
/// `contained` command (in its namespace) has nothing left once its supervisor has exited, and
/// none of its orphans come to the agent: it is not scanned for then. Between looks it sleeps on
/// the shell's exit and the caller's cancel ([`wake`]), bounded by the deadline and the next scan.
fn watch(
    child: &mut Leader,
    command: &mut Descendants,
    output: &mut Output,
    contained: bool,
    deadline: Option<Instant>,
    cancel: Cancel,
) -> (i32, bool) {
    let mut wake = Wake::on(child.id());
    let mut scanned = Instant::now();
    loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                if !contained {
                    terminate(None, command, output);
                }
                return (exit_code(status), false);
            }
            // Nobody reads this result: the future that wanted it was dropped.
            Ok(None) if cancel.flag.load(Ordering::SeqCst) => {
                terminate(Some(child), command, output);
                return (-1, false);
            }
            Ok(None) if deadline.is_some_and(|deadline| Instant::now() >= deadline) => {
                terminate(Some(child), command, output);
                return (TIMEOUT_EXIT_CODE, true);
            }
            Ok(None) => {
                if !contained && scanned.elapsed() >= SCAN_EVERY {
                    command.scan();
                    scanned = Instant::now();
                }
                let next_scan = (!contained).then(|| (scanned + SCAN_EVERY).saturating_duration_since(Instant::now()));
                let until_deadline = deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()));
                let timeout = match (next_scan, until_deadline) {
                    (Some(a), Some(b)) => Some(a.min(b)),
                    (a, b) => a.or(b),
                };
                wake.wait(cancel.alarm, output, timeout);
            }
            Err(_) => {
                terminate(Some(child), command, output);
                return (-1, false);
            }
        }
    }
}

/// SIGTERM to every process of the command, up to [`GRACE`] for them to go, then SIGKILL; the
/// shell (when `shell` is still to be reaped) and every orphan reparented to the agent are reaped.
fn terminate(mut shell: Option<&mut Leader>, command: &mut Descendants, output: &mut Output) {
    if let Some(shell) = &shell {
        shell.until_started();
    }
    if !command.signal(libc::SIGTERM) && shell.is_none() {
        return;
    }
    let until = Instant::now() + GRACE;
    while Instant::now() < until {
        if shell.as_mut().is_some_and(|child| matches!(child.try_wait(), Ok(Some(_)))) {
            shell = None;
        }
        if shell.is_none() && !command.any_left() {
            return;
        }
        output.pause(POLL);
    }
    command.signal(libc::SIGKILL);
    if let Some(child) = shell {
        let _ = child.wait();
    }
    // A process killed is a zombie until its parent, often the agent now, reaps it.
    let until = Instant::now() + GRACE;
    while command.any_left() && Instant::now() < until {
        output.pause(POLL);
    }
}

/// The shell's exit code, or 128 + the signal that killed it, as shells report it.
fn exit_code(status: ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    status.code().or_else(|| status.signal().map(|signal| 128 + signal)).unwrap_or(-1)
}
