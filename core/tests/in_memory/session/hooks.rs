//! Hooks in the loop: what each point is told, and what a block, a rewrite, added context and a
//! failed hook do to the session.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::RefCell;
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;
use futures::future::LocalBoxFuture;
use serde_json::json;

use openagent_core::approval::{ApprovalMode, Permission, Policy, Rule};
use openagent_core::env::ExecutionEnvironment;
use openagent_core::hooks::{HookEvent, HookInput, HookOutcome, Hooks};
use openagent_core::llm::{ScriptStep, ScriptedClient};
use openagent_core::profiles::CoreProfile;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::{Decision, EventData, OutcomeStatus, Session, SessionBuilder, SessionEvent, StopReason, Turn};
use openagent_core::tools::{register_core_tools, ToolRegistry};
use openagent_memenv::MemoryEnvironment;

/// Answers each point with a fixed outcome and records every input it was given.
#[derive(Default)]
struct Script {
    answers: Vec<(&'static str, HookOutcome)>,
    seen: RefCell<Vec<HookInput>>,
}

#[async_trait(?Send)]
impl Hooks for Script {
    async fn run(&self, input: &HookInput) -> HookOutcome {
        self.seen.borrow_mut().push(input.clone());
        let answer = self.answers.iter().find(|(point, _)| *point == input.event.name());
        answer.map(|(_, outcome)| outcome.clone()).unwrap_or_default()
    }
}

struct Fixture {
    session: Session,
    env: Rc<MemoryEnvironment>,
    client: Rc<ScriptedClient>,
    hooks: Rc<Script>,
    /// Tasks the session spawned (the `session_end` hooks), run by [`Fixture::run_spawned`].
    spawned: Rc<RefCell<Vec<LocalBoxFuture<'static, ()>>>>,
}

impl Fixture {
    fn new(steps: Vec<ScriptStep>, answers: Vec<(&'static str, HookOutcome)>) -> Self {
        let spawned: Rc<RefCell<Vec<LocalBoxFuture<'static, ()>>>> = Rc::default();
        let queue = spawned.clone();
        let runtime = Rc::new(VirtualRuntime::new(move |task| queue.borrow_mut().push(task)));
        let (builder, env, client) = builder(steps, runtime);
        let hooks = Rc::new(Script { answers, ..Script::default() });
        let session = builder.hooks(hooks.clone()).build();
        Self { session, env, client, hooks, spawned }
    }

    fn submit(&self, input: &str) -> (StopReason, Vec<SessionEvent>) {
        let mut events = self.session.events();
        let stop = block_on(self.session.submit(input)).unwrap();
        let mut out = Vec::new();
        while let Some(event) = events.try_recv() {
            out.push(event);
        }
        (stop, out)
    }

    fn points(&self) -> Vec<&'static str> {
        self.hooks.seen.borrow().iter().map(|input| input.event.name()).collect()
    }

