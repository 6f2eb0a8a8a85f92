//! A command's processes are the command's, wherever they go: `setsid`, `set -m` jobs and double
//! forks are ended with it, and a process still holding its output pipes does not hold the tool
//! past its timeout (or, once the shell has exited, past a short grace). Each case runs under both
//! kinds of supervision: a PID namespace per command, and the /proc scan it falls back to.
//!
//! Each command sleeps for a duration no other test uses, so its survivors can be found by their
//! arguments. The time bounds are loose: the machine is shared.

use std::time::{Duration, Instant};

use openagent_core::env::{ExecOptions, ExecResult, ExecutionEnvironment};
use openagent_host::{NativeRuntime, Supervision};

use openagent_tests::processes::{assert_no_survivor, kill_and_reap, sleepers, survivors_after, TempDir};

/// The kinds of supervision this machine can give: the scan always, namespaces where the kernel
/// allows them (checked by [`namespaces_are_used_where_the_kernel_allows_them`]).
fn kinds() -> Vec<Supervision> {
    let mut kinds = vec![Supervision::Scan];
    if Supervision::detect() == Supervision::Namespace {
        kinds.push(Supervision::Namespace);
    }
    kinds
}

fn exec_as(supervision: Supervision, command: &str, timeout_ms: u64) -> (ExecResult, Duration) {
    let dir = TempDir::new();
    let started = Instant::now();
    let options = ExecOptions { timeout_ms, ..ExecOptions::default() };
    let env = dir.env().with_supervision(supervision);
    let result = NativeRuntime::new().block_on(env.exec_command(command, &options)).expect("bash runs");
    (result, started.elapsed())
}

/// `command` under every kind of supervision; the sleep durations in it get a digit per kind, so
/// that each run's survivors are its own: `check` gets the function that tags a duration.
fn each_kind(command: &str, timeout_ms: u64, check: impl Fn(Supervision, &ExecResult, Duration, &dyn Fn(&str) -> String)) {
    for (index, kind) in kinds().into_iter().enumerate() {
        let tag = |seconds: &str| format!("{seconds}{index}");
        let mut tagged = command.to_owned();
        for word in command.split(|c: char| !(c.is_ascii_digit() || c == '.')) {
            if word.contains('.') {
                tagged = tagged.replace(word, &tag(word));
            }
        }
        let (result, took) = exec_as(kind, &tagged, timeout_ms);
        check(kind, &result, took, &tag);
    }
}

#[test]
fn setsid_holding_stdout_does_not_hold_the_tool_and_is_ended() {
    each_kind("setsid sleep 25.101 & echo spawned", 2_000, |kind, result, took, tag| {
        assert!(took < Duration::from_secs(4), "{kind:?}: {took:?}");
        assert!(result.stdout.contains("spawned"), "{kind:?}: {result:?}");
        assert_eq!(result.exit_code, 0, "{kind:?}: {result:?}");
        assert_no_survivor(&tag("25.101"));
    });
}

#[test]
fn setsid_holding_stdout_past_the_timeout_is_cut_off_at_the_timeout() {
    each_kind("setsid sleep 25.102 & echo spawned; sleep 20.102", 2_000, |kind, result, took, tag| {
        assert!(took >= Duration::from_secs(2) && took < Duration::from_secs(5), "{kind:?}: {took:?}");
        assert!(result.timed_out, "{kind:?}: {result:?}");
        assert!(result.stdout.contains("spawned"), "{kind:?}: {result:?}");
        assert_no_survivor(&tag("25.102"));
        assert_no_survivor(&tag("20.102"));
    });
}

#[test]
fn a_double_fork_leaves_no_survivor() {
    each_kind("( (sleep 30.103 &) & ); echo forked", 5_000, |kind, result, took, tag| {
        assert!(took < Duration::from_secs(4), "{kind:?}: {took:?}");
        assert!(result.stdout.contains("forked"), "{kind:?}: {result:?}");
        assert_no_survivor(&tag("30.103"));
    });
}

