//! A command's processes are the command's, wherever they go: `setsid`, `set -m` jobs and double
//! forks are ended with it, and a process still holding its output pipes does not hold the tool
//! past its timeout (or, once the shell has exited, past a short grace).
//!
//! Each command sleeps for a duration no other test uses, so its survivors can be found by their
//! arguments. The time bounds are loose: the machine is shared.

use std::time::{Duration, Instant};

use openagent_core::env::{ExecOptions, ExecResult, ExecutionEnvironment};
use openagent_native::NativeRuntime;

use openagent_tests::processes::{assert_no_survivor, kill_and_reap, sleepers, TempDir};

fn exec(command: &str, timeout_ms: u64) -> (ExecResult, Duration) {
    let dir = TempDir::new();
    let started = Instant::now();
    let options = ExecOptions { timeout_ms, ..ExecOptions::default() };
    let result = NativeRuntime::new().block_on(dir.env().exec_command(command, &options)).expect("bash runs");
    (result, started.elapsed())
}

#[test]
fn setsid_holding_stdout_does_not_hold_the_tool_and_is_ended() {
    let (result, took) = exec("setsid sleep 25.101 & echo spawned", 2_000);
    assert!(took < Duration::from_secs(4), "{took:?}");
    assert!(result.stdout.contains("spawned"), "{result:?}");
    assert_eq!(result.exit_code, 0, "{result:?}");
    assert_no_survivor("25.101");
}

#[test]
fn setsid_holding_stdout_past_the_timeout_is_cut_off_at_the_timeout() {
    let (result, took) = exec("setsid sleep 25.102 & echo spawned; sleep 20.102", 2_000);
    assert!(took >= Duration::from_secs(2) && took < Duration::from_secs(5), "{took:?}");
    assert!(result.timed_out, "{result:?}");
    assert!(result.stdout.contains("spawned"), "{result:?}");
    assert_no_survivor("25.102");
    assert_no_survivor("20.102");
}

#[test]
fn a_double_fork_leaves_no_survivor() {
    let (result, took) = exec("( (sleep 30.103 &) & ); echo forked", 5_000);
    assert!(took < Duration::from_secs(4), "{took:?}");
    assert!(result.stdout.contains("forked"), "{result:?}");
    assert_no_survivor("30.103");
}

#[test]
fn a_daemon_started_with_setsid_f_leaves_no_survivor() {
    let (result, took) = exec("setsid -f sleep 30.104 >/dev/null 2>&1; echo started", 5_000);
    assert!(took < Duration::from_secs(4), "{took:?}");
    assert!(result.stdout.contains("started"), "{result:?}");
    assert_no_survivor("30.104");
}

#[test]
fn a_job_in_a_group_of_its_own_leaves_no_survivor() {
    let (result, took) = exec("set -m; sleep 30.105 & echo started", 5_000);
    assert!(took < Duration::from_secs(4), "{took:?}");
    assert!(result.stdout.contains("started"), "{result:?}");
    assert_no_survivor("30.105");
}

/// A process that clears its environment and leaves both the shell and its session cannot be
/// told from any other orphan: it is not ended, but the output it holds is not waited for.
#[test]
fn a_holder_supervision_cannot_find_costs_only_the_late_output_grace() {
    // The pause lets the holder clear its environment and leave the session before the shell exits.
    let (result, took) = exec("(env -i setsid sleep 20.106 &); sleep 1; echo spawned", 5_000);
    let left = sleepers("20.106");
    kill_and_reap(&left);
    assert_eq!(left.len(), 1, "the holder ran, and was left for the test to end: {result:?}");
    assert!(took < Duration::from_secs(4), "{took:?}");
    assert!(result.stdout.contains("spawned"), "{result:?}");
    assert_eq!(result.exit_code, 0, "{result:?}");
}

/// The shell exits while `setsid` is still becoming `sleep`: for a moment the process shows no
/// environment, and so no marker. Before supervision looked again, one run in several hundred left
/// the sleep running; the race is a matter of timing, so it is run many times.
#[test]
fn setsid_still_starting_as_the_shell_exits_is_ended_every_time() {
    let mut survived = Vec::new();
    for run in 0..300 {
        let seconds = format!("26.{run:03}");
        let (result, _) = exec(&format!("setsid sleep {seconds} & echo spawned"), 2_000);
        assert!(result.stdout.contains("spawned"), "{result:?}");
        let until = Instant::now() + Duration::from_millis(300);
        while !sleepers(&seconds).is_empty() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        let left = sleepers(&seconds);
        kill_and_reap(&left);
        if !left.is_empty() {
            survived.push(seconds);
        }
    }
    assert!(survived.is_empty(), "these sleeps survived their command: {survived:?}");
}
