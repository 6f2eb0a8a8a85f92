//! The agent's `shell` tool on the local machine, through a whole session as a host runs it
//! (scripted model, `LocalEnvironment`, `NativeRuntime`): a command stopped by the default
//! timeout or by an abort takes every process it started with it.

use std::rc::Rc;
use std::time::{Duration, Instant};

use futures::future::join;
use futures::StreamExt;
use openagent_core::llm::{ScriptStep, ScriptedClient};
use openagent_core::session::{EventData, StopReason};
use openagent_core::tools::{register_core_tools, ToolRegistry};
use openagent_core::{CoreProfile, Session, SessionStatus};
use openagent_host::NativeRuntime;
use serde_json::{json, Value};

use openagent_tests::processes::{assert_no_survivor, sleepers, TempDir};

/// A background sleep and a foreground one, each of a duration no other test uses (inside its
/// PID namespace a command's pids are its own, so the processes are found by these): a command
/// that only a kill ends early. It prints a line first, so a test knows it runs.
fn command(background: &str, foreground: &str) -> String {
    format!("echo started; sleep {background} & sleep {foreground}")
}

/// A session whose model calls `shell` with `arguments`, then says it is done.
fn session(dir: &TempDir, arguments: Value) -> (Rc<NativeRuntime>, Session) {
    let runtime = Rc::new(NativeRuntime::new());
    let client = Rc::new(ScriptedClient::new([ScriptStep::tool_call("shell", arguments), ScriptStep::text("done")]));
    let mut tools = ToolRegistry::new();
    register_core_tools(&mut tools);
    let profile = Rc::new(CoreProfile::new("scripted", tools));
    let session = Session::builder(profile, Rc::new(dir.env()), client, runtime.clone()).build();
    (runtime, session)
}

fn assert_all_gone(durations: [&str; 2], within: Duration) {
    let until = Instant::now() + within;
    while durations.iter().any(|seconds| !sleepers(seconds).is_empty()) && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(20));
    }
    for seconds in durations {
        assert_no_survivor(seconds);
    }
}

#[test]
fn the_default_timeout_kills_sleep_30_and_its_process_group_within_12_5_s() {
    let dir = TempDir::new();
    let (runtime, session) = session(&dir, json!({ "command": command("30.301", "30.302") }));
    assert_eq!(session.config().default_command_timeout_ms, None, "not set: 10 s");
    let mut events = session.events();
    let started = Instant::now();
    assert_eq!(runtime.block_on(session.submit("sleep")), Ok(StopReason::Completed));
    let elapsed = started.elapsed();
    assert!(elapsed >= Duration::from_secs(10) && elapsed < Duration::from_millis(12_500), "{elapsed:?}");
    let output = std::iter::from_fn(|| events.try_recv())
        .find_map(|event| match event.data {
            EventData::ToolCallEnd { output, .. } => output,
            _ => None,
        })
        .expect("the shell call ended with an output");
    assert!(output.contains("Exit code: 124"), "{output}");
    assert!(output.contains("[ERROR: Command timed out after 10000ms."), "{output}");
    assert!(output.contains("started"), "{output}");
    assert_all_gone(["30.301", "30.302"], Duration::from_millis(500));
}

#[test]
fn aborting_the_session_mid_command_kills_the_command_and_its_children_promptly() {
    let dir = TempDir::new();
    let (runtime, session) = session(&dir, json!({ "command": command("30.303", "30.304"), "timeout_ms": 60_000 }));
    let mut events = session.events();
    // Aborts once the command has printed its line and both sleeps run.
    let abort_while_running = async {
        let mut printed = String::new();
        while printed.lines().count() < 1 {
            match events.next().await.map(|event| event.data) {
                Some(EventData::ToolCallOutputDelta { delta, .. }) => printed.push_str(&delta),
                Some(_) => {}
                None => break,
            }
        }
        // The sleeps start on their own, whatever the session's executor does meanwhile.
        let until = Instant::now() + Duration::from_secs(5);
        while (sleepers("30.303").is_empty() || sleepers("30.304").is_empty()) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        session.abort();
        (printed, Instant::now())
    };
    let (stop, (printed, aborted)) = runtime.block_on(join(session.submit("sleep"), abort_while_running));
    assert_eq!(stop, Ok(StopReason::Aborted));
    assert_eq!(session.status(), SessionStatus::Closed);
    assert_eq!(printed, "started\n");
    // SIGTERM at once; the 2 s grace before SIGKILL is not needed by `sleep`.
    assert_all_gone(["30.303", "30.304"], Duration::from_secs(2));
    assert!(aborted.elapsed() < Duration::from_secs(2), "{:?} after the abort", aborted.elapsed());
}
