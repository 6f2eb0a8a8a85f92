//! What a confined command's processes can no longer do: outlive it (it always runs in its own
//! PID namespace, `OPENAGENT_SUPERVISION=scan` or not), leave its namespaces, mount, trace, or
//! hold a capability or a way to gain one.

mod confine;

use std::time::Duration;

use confine::{have, read_only, write, Place};
use openagent_core::sandbox::SandboxPolicy;
use openagent_tests::processes::survivors_after;

/// Waits up to a few seconds for sleeps of `seconds` to be gone; kills and returns any left.
fn survivors(seconds: &str) -> Vec<i32> {
    survivors_after(seconds, Duration::from_secs(4))
}

#[test]
fn nothing_a_confined_command_starts_survives_it() {
    let Some(place) = Place::new() else { return };
    let cases = [
        ("setsid", "setsid sleep 41.001 &"),
        ("a double fork", "( sleep 41.002 & ) &"),
        ("nohup", "nohup sleep 41.003 > /dev/null 2>&1 &"),
        ("env -i", "env -i /bin/sleep 41.004 &"),
        ("setsid and env -i", "setsid env -i /bin/sleep 41.005 > /dev/null 2>&1 < /dev/null &"),
    ];
    for (how, command) in cases {
        let result = place.run(Some(write()), &format!("{command} echo started"));
        assert!(result.stdout.contains("started"), "{how}: {result:?}");
        let seconds = command.split_whitespace().find(|word| word.starts_with("41.")).unwrap();
        assert_eq!(survivors(seconds), Vec::<i32>::new(), "{how}: a process outlived its command");
    }
}

#[test]
fn a_confined_command_cannot_leave_its_namespaces_or_mount() {
    let Some(place) = Place::new() else { return };
    let target = std::env::temp_dir().join(format!("openagent-confine-mount-{}", std::process::id()));
    std::fs::create_dir_all(&target).unwrap();
    let mut cases = vec![
        ("unshare -r", "unshare -r true".to_owned()),
        ("unshare -m", "unshare -m true".to_owned()),
        ("mount", format!("mount -t tmpfs none {}", target.display())),
    ];
    if cfg!(target_arch = "x86_64") && have("python3") {
        // clone (56 on x86_64) with CLONE_NEWUSER | SIGCHLD: a new user namespace without unshare.
        let script = "import ctypes, os, sys; libc = ctypes.CDLL(None, use_errno=True); \
                      r = libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0); r == 0 and os._exit(0); \
                      print(r, os.strerror(ctypes.get_errno())); sys.exit(r < 0)";
        cases.push(("clone with CLONE_NEWUSER", format!("python3 -c \"{script}\"")));
    }
    for (how, command) in &cases {
        let result = place.run(Some(write()), command);
        assert_ne!(result.exit_code, 0, "{how}: {result:?}");
        // mount(8) run by a user other than root refuses by itself, before any system call.
        let refused = result.sandbox_denied.is_some()
            || result.stdout.contains("Operation not permitted")
            || result.stderr.contains("must be superuser");
        assert!(refused, "{how}: {result:?}");
    }
    // Outside the sandbox the same calls work: the refusals are the confinement's.
    let result = place.run(Some(SandboxPolicy::full_access()), "unshare -r true");
    assert_eq!(result.exit_code, 0, "{result:?}");
    let _ = std::fs::remove_dir(&target);
}

#[test]
fn a_confined_command_cannot_trace_or_read_another_process() {
    let Some(place) = Place::new() else { return };
    let agent = std::process::id();
    let result = place.run(Some(write()), &format!("cat /proc/{agent}/environ || cat /proc/{agent}/mem"));
    assert_ne!(result.exit_code, 0, "the agent's environment was read: {result:?}");
    if have("strace") {
        let result = place.run(Some(write()), "strace -o /dev/null true");
        assert_ne!(result.exit_code, 0, "{result:?}");
        let unconfined = place.run(Some(SandboxPolicy::full_access()), "strace -o /dev/null true");
        assert_eq!(unconfined.exit_code, 0, "strace works unconfined: {unconfined:?}");
    }
    if have("python3") {
        let script = "import ctypes, os; libc = ctypes.CDLL(None, use_errno=True); \
                      r = libc.ptrace(16, os.getppid(), 0, 0); print(r, os.strerror(ctypes.get_errno()))";
        let result = place.run(Some(read_only()), &format!("python3 -c \"{script}\""));
        assert_eq!(result.stdout.trim(), "-1 Operation not permitted", "{result:?}");
    }
}

#[test]
fn a_confined_command_has_no_privileges_and_a_seccomp_filter() {
    let Some(place) = Place::new() else { return };
    for policy in [write(), read_only()] {
        let result = place.run(Some(policy.clone()), "cat /proc/self/status");
        let field = |name: &str| {
            let line = result.stdout.lines().find(|line| line.starts_with(&format!("{name}:")));
            line.map(|line| line[name.len() + 1..].trim().to_owned()).unwrap_or_default()
        };
        assert_eq!(field("NoNewPrivs"), "1", "{}", policy.describe());
        assert_eq!(field("Seccomp"), "2", "{}", policy.describe());
        for caps in ["CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"] {
            assert_eq!(field(caps), "0000000000000000", "{caps} with {}", policy.describe());
        }
    }
}

#[test]
fn a_confined_command_still_times_out() {
    let Some(place) = Place::new() else { return };
    let options = openagent_core::env::ExecOptions { timeout_ms: 200, sandbox: Some(write()), ..Default::default() };
    use openagent_core::env::ExecutionEnvironment;
    let result = openagent_host::NativeRuntime::new().block_on(place.env().exec_command("sleep 41.1", &options)).unwrap();
    assert!(result.timed_out && result.exit_code == 124, "{result:?}");
    assert_eq!(result.sandbox_denied, None, "a timeout is not a refusal");
    assert_eq!(survivors("41.1"), Vec::<i32>::new());
}

#[test]
fn a_confined_command_runs_in_namespaces_even_when_the_scan_is_asked_for() {
    let Some(place) = Place::new() else { return };
    let env = place.env().with_supervision(openagent_host::Supervision::Scan);
    let options = openagent_core::env::ExecOptions { timeout_ms: 5_000, sandbox: Some(write()), ..Default::default() };
    use openagent_core::env::ExecutionEnvironment;
    let result = openagent_host::NativeRuntime::new().block_on(env.exec_command("echo $$", &options)).unwrap();
    assert_eq!(result.stdout, "2\n", "the shell is pid 2 of its own namespace: {result:?}");
}

/// The race of `supervision.rs`'s test of that name, for a confined command: the shell exits
/// while `setsid` is still becoming `sleep` (`SUPERVISION_RUNS` sets how many runs; 300 here).
#[test]
fn setsid_still_starting_as_the_shell_exits_is_ended_every_time_when_confined() {
    let Some(place) = Place::new() else { return };
    let runs: usize = std::env::var("SUPERVISION_RUNS").ok().and_then(|runs| runs.parse().ok()).unwrap_or(300);
    let mut survived = Vec::new();
    for run in 0..runs {
        let seconds = format!("27.{run:05}2");
        let result = place.run(Some(write()), &format!("setsid sleep {seconds} & echo spawned"));
        assert!(result.stdout.contains("spawned"), "{result:?}");
        if !survivors_after(&seconds, Duration::from_millis(300)).is_empty() {
            survived.push(seconds);
        }
    }
    assert!(survived.is_empty(), "these sleeps survived their command: {survived:?}");
}