    fn run_spawned(&self) {
        let tasks = std::mem::take(&mut *self.spawned.borrow_mut());
        for task in tasks {
            block_on(task);
        }
    }
}

/// A session over the core tools in a memory environment, answered by `steps`.
fn builder(steps: Vec<ScriptStep>, runtime: Rc<VirtualRuntime>) -> (SessionBuilder, Rc<MemoryEnvironment>, Rc<ScriptedClient>) {
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let mut registry = ToolRegistry::new();
    register_core_tools(&mut registry);
    let profile = Rc::new(CoreProfile::new("test-model", registry));
    let client = Rc::new(ScriptedClient::new(steps));
    (Session::builder(profile, env.clone(), client.clone(), runtime), env, client)
}

fn block(reason: &str) -> HookOutcome {
    HookOutcome { block: Some(reason.into()), ..HookOutcome::default() }
}

fn write(path: &str) -> ScriptStep {
    ScriptStep::tool_call("write_file", json!({"file_path": path, "content": "x"}))
}

fn decisions(events: &[SessionEvent]) -> Vec<(Decision, String, Option<String>)> {
    let decided = events.iter().filter_map(|e| match &e.data {
        EventData::ToolDecision { decision, source, reason, .. } => Some((*decision, source.clone(), reason.clone())),
        _ => None,
    });
    decided.collect()
}

fn warnings(events: &[SessionEvent]) -> Vec<String> {
    let warnings = events.iter().filter_map(|e| match &e.data {
        EventData::Warning { message } => Some(message.clone()),
        _ => None,
    });
    warnings.collect()
}

#[test]
fn each_point_is_told_the_session_the_directory_and_its_own_facts_as_json() {
    let f = Fixture::new(vec![write("a.txt"), ScriptStep::text("done")], vec![]);
    f.submit("write a");
    f.session.close();
    f.run_spawned();
    assert_eq!(f.points(), ["user_prompt_submit", "pre_tool_use", "post_tool_use", "session_end"]);
    let seen = f.hooks.seen.borrow();
    let id = f.session.id();
    let cwd = f.env.working_directory();
    assert_eq!(
        serde_json::to_value(&seen[0]).unwrap(),
        json!({"hook_event_name": "user_prompt_submit", "session_id": id, "cwd": cwd, "prompt": "write a"})
    );
    let HookEvent::PreToolUse { call_id, .. } = &seen[1].event else { panic!("{:?}", seen[1]) };
    let arguments = json!({"file_path": "a.txt", "content": "x"});
    assert_eq!(
        serde_json::to_value(&seen[1]).unwrap(),
        json!({"hook_event_name": "pre_tool_use", "session_id": id, "cwd": cwd, "call_id": call_id,
               "tool_name": "write_file", "tool_input": arguments})
    );
    let post = serde_json::to_value(&seen[2]).unwrap();
    assert_eq!(post["hook_event_name"], "post_tool_use");
    assert_eq!(post["tool_input"], arguments);
    assert_eq!(post["is_error"], false);
    assert!(post["tool_output"].as_str().unwrap().contains("a.txt"), "{post}");
    assert_eq!(
        serde_json::to_value(&seen[3]).unwrap(),
        json!({"hook_event_name": "session_end", "session_id": id, "cwd": cwd, "reason": "closed"})
    );
}

#[test]
fn a_pre_tool_use_block_refuses_the_call_with_its_reason_and_the_session_goes_on() {
    let f =
        Fixture::new(vec![write("a.txt"), ScriptStep::text("done")], vec![("pre_tool_use", block("writes are frozen today"))]);
    let (stop, events) = f.submit("write a");
    assert_eq!(stop, StopReason::Completed);
    assert_eq!(decisions(&events), [(Decision::Deny, "hook".into(), Some("writes are frozen today".into()))]);
    assert!(block_on(f.env.read_file("a.txt", None, None)).is_err(), "the blocked write did not happen");
    let results = Turn::tool_results(&f.session.history());
    assert!(results[0].is_error);
    assert_eq!(
        &*results[0].content,
        "Not run: a pre_tool_use hook blocked the call to write_file (writes are frozen today). \
         Do something else, or ask the user."
    );
    // The model read the refusal: it is in the second request.
    assert_eq!(f.client.requests().len(), 2);
    assert!(format!("{:?}", f.client.requests()[1].messages).contains("writes are frozen today"));
    // A blocked call has no post_tool_use.
    assert_eq!(f.points(), ["user_prompt_submit", "pre_tool_use"]);
}

#[test]
fn a_pre_tool_use_rewrite_runs_the_call_with_the_new_arguments_validated_again() {
    let rewrite =
        HookOutcome { tool_input: Some(json!({"file_path": "safe/a.txt", "content": "rewritten"})), ..HookOutcome::default() };
    let f = Fixture::new(vec![write("a.txt"), ScriptStep::text("done")], vec![("pre_tool_use", rewrite)]);
    f.submit("write a");
    assert_eq!(block_on(f.env.read_file("safe/a.txt", None, None)).unwrap(), "rewritten");
    assert!(block_on(f.env.read_file("a.txt", None, None)).is_err());
    let seen = f.hooks.seen.borrow();
    let HookEvent::PostToolUse { tool_input, .. } = &seen[2].event else { panic!("{:?}", seen[2]) };
    assert_eq!(tool_input["file_path"], "safe/a.txt", "post_tool_use sees the arguments that ran");

    let invalid = HookOutcome { tool_input: Some(json!({"file_path": 7})), ..HookOutcome::default() };
    let f = Fixture::new(vec![write("a.txt"), ScriptStep::text("done")], vec![("pre_tool_use", invalid)]);
    let (stop, events) = f.submit("write a");
    assert_eq!(stop, StopReason::Completed);
    let decided = decisions(&events);
    assert_eq!((decided[0].0, decided[0].1.as_str()), (Decision::Deny, "hook"));
    let reason = decided[0].2.clone().unwrap();
    assert!(
        reason.starts_with("The arguments a pre_tool_use hook gave are not valid: Invalid arguments for tool write_file"),
        "{reason}"
    );
    assert!(block_on(f.env.read_file("a.txt", None, None)).is_err());
}

#[test]
fn a_post_tool_use_block_turns_the_result_into_an_error_the_model_reads() {
    let f = Fixture::new(
        vec![write("a.txt"), ScriptStep::text("done")],
        vec![("post_tool_use", block("a.txt must not be committed"))],
    );
    let (stop, events) = f.submit("write a");
    assert_eq!(stop, StopReason::Completed);
    assert!(block_on(f.env.read_file("a.txt", None, None)).is_ok(), "the tool ran");
    let results = Turn::tool_results(&f.session.history());
    assert!(results[0].is_error);
    assert!(
        results[0].content.ends_with("\n\nA post_tool_use hook flagged this result: a.txt must not be committed"),
        "{}",
        results[0].content
    );
    let end = events.iter().find_map(|e| match &e.data {
        EventData::ToolCallEnd { output, error, .. } => Some((output.clone(), error.clone())),
        _ => None,
    });
    let (output, error) = end.unwrap();
    assert!(output.is_some(), "the tool's own output is still reported");
    assert_eq!(error.as_deref(), Some("A post_tool_use hook flagged this result: a.txt must not be committed"));
}

#[test]
fn a_blocked_prompt_never_reaches_the_history_or_the_model_and_the_input_ends_blocked() {
    let f = Fixture::new(vec![ScriptStep::text("never")], vec![("user_prompt_submit", block("no deploys on Friday"))]);
    let (stop, events) = f.submit("deploy it");
    assert_eq!(stop, StopReason::Blocked);
    assert!(f.session.history().is_empty());
    assert_eq!(f.client.calls(), 0);
    assert!(!events.iter().any(|e| matches!(e.data, EventData::UserInput { .. })));
    let result = f.session.last_result().unwrap();
    assert_eq!(result.outcome.status, OutcomeStatus::Failure);
    assert_eq!(result.outcome.summary, "A user_prompt_submit hook blocked the input: no deploys on Friday");
    // The session is still usable.
    assert_eq!(f.session.status(), openagent_core::SessionStatus::Idle);
}

#[test]
fn context_from_user_prompt_submit_follows_the_prompt_as_a_steering_message() {
    let context = HookOutcome { context: Some("The branch is release-2.1.".into()), ..HookOutcome::default() };
    let f = Fixture::new(vec![ScriptStep::text("ok")], vec![("user_prompt_submit", context)]);
    let (_, events) = f.submit("which branch?");
    let history = f.session.history();
    assert!(matches!(&history[0], Turn::User { content, .. } if content == "which branch?"));
    assert!(matches!(&history[1], Turn::Steering { content, .. } if content == "The branch is release-2.1."));
    assert!(events.iter().any(|e| matches!(&e.data, EventData::SteeringInjected { content } if content.contains("release-2.1"))));
    assert!(format!("{:?}", f.client.requests()[0].messages).contains("release-2.1"));
}

#[test]
fn a_failed_hook_is_a_warning_and_changes_nothing_else() {
    let failed =
        HookOutcome { failures: vec!["hook `./check.sh` (pre_tool_use) timed out after 1 s".into()], ..HookOutcome::default() };
    let f = Fixture::new(vec![write("a.txt"), ScriptStep::text("done")], vec![("pre_tool_use", failed)]);
    let (stop, events) = f.submit("write a");
    assert_eq!(stop, StopReason::Completed);
    assert_eq!(warnings(&events), ["hook `./check.sh` (pre_tool_use) timed out after 1 s"]);
    assert!(block_on(f.env.read_file("a.txt", None, None)).is_ok());
    assert_eq!(decisions(&events)[0].0, Decision::Allow);
}

#[test]
fn session_end_runs_once_after_the_session_closed_and_ended_waits_for_it() {
    let f = Fixture::new(vec![ScriptStep::text("ok")], vec![]);
    f.submit("hi");
    f.session.close();
    f.session.close();
    assert!(!f.points().contains(&"session_end"), "not before its task runs");
    let ended = f.session.ended();
    f.run_spawned();
    block_on(ended);
    assert_eq!(f.points(), ["user_prompt_submit", "session_end"]);
}

/// Refuses `shell`, gives `glob` arguments its schema refuses, and flags what `grep` found.
struct ByTool;

#[async_trait(?Send)]
impl Hooks for ByTool {
    async fn run(&self, input: &HookInput) -> HookOutcome {
        match &input.event {
            HookEvent::PreToolUse { tool_name, .. } if tool_name == "shell" => block("not here"),
            HookEvent::PreToolUse { tool_name, .. } if tool_name == "glob" => {
                HookOutcome { tool_input: Some(json!({})), ..HookOutcome::default() }
            }
            HookEvent::PostToolUse { tool_name, .. } if tool_name == "grep" => block("looks wrong"),
            _ => HookOutcome::default(),
        }
    }
}

#[test]
fn every_way_a_call_ends_gives_one_decision_then_one_tool_call_end() {
    let read = || ScriptStep::tool_call("read_file", json!({"file_path": "a.txt"}));
    let steps = vec![
        ScriptStep::tool_call("no_such_tool", json!({})),
        ScriptStep::tool_call("read_file", json!(null)),
        ScriptStep::tool_call("read_file", json!({})),
        write("a.txt"),
        read(),
        read(),
        read(),
        ScriptStep::tool_call("shell", json!({"command": "ls"})),
        ScriptStep::tool_call("glob", json!({"pattern": "*"})),
        write("secret/key"),
        ScriptStep::tool_call("read_file", json!({"file_path": "missing.txt"})),
        ScriptStep::tool_call("grep", json!({"pattern": "x"})),
        ScriptStep::text("done"),
    ];
    let (builder, _, _) = builder(steps, Rc::new(VirtualRuntime::new(|_| {})));
    let rule = Rule { tool: "write_file".into(), command: None, path: Some("secret/**".into()), decision: Permission::Deny };
    let policy = Policy { mode: ApprovalMode::FullAuto, rules: vec![rule] };
    let session = builder.hooks(Rc::new(ByTool)).approval(policy).build();
    let mut events = session.events();
    assert_eq!(block_on(session.submit("go")).unwrap(), StopReason::Completed);
    let mut calls: Vec<(String, Vec<&'static str>)> = Vec::new();
    let mut sources = Vec::new();
    while let Some(event) = events.try_recv() {
        let id = match &event.data {
            EventData::ToolCallStart { call_id, .. } => {
                calls.push((call_id.clone(), Vec::new()));
                call_id
            }
            EventData::ToolDecision { call_id, source, .. } => {
                sources.push(source.clone());
                call_id
            }
            EventData::ToolCallEnd { call_id, .. } => call_id,
            _ => continue,
        };
        let call = calls.iter_mut().find(|(call, _)| call == id).expect("an event for a call that did not start");
        call.1.push(event.kind());
    }
    // registry, arguments, schema, success, success, repeat, hook block, hook rewrite, approval,
    // tool error, post_tool_use flag.
    assert_eq!(calls.len(), 12);
    for (id, kinds) in &calls {
        assert_eq!(kinds, &["tool_call_start", "tool_decision", "tool_call_end"], "{id}");
    }
    let expected = ["registry", "arguments", "schema", "mode", "mode", "mode", "repeat", "hook", "hook", "rule", "mode", "mode"];
    assert_eq!(sources, expected);
}
