//! How `openagent` ends on each signal, with a command running: SIGHUP as SIGINT and SIGTERM (the
//! command killed, one `run_finished`), a second SIGINT still reporting the run, SIGKILL of the
//! agent still ending its command and the daemon it started (the shell's parent-death signal,
//! the watchdog), the watchdog leaving with the agent, `openagent serve` stopping its sessions
//! and their commands on SIGTERM, and the same signals as a real terminal sends them: Ctrl-C
//! typed, and the terminal hung up (output then goes to /dev/null). Commands run in PID
//! namespaces of their own, so a pid they print is not the host's: the test finds each command's
//! process from outside, by its command line and working directory.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use openagent_tests::{Reply, Step};
use serde_json::json;

use crate::api::Serve;
use crate::terminal::Terminal;
use crate::{call, serve, ANSWER, TASK};
use openagent_tests::cli::{eventually, Pipe, Running, Sandbox};
use openagent_tests::processes::running;

/// A command that only a kill ends early.
const SLEEPER: &str = "sleep 30";

/// [`SLEEPER`] after starting a daemon the way servers detach: a double fork (the subshell
/// exits) and a session of its own.
const DAEMON_AND_SLEEPER: &str = "(setsid sh -c 'exec sleep 31' &); sleep 30";

pub(super) fn sleeper_call() -> Step {
    shell_call(SLEEPER)
}

fn shell_call(command: &str) -> Step {
    call("toolu_sleeper", "shell", json!({"command": command}))
}

/// The pid of [`SLEEPER`]'s sleep, once it runs.
pub(super) fn sleeper_pid(sandbox: &Sandbox) -> i32 {
    pid_running(sandbox, &["sleep", "30"])
}

/// The host's pid of the process in the sandbox's working directory whose arguments are
/// `args`, once there is one.
fn pid_running(sandbox: &Sandbox, args: &[&str]) -> i32 {
    let cwd = sandbox.cwd().canonicalize().expect("the working directory");
    let cmdline: Vec<u8> = args.iter().flat_map(|arg| arg.bytes().chain([0])).collect();
    let find = || find_process(&cwd, &cmdline);
    eventually("the command runs", || find().is_some());
    find().expect("a pid")
}

fn find_process(cwd: &Path, cmdline: &[u8]) -> Option<i32> {
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|entry| {
        let pid = entry.file_name().to_str()?.parse().ok()?;
        let ours = std::fs::read(entry.path().join("cmdline")).ok()? == cmdline
            && std::fs::read_link(entry.path().join("cwd")).ok()? == cwd;
        ours.then_some(pid)
    })
}

/// Fails when `pid` still runs after a moment, killing it first so no test leaves it behind.
pub(super) fn assert_gone(pid: i32, within: Duration) {
    let until = Instant::now() + within;
    while running(pid) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    let survived = running(pid);
    if survived {
        // SAFETY: kill(2) has no memory effects; the pid is the test's own command.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
    assert!(!survived, "the command {pid} survived");
}

/// Starts `openagent run --output json` on a model that runs [`SLEEPER`], and waits for the
/// command's pid.
fn run_with_a_command(sandbox: &Sandbox, server: &openagent_tests::MockServer) -> (Running, i32) {
    let mut running = Running::start(sandbox.openagent(Some(server), &["run", TASK, "--output", "json"]));
    running.wait_for_line(Pipe::Stdout, |line| line.contains(r#""type":"tool_exec_started""#));
    let pid = sleeper_pid(sandbox);
    (running, pid)
}

#[test]
fn sighup_mid_command_writes_run_finished_and_kills_the_command() {
    let sandbox = Sandbox::new();
    let server = serve([sleeper_call()]);
    let (running, pid) = run_with_a_command(&sandbox, &server);
    running.signal(libc::SIGHUP);
    let run = running.finish();
    assert_gone(pid, Duration::from_secs(3));
    assert_eq!(run.code, Some(130), "{run:?}");
    assert_eq!(run.run_finished()["exit_reason"], "interrupted", "{run:?}");
}

/// `nohup openagent run ...`: a SIGHUP the parent ignores stays ignored, and the run goes on.
#[test]
fn under_nohup_a_hang_up_is_ignored_and_the_run_completes() {
    let sandbox = Sandbox::new();
    let server = serve([shell_call("sleep 1; echo slept"), Step::reply(Reply::text(ANSWER))]);
    let mut command = sandbox.openagent(Some(&server), &["run", TASK, "--output", "json"]);
    // SAFETY: signal(2) is async-signal-safe and touches no memory of ours.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut command, || {
            libc::signal(libc::SIGHUP, libc::SIG_IGN);
            Ok(())
        })
    };
    let running = Running::start(command);
    pid_running(&sandbox, &["sleep", "1"]);
    running.signal(libc::SIGHUP);
    let run = running.finish();
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.run_finished()["final_output"], ANSWER, "{run:?}");
}

