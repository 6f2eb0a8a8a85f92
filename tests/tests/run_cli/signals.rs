//! How `openagent` ends on each signal, with a command running: SIGHUP as SIGINT and SIGTERM (the
//! command killed, one `run_finished`), a second SIGINT still reporting the run, SIGKILL of the
//! agent still ending its command (the shell's parent-death signal), and `openagent serve`
//! stopping its sessions and their commands on SIGTERM. Each command writes its pid to a file
//! so the test can see that process gone.

use std::path::Path;
use std::time::{Duration, Instant};

use openagent_tests::{Reply, Step};
use serde_json::json;

use crate::api::Serve;
use crate::support::{eventually, Pipe, Running, Sandbox};
use crate::{call, serve, TASK};

/// Writes the pid of the process that then sleeps (bash runs the last command in its own
/// process), so that pid is the command's.
const SLEEPER: &str = "echo $$ > sleeper.pid; sleep 30";

fn sleeper_call() -> Step {
    call("toolu_sleeper", "shell", json!({"command": SLEEPER}))
}

/// The pid the command wrote, once it has.
fn sleeper_pid(sandbox: &Sandbox) -> i32 {
    let file = sandbox.cwd().join("sleeper.pid");
    eventually("the command wrote its pid", || read_pid(&file).is_some());
    read_pid(&file).expect("a pid")
}

fn read_pid(file: &Path) -> Option<i32> {
    std::fs::read_to_string(file).ok()?.trim().parse().ok()
}

/// Running and not a zombie (a killed orphan may wait for PID 1 to reap it).
fn running(pid: i32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit(')').next().is_some_and(|rest| !rest.trim_start().starts_with('Z')))
}

/// Fails when `pid` still runs after a moment, killing it first so no test leaves it behind.
fn assert_gone(pid: i32, within: Duration) {
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

#[test]
fn sigkill_of_the_agent_mid_command_kills_the_command() {
    let sandbox = Sandbox::new();
    let server = serve([sleeper_call()]);
    let (running, pid) = run_with_a_command(&sandbox, &server);
    running.signal(libc::SIGKILL);
    let run = running.finish();
    assert_eq!(run.code, None, "killed: {run:?}");
    assert_gone(pid, Duration::from_secs(3));
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
