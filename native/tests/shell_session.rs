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
use openagent_native::NativeRuntime;
use serde_json::{json, Value};

use openagent_tests::processes::{wait_until_gone, wait_until_group_gone, TempDir};

/// Prints the shell's pid (the id of the command's process group), then a background child's,
/// then sleeps: a command that only a kill ends early.
const COMMAND: &str = "echo $$; sleep 30 & echo $!; sleep 30";

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

/// The shell's and the background child's pids, from the command's first two lines.
fn pids(output: &str) -> (i32, i32) {
    let mut lines = output.lines().map(|line| line.trim().parse().unwrap_or_else(|_| panic!("not a pid: {output}")));
    (lines.next().expect("the shell's pid"), lines.next().expect("the child's pid"))
}

fn assert_all_gone(group: i32, child: i32, within: Duration) {
    assert!(wait_until_gone(group, within), "the shell {group} survived");
    assert!(wait_until_gone(child, within), "the background child {child} survived");
    assert!(wait_until_group_gone(group, within), "a process of group {group} survived");
}

#[test]
fn the_default_timeout_kills_sleep_30_and_its_process_group_within_12_5_s() {
    let dir = TempDir::new();
    let (runtime, session) = session(&dir, json!({ "command": COMMAND }));
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
    let (group, child) = pids(&output);
    assert_all_gone(group, child, Duration::from_millis(500));
}

#[test]
fn aborting_the_session_mid_command_kills_the_command_and_its_children_promptly() {
    let dir = TempDir::new();
    let (runtime, session) = session(&dir, json!({ "command": COMMAND, "timeout_ms": 60_000 }));
    let mut events = session.events();
    // Aborts once the command has printed both pids, so it is surely running.
    let abort_while_running = async {
        let mut printed = String::new();
        while printed.lines().count() < 2 {
            match events.next().await.map(|event| event.data) {
                Some(EventData::ToolCallOutputDelta { delta, .. }) => printed.push_str(&delta),
                Some(_) => {}
                None => break,
            }
        }
        session.abort();
        (printed, Instant::now())
    };
    let (stop, (printed, aborted)) = runtime.block_on(join(session.submit("sleep"), abort_while_running));
    assert_eq!(stop, Ok(StopReason::Aborted));
    assert_eq!(session.status(), SessionStatus::Closed);
    let (group, child) = pids(&printed);
    // SIGTERM at once; the 2 s grace before SIGKILL is not needed by `sleep`.
    assert_all_gone(group, child, Duration::from_secs(2));
    assert!(aborted.elapsed() < Duration::from_secs(2), "{:?} after the abort", aborted.elapsed());
}