#[test]
fn a_second_sigint_still_writes_exactly_one_run_finished() {
    let sandbox = Sandbox::new();
    let server = serve([sleeper_call()]);
    let (running, pid) = run_with_a_command(&sandbox, &server);
    // Apart by a moment, so the kernel does not merge them into one pending signal.
    running.signal(libc::SIGINT);
    std::thread::sleep(Duration::from_millis(1));
    running.signal(libc::SIGINT);
    let run = running.finish();
    assert_gone(pid, Duration::from_secs(3));
    assert_eq!(run.code, Some(130), "{run:?}");
    // `run_finished` checks that there is exactly one, and that it is last.
    assert_eq!(run.run_finished()["exit_reason"], "interrupted", "{run:?}");
}

/// In its namespace, the command dies with the agent's thread (parent-death signals all the way
/// down); scanned, the shell dies so, and the daemon, in a session of its own and orphaned to
/// PID 1 when the agent dies, is found by the watchdog.
#[test]
fn sigkill_of_the_agent_mid_command_kills_the_command_and_its_daemon() {
    for supervision in ["namespace", "scan"] {
        let sandbox = Sandbox::new();
        let server = serve([shell_call(DAEMON_AND_SLEEPER)]);
        // Unconfined: a confined command has its namespaces whatever the variable says.
        let args = ["run", TASK, "--output", "json", "--sandbox", "full-access"];
        let mut command = sandbox.openagent(Some(&server), &args);
        command.env("OPENAGENT_SUPERVISION", supervision);
        let mut running = Running::start(command);
        running.wait_for_line(Pipe::Stdout, |line| line.contains(r#""type":"tool_exec_started""#));
        let pid = sleeper_pid(&sandbox);
        let daemon = pid_running(&sandbox, &["sleep", "31"]);
        running.signal(libc::SIGKILL);
        let run = running.finish();
        assert_eq!(run.code, None, "{supervision}: killed: {run:?}");
        assert_gone(pid, Duration::from_secs(3));
        assert_gone(daemon, Duration::from_secs(3));
    }
}

/// Where commands are scanned for (no namespaces), the watchdog starts with the first command,
/// out of the agent's session, carrying no marker and holding nothing but its pipe, and leaves
/// as the agent does, told that every command ended.
#[test]
fn the_watchdog_holds_nothing_of_the_agent_and_leaves_with_it() {
    let sandbox = Sandbox::new();
    let waits = "while [ ! -e go ]; do sleep 0.02; done";
    let server = serve([shell_call(waits), Step::reply(Reply::text(ANSWER))]);
    // Unconfined: a confined command has its namespaces whatever the variable says.
    let mut command = sandbox.openagent(Some(&server), &["run", TASK, "--output", "json", "--sandbox", "full-access"]);
    command.env("OPENAGENT_SUPERVISION", "scan");
    let mut running = Running::start(command);
    running.wait_for_line(Pipe::Stdout, |line| line.contains(r#""type":"tool_exec_started""#));
    let agent = running.pid();
    eventually("the agent has a watchdog", || watchdog_of(agent).is_some());
    let watchdog = watchdog_of(agent).expect("a watchdog");

    let stat = std::fs::read_to_string(format!("/proc/{watchdog}/stat")).expect("the watchdog's stat");
    let session: i32 = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().nth(3)?.parse().ok()).expect("a sid");
    assert_eq!(session, watchdog, "the watchdog leads a session of its own");
    let environ = std::fs::read(format!("/proc/{watchdog}/environ")).expect("the watchdog's environment");
    assert!(!String::from_utf8_lossy(&environ).contains("OPENAGENT_COMMAND_ID"), "no marker: {environ:?}");
    let mut held: Vec<_> = std::fs::read_dir(format!("/proc/{watchdog}/fd"))
        .expect("the watchdog's descriptors")
        .flatten()
        .map(|fd| (fd.file_name().to_string_lossy().into_owned(), std::fs::read_link(fd.path()).unwrap_or_default()))
        .collect();
    held.sort();
    let targets: Vec<_> = held.iter().map(|(fd, target)| format!("{fd} {}", target.display())).collect();
    assert_eq!(targets.len(), 3, "stdin, stdout and stderr only: {targets:?}");
    assert!(targets[0].starts_with("0 pipe:"), "{targets:?}");
    assert_eq!(targets[1..], ["1 /dev/null", "2 /dev/null"], "{targets:?}");

    sandbox.write("go", "");
    let run = running.finish();
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_gone(watchdog, Duration::from_secs(2));
}

#[test]
fn serve_on_sigterm_stops_its_sessions_and_kills_their_commands() {
    let sandbox = Sandbox::new();
    let mock = serve([sleeper_call(), Step::reply(Reply::text("too late"))]);
    let mut api = Serve::start(&sandbox, Some(&mock), &[]);
    let id = api.start_session(&json!({"task": TASK}));
    let pid = sleeper_pid(&sandbox);
    let stopped = api.stop(libc::SIGTERM);
    assert_gone(pid, Duration::from_secs(3));
    assert_eq!(stopped.code, Some(128 + libc::SIGTERM), "{stopped:?}");
    let shown = sandbox.sessions(&["show", &id, "--json"]);
    let record: serde_json::Value = serde_json::from_str(&shown.stdout).expect("the session as JSON");
    assert_eq!(record["exit_reason"], "interrupted", "{record}");
}

/// Ctrl-C typed in the interactive session's terminal reaches the agent as SIGINT (it is the
/// foreground process group; its commands are not): the command is killed, the input reported
/// interrupted, and the session takes the next task.
#[test]
fn ctrl_c_on_the_terminal_kills_the_command_and_the_session_goes_on() {
    let sandbox = Sandbox::new();
    let server = serve([sleeper_call(), Step::reply(Reply::text(ANSWER))]);
    let mut terminal = Terminal::start(sandbox.openagent(Some(&server), &["--approval", "full-auto"]), None, None);
    terminal.type_bytes(b"run the sleeper\n");
    let pid = sleeper_pid(&sandbox);
    terminal.type_bytes(b"\x03");
    terminal.wait_for("interrupted");
    assert_gone(pid, Duration::from_secs(3));
    terminal.type_bytes(b"then answer\n");
    terminal.wait_for(ANSWER);
    // Ctrl-D at the start of a line: the end of input, which quits.
    terminal.type_bytes(b"\x04");
    assert_eq!(terminal.exit_code(), Some(0));
    assert_eq!(server.requests().len(), 2, "one request per task");
}

/// The terminal hung up (its window closed, the SSH connection lost) under `openagent run
/// --output json > file`: SIGHUP stops the run, the command is killed, and the file still ends
/// with its `run_finished`.
#[test]
fn a_terminal_hang_up_ends_the_run_and_its_command_and_writes_run_finished() {
    let sandbox = Sandbox::new();
    let server = serve([sleeper_call()]);
    let out = sandbox.path("out.jsonl");
    let stdout = std::fs::File::create(&out).expect("the output file");
    let json_run = sandbox.openagent(Some(&server), &["run", TASK, "--output", "json"]);
    let mut terminal = Terminal::start(json_run, None, Some(stdout.into()));
    let pid = sleeper_pid(&sandbox);
    terminal.hang_up();
    assert_eq!(terminal.exit_code(), Some(130));
    assert_gone(pid, Duration::from_secs(3));
    let records = openagent_tests::cli::read_events(&out);
    let last = records.last().expect("records");
    assert_eq!((&last["type"], &last["data"]["exit_reason"]), (&json!("run_finished"), &json!("interrupted")), "{records:?}");
}

/// The interactive session's terminal hung up mid-command: the session ends, and so does its
/// command.
#[test]
fn a_terminal_hang_up_ends_the_interactive_session_and_its_command() {
    let sandbox = Sandbox::new();
    let server = serve([sleeper_call()]);
    let mut terminal = Terminal::start(sandbox.openagent(Some(&server), &["--approval", "full-auto"]), None, None);
    terminal.type_bytes(b"run the sleeper\n");
    let pid = sleeper_pid(&sandbox);
    terminal.hang_up();
    // The terminal's end of input quits, as Ctrl-D would.
    assert_eq!(terminal.exit_code(), Some(0));
    assert_gone(pid, Duration::from_secs(3));
}

/// Once its terminal hung up, the agent writes to /dev/null instead: a write to the terminal
/// would fail, and the print macros panic on that. Its input here is not the terminal, so the
/// idle session goes on after the SIGHUP (rather than seeing the end of input at once) and writes
/// its "Ctrl-C again to quit"; it quits normally when its input ends.
#[test]
fn after_a_terminal_hang_up_the_agent_writes_to_dev_null_not_into_a_panic() {
    let sandbox = Sandbox::new();
    let server = serve([]);
    let mut terminal = Terminal::start(sandbox.openagent(Some(&server), &[]), Some(Stdio::piped()), None);
    let stdin = terminal.stdin();
    // The prompt comes once the signals are taken over.
    terminal.wait_for("> ");
    terminal.hang_up();
    let null = Path::new("/dev/null");
    let output = [1, 2].map(|fd| format!("/proc/{}/fd/{fd}", terminal.pid()));
    eventually("stdout and stderr are /dev/null", || output.iter().all(|fd| std::fs::read_link(fd).is_ok_and(|to| to == null)));
    drop(stdin);
    assert_eq!(terminal.exit_code(), Some(0), "the end of input quits");
}

/// The agent's watchdog: its child that shows in `ps` as `openagent-watch`.
fn watchdog_of(agent: i32) -> Option<i32> {
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|entry| {
        let pid: i32 = entry.file_name().to_str()?.parse().ok()?;
        let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
        let parent: i32 = stat.rsplit_once(')')?.1.split_whitespace().nth(1)?.parse().ok()?;
        let named = std::fs::read_to_string(entry.path().join("comm")).ok()?.trim_end() == "openagent-watch";
        (parent == agent && named).then_some(pid)
    })
}