#[test]
fn a_daemon_started_with_setsid_f_leaves_no_survivor() {
    each_kind("setsid -f sleep 30.104 >/dev/null 2>&1; echo started", 5_000, |kind, result, took, tag| {
        assert!(took < Duration::from_secs(4), "{kind:?}: {took:?}");
        assert!(result.stdout.contains("started"), "{kind:?}: {result:?}");
        assert_no_survivor(&tag("30.104"));
    });
}

#[test]
fn a_job_in_a_group_of_its_own_leaves_no_survivor() {
    each_kind("set -m; sleep 30.105 & echo started", 5_000, |kind, result, took, tag| {
        assert!(took < Duration::from_secs(4), "{kind:?}: {took:?}");
        assert!(result.stdout.contains("started"), "{kind:?}: {result:?}");
        assert_no_survivor(&tag("30.105"));
    });
}

/// A process that clears its environment and leaves both the shell and its session: in a
/// namespace it is ended like any other. The scan cannot tell it from any other orphan, so there
/// it is not ended, but the output it holds is not waited for.
#[test]
fn a_holder_that_clears_its_environment_is_ended_in_a_namespace_and_costs_the_scan_only_the_grace() {
    // The pause lets the holder clear its environment and leave the session before the shell exits.
    each_kind("(env -i setsid sleep 20.106 &); sleep 1; echo spawned", 5_000, |kind, result, took, tag| {
        let left = sleepers(&tag("20.106"));
        kill_and_reap(&left);
        let expected = if kind == Supervision::Namespace { 0 } else { 1 };
        assert_eq!(left.len(), expected, "{kind:?}: the holder ran; the scan leaves it for the test to end: {result:?}");
        assert!(took < Duration::from_secs(4), "{kind:?}: {took:?}");
        assert!(result.stdout.contains("spawned"), "{kind:?}: {result:?}");
        assert_eq!(result.exit_code, 0, "{kind:?}: {result:?}");
    });
}

/// Namespaces are what commands get wherever the kernel gives them: as root, or where the user
/// may make a user namespace (util-linux's `unshare` says).
#[test]
fn namespaces_are_used_where_the_kernel_allows_them() {
    let allowed = std::process::Command::new("unshare")
        .args(["--user", "--map-current-user", "--pid", "--mount", "--fork", "/bin/true"])
        .status()
        .is_ok_and(|status| status.success());
    // SAFETY: geteuid cannot fail.
    let root = unsafe { libc::geteuid() } == 0;
    if !allowed && !root {
        println!("skipped: this machine gives this user no namespaces (unshare --user failed)");
        return;
    }
    assert_eq!(Supervision::detect(), Supervision::Namespace);
    // Inside, the shell is pid 2 below the namespace's init, and /proc is the namespace's own:
    // `pgrep` and `$!` agree, and no process of the host shows.
    // The background child is bash until it has exec'd sleep: pgrep waits for it.
    let command = "echo $$; sleep 5.107 & until pgrep -x sleep; do :; done; echo $!; ls /proc | grep -c '^[0-9]'";
    let (result, _) = exec_as(Supervision::Namespace, command, 5_000);
    let lines: Vec<&str> = result.stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{result:?}");
    assert_eq!(lines[0], "2", "{result:?}");
    assert_eq!(lines[1], lines[2], "pgrep and $! name the same sleep: {result:?}");
    let processes: usize = lines[3].parse().unwrap();
    assert!(processes <= 6, "the namespace's /proc shows its own few processes, not the host's: {result:?}");
    assert_no_survivor("5.107");
}

/// An exit code, and death by a signal, come through the supervisor and the init unchanged.
#[test]
fn exit_codes_and_signals_come_through_as_the_shell_gave_them() {
    for kind in kinds() {
        let (result, _) = exec_as(kind, "exit 42", 5_000);
        assert_eq!(result.exit_code, 42, "{kind:?}: {result:?}");
        let (result, _) = exec_as(kind, "kill -KILL $$", 5_000);
        assert_eq!(result.exit_code, 128 + 9, "{kind:?}: {result:?}");
        let (result, _) = exec_as(kind, "echo out; echo err >&2", 5_000);
        assert_eq!((result.stdout.as_str(), result.stderr.as_str()), ("out\n", "err\n"), "{kind:?}: {result:?}");
    }
}

/// The shell exits while `setsid` is still becoming `sleep`: for a moment the process shows no
/// environment, and so no marker. Before supervision looked again, one run in several hundred left
/// the sleep running; the race is a matter of timing, so it is run many times, under each kind
/// (`SUPERVISION_RUNS` sets how many; CI runs 300).
#[test]
fn setsid_still_starting_as_the_shell_exits_is_ended_every_time() {
    let runs: usize = std::env::var("SUPERVISION_RUNS").ok().and_then(|runs| runs.parse().ok()).unwrap_or(300);
    let mut survived = Vec::new();
    for (run, kind) in (0..runs).flat_map(|run| kinds().into_iter().map(move |kind| (run, kind))) {
        let tag = if kind == Supervision::Namespace { 1 } else { 0 };
        let seconds = format!("26.{run:05}{tag}");
        let (result, _) = exec_as(kind, &format!("setsid sleep {seconds} & echo spawned"), 2_000);
        assert!(result.stdout.contains("spawned"), "{result:?}");
        if !survivors_after(&seconds, Duration::from_millis(300)).is_empty() {
            survived.push(format!("{seconds} ({kind:?})"));
        }
    }
    assert!(survived.is_empty(), "these sleeps survived their command: {survived:?}");
}

/// A program of the host's runs with no shell between: its arguments reach it as they are, and
/// what it starts is held to it as a command's processes are.
#[test]
fn a_program_runs_without_a_shell_and_is_supervised_as_a_command() {
    for kind in kinds() {
        let dir = TempDir::new();
        let env = dir.env().with_supervision(kind);
        let runtime = NativeRuntime::new();
        let options = ExecOptions { timeout_ms: 5_000, ..ExecOptions::default() };
        let echoed = runtime.block_on(env.exec_program("/bin/echo", &["$HOME", "a b", "*", ""], &options)).expect("echo runs");
        assert_eq!(echoed.stdout, "$HOME a b * \n", "{kind:?}: no expansion, one argument each: {echoed:?}");
        let tag = if kind == Supervision::Namespace { 1 } else { 0 };
        let seconds = format!("30.108{tag}");
        let script = format!("setsid sleep {seconds} & echo spawned");
        let spawned = runtime.block_on(env.exec_program("bash", &["-c", &script], &options)).expect("bash runs");
        assert!(spawned.stdout.contains("spawned"), "{kind:?}: {spawned:?}");
        assert_no_survivor(&seconds);
        let missing = runtime.block_on(env.exec_program("openagent-no-such-program", &[], &options)).unwrap_err();
        assert!(missing.to_string().contains("could not start openagent-no-such-program"), "{kind:?}: {missing}");
    }
}

/// Commands started together start together (each worker forks its own), and one dropped before
/// its process has even started is ended as soon as it has: nothing of it is left.
#[test]
fn commands_dropped_before_they_started_leave_nothing() {
    use futures::FutureExt;
    for kind in kinds() {
        let dir = TempDir::new();
        let env = dir.env().with_supervision(kind);
        let options = ExecOptions { timeout_ms: 10_000, ..ExecOptions::default() };
        let tag = if kind == Supervision::Namespace { 1 } else { 0 };
        for round in 0..10 {
            let seconds = format!("30.109{round:02}{tag}");
            let started = dir.0.join(format!("started-{round}-{tag}"));
            let command = format!("touch {}; sleep {seconds}", started.display());
            // One poll starts the worker; the future is dropped before it could see the spawn.
            let mut pending = env.exec_command(&command, &options).boxed_local();
            assert!((&mut pending).now_or_never().is_none(), "{kind:?}: a sleep does not end at once");
            drop(pending);
            // The shell is mostly stopped before it runs at all; if it ran, its sleep must not stay.
            let until = Instant::now() + Duration::from_millis(300);
            while !started.exists() && Instant::now() < until {
                std::thread::sleep(Duration::from_millis(5));
            }
            std::thread::sleep(Duration::from_millis(300));
            // Well inside the 2 s grace: a SIGTERM sent while the shell was still being started
            // would be lost, and the sleep would stay until the SIGKILL after it.
            let left = survivors_after(&seconds, Duration::from_secs(1));
            assert!(left.is_empty(), "{kind:?}: round {round}: sleep {seconds} survived its dropped command: {left:?}");
        }
    }
}
