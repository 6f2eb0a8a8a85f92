//! Session tests, named after the items of spec section 9 they prove.

mod approval;
mod compaction;
mod hooks;
mod images;
mod lenient;
mod named_files;
mod read_first;
mod repeats;
mod results;
mod sandbox;
mod snapshot;
mod subagents;

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::{Cell, RefCell};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use async_trait::async_trait;
use futures::executor::block_on;
use futures::StreamExt;
use serde_json::{json, Value};

use openagent_core::env::ExecutionEnvironment;
use openagent_core::llm::{ContentPart, ErrorKind, Message, Role, ScriptStep, ScriptedClient, Usage};
use openagent_core::profiles::CoreProfile;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::*;
use openagent_core::tools::{RegisteredTool, ToolContext, ToolError, ToolExecutor, ToolOutput, ToolRegistry};
use openagent_memenv::MemoryEnvironment;

/// A tool whose behaviour is a closure over its arguments.
struct FnTool(Box<dyn Fn(&Value) -> Result<ToolOutput, ToolError>>);

#[async_trait(?Send)]
impl ToolExecutor for FnTool {
    async fn execute(&self, args: &Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        (self.0)(args)
    }
}

fn tool(name: &str, parameters: Value, f: impl Fn(&Value) -> Result<ToolOutput, ToolError> + 'static) -> RegisteredTool {
    let definition =
        openagent_core::llm::ToolDefinition { name: name.into(), description: format!("test tool {name}"), parameters };
    RegisteredTool::new(definition, Rc::new(FnTool(Box::new(f)))).expect("valid test schema")
}

fn echo_tool() -> RegisteredTool {
    let params = json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    tool("echo", params, |args| Ok(args["text"].as_str().unwrap_or_default().into()))
}

struct Harness {
    session: Session,
    client: Rc<ScriptedClient>,
    env: Rc<MemoryEnvironment>,
    events: RefCell<Events>,
}

impl Harness {
    fn new(steps: Vec<ScriptStep>) -> Self {
        Self::with(steps, SessionConfig::default(), |p| p)
    }

    fn with(steps: Vec<ScriptStep>, config: SessionConfig, profile: impl FnOnce(CoreProfile) -> CoreProfile) -> Self {
        let runtime = Rc::new(VirtualRuntime::new(|_| {}));
        let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
        let mut registry = ToolRegistry::new();
        registry.register(echo_tool());
        openagent_core::tools::register_core_tools(&mut registry);
        let profile = Rc::new(profile(CoreProfile::new("test-model", registry)));
        let client = Rc::new(ScriptedClient::new(steps));
        let session = Session::builder(profile, env.clone(), client.clone(), runtime).config(config).id("s1").build();
        let events = RefCell::new(session.events());
        Self { session, client, env, events }
    }

    fn submit(&self, input: &str) -> Result<StopReason, SessionError> {
        block_on(self.session.submit(input))
    }

    /// Every event emitted since the last call.
    fn drain(&self) -> Vec<SessionEvent> {
        let mut out = Vec::new();
        while let Some(event) = self.events.borrow_mut().try_recv() {
            out.push(event);
        }
        out
    }

    fn kinds(&self) -> Vec<&'static str> {
        self.drain().iter().map(SessionEvent::kind).collect()
    }
}

fn tool_results(history: &[Turn]) -> Vec<openagent_core::llm::ToolResult> {
    Turn::tool_results(history)
}

// ---- 9.1 Core loop ----

#[test]
fn session_is_created_with_a_profile_and_an_environment() {
    let h = Harness::new(vec![]);
    assert_eq!(h.session.id(), "s1");
    assert_eq!(h.session.status(), SessionStatus::Idle);
    assert!(h.session.tool_names().contains(&"read_file".to_owned()));
}

#[test]
fn process_input_loops_llm_then_tools_until_natural_completion() {
    let h = Harness::new(vec![
        ScriptStep::tool_call("write_file", json!({"file_path": "notes.txt", "content": "hello\n"})),
        ScriptStep::tool_call("read_file", json!({"file_path": "notes.txt"})),
        ScriptStep::text("The file says hello."),
    ]);
    assert_eq!(h.session.last_answer(), "", "no answer before the first");
    assert_eq!(h.submit("write and read a note").unwrap(), StopReason::Completed);
    assert_eq!(h.session.last_answer(), "The file says hello.", "the last assistant turn, past the tool rounds");
    assert_eq!(h.client.calls(), 3);
    assert_eq!(block_on(h.env.read_file("notes.txt", None, None)).unwrap(), "hello\n");
    let results = tool_results(&h.session.history());
    assert_eq!(results.len(), 2);
    assert!(results[1].content.contains("hello"), "{:?}", results[1]);
    assert_eq!(h.session.status(), SessionStatus::Idle);
}

#[test]
fn natural_completion_text_only_response_exits_the_loop() {
    let h = Harness::new(vec![ScriptStep::text("Nothing to do."), ScriptStep::text("unused")]);
    assert_eq!(h.submit("hi").unwrap(), StopReason::Completed);
    assert_eq!(h.client.calls(), 1);
    assert_eq!(h.client.remaining(), 1);
}

#[test]
fn round_limit_max_tool_rounds_per_input_stops_the_loop() {
    let config = SessionConfig { max_tool_rounds_per_input: 2, ..SessionConfig::default() };
    let steps = (0..5).map(|i| ScriptStep::tool_call("echo", json!({"text": format!("{i}")}))).collect();
    let h = Harness::with(steps, config, |p| p);
    assert_eq!(h.submit("go").unwrap(), StopReason::RoundLimit);
    assert_eq!(h.client.calls(), 2);
    let limit = h.drain().into_iter().find(|e| e.kind() == "turn_limit").expect("turn_limit event");
    assert_eq!(limit.data, EventData::TurnLimit { limit: "max_tool_rounds_per_input".into(), count: 2 });
    // The limit is per input: the next input gets its own rounds.
    assert_eq!(h.submit("again").unwrap(), StopReason::RoundLimit);
    assert_eq!(h.client.calls(), 4);
}

#[test]
fn turn_limit_max_turns_stops_the_loop_across_inputs() {
    let config = SessionConfig { max_turns: 3, ..SessionConfig::default() };
    let steps = vec![
        ScriptStep::tool_call("echo", json!({"text": "a"})),
        ScriptStep::text("first done"),
        ScriptStep::tool_call("echo", json!({"text": "b"})),
        ScriptStep::text("never reached"),
    ];
    let h = Harness::with(steps, config, |p| p);
    assert_eq!(h.submit("one").unwrap(), StopReason::Completed);
    assert_eq!(h.submit("two").unwrap(), StopReason::TurnLimit);
    assert_eq!(h.client.calls(), 3);
    assert!(h.drain().iter().any(|e| e.data == EventData::TurnLimit { limit: "max_turns".into(), count: 3 }));
}

/// A tool that never finishes and records whether its future was dropped (cancelled).
struct HangingTool {
    started: Rc<Cell<bool>>,
    dropped: Rc<Cell<bool>>,
}

struct DropFlag(Rc<Cell<bool>>);

impl Drop for DropFlag {
    fn drop(&mut self) {
        self.0.set(true);
    }
}

#[async_trait(?Send)]
impl ToolExecutor for HangingTool {
    async fn execute(&self, _args: &Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let _guard = DropFlag(self.dropped.clone());
        self.started.set(true);
        futures::future::pending::<()>().await;
        Ok("unreachable".into())
    }
}

/// Registers `hang`, a tool that never finishes; says whether it started and whether it was dropped.
fn register_hanging_tool(session: &Session) -> (Rc<Cell<bool>>, Rc<Cell<bool>>) {
    let (started, dropped) = (Rc::new(Cell::new(false)), Rc::new(Cell::new(false)));
    let parameters = json!({"type": "object"});
    let definition = openagent_core::llm::ToolDefinition { name: "hang".into(), description: "never ends".into(), parameters };
    let hanging = HangingTool { started: started.clone(), dropped: dropped.clone() };
    session.register_tool(RegisteredTool::new(definition, Rc::new(hanging)).unwrap());
    (started, dropped)
}

#[test]
fn abort_signal_cancels_running_tools_and_closes_the_session() {
    let h = Harness::new(vec![ScriptStep::tool_call("hang", json!({}))]);
    let (started, dropped) = register_hanging_tool(&h.session);

    let result = act_when(h.session.submit("run forever"), || started.get(), || h.session.abort());
    assert_eq!(result.unwrap(), StopReason::Aborted);
    assert!(dropped.get(), "the running tool's future must be dropped");
    assert_eq!(h.session.status(), SessionStatus::Closed);
    let kinds = h.kinds();
    assert_eq!(&kinds[kinds.len() - 2..], ["processing_end", "session_end"]);
    assert_eq!(h.submit("more").unwrap_err(), SessionError::Closed);
}

#[test]
fn abort_signal_cancels_the_llm_call() {
    let h = Harness::new(vec![ScriptStep::Hang]);
    let result = act_when(h.session.submit("hang"), || h.client.calls() == 1, || h.session.abort());
    assert_eq!(result.unwrap(), StopReason::Aborted);
    assert_eq!(h.session.status(), SessionStatus::Closed);
}

#[test]
fn abort_when_idle_closes_at_once() {
    let h = Harness::new(vec![]);
    h.session.abort();
    assert_eq!(h.session.status(), SessionStatus::Closed);
    assert_eq!(h.kinds(), ["session_start", "session_end"]);
}

/// Polls `work` beside a task that calls `act` once `ready` says so.
fn act_when<T>(work: impl std::future::Future<Output = T>, ready: impl Fn() -> bool, act: impl Fn()) -> T {
    let trigger = futures::future::poll_fn(|cx| {
        if ready() {
            act();
            Poll::Ready(())
        } else {
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    });
    block_on(futures::future::join(work, trigger)).0
}

#[test]
fn interrupt_stops_a_tool_round_answers_its_calls_and_keeps_the_session() {
    let h = Harness::new(vec![ScriptStep::tool_call("hang", json!({})), ScriptStep::text("ok, stopped")]);
    let (started, dropped) = register_hanging_tool(&h.session);

    let result = act_when(h.session.submit("run forever"), || started.get(), || h.session.interrupt());
    assert_eq!(result.unwrap(), StopReason::Interrupted);
    assert!(dropped.get(), "the running tool's future must be dropped");
    assert_eq!(h.session.status(), SessionStatus::Idle);
    assert!(h
        .drain()
        .iter()
        .any(|e| e.data == EventData::ProcessingEnd { state: SessionStatus::Idle, reason: StopReason::Interrupted }));

    // The next input continues the same history, and the cut-short call has its answer.
    assert_eq!(h.submit("never mind").unwrap(), StopReason::Completed);
    let results = tool_results(&h.session.history());
    assert_eq!(results.len(), 1);
    assert!(results[0].is_error && results[0].content.starts_with("Interrupted by the user"));
    let last = h.client.requests().pop().unwrap();
    assert_eq!(last.messages.last().unwrap().text(), "never mind");
}

#[test]
fn interrupt_cancels_the_llm_call_and_a_later_input_runs() {
    let h = Harness::new(vec![ScriptStep::Hang, ScriptStep::text("back")]);
    let result = act_when(h.session.submit("hang"), || h.client.calls() == 1, || h.session.interrupt());
    assert_eq!(result.unwrap(), StopReason::Interrupted);
    assert_eq!(h.submit("again").unwrap(), StopReason::Completed);
    assert_eq!(h.session.status(), SessionStatus::Idle);
    h.session.interrupt(); // idle: nothing to stop, and the next input is not affected
    assert_eq!(h.session.status(), SessionStatus::Idle);
}

#[test]
fn each_call_gets_a_decision_naming_the_check_that_made_it() {
    let steps = vec![
        ScriptStep::tool_call("no_such_tool", json!({})),
        ScriptStep::tool_call("echo", json!({"text": 42})),
        ScriptStep::tool_call("echo", json!({"text": "fine"})),
        ScriptStep::text("done"),
    ];
    let h = Harness::new(steps);
    h.submit("go").unwrap();
    let decisions: Vec<(Decision, &'static str, bool)> = h
        .drain()
        .into_iter()
        .filter_map(|e| match e.data {
            EventData::ToolDecision { decision, source, reason, .. } => {
                let source = ["registry", "arguments", "schema", "mode"].into_iter().find(|s| *s == source).unwrap();
                Some((decision, source, reason.is_some()))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        decisions,
        [(Decision::Deny, "registry", true), (Decision::Deny, "schema", true), (Decision::Allow, "mode", false)]
    );
}

#[test]
fn retries_configured_on_the_session_are_reported_as_events() {
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let profile = Rc::new(CoreProfile::new("test-model", ToolRegistry::new()));
    let client = Rc::new(ScriptedClient::new(vec![ScriptStep::fail(ErrorKind::RateLimit, "slow down"), ScriptStep::text("ok")]));
    let policy = openagent_core::llm::RetryPolicy { jitter: false, ..Default::default() };
    let session = Session::builder(profile, env, client.clone(), runtime).retries(policy).build();
    let mut events = session.events();
    assert_eq!(block_on(session.submit("hi")).unwrap(), StopReason::Completed);
    assert_eq!(client.calls(), 2);
    let retry = std::iter::from_fn(|| events.try_recv()).find(|e| e.kind() == "provider_retry").unwrap();
    match retry.data {
        EventData::ProviderRetry { attempt, delay_ms, error_kind, message } => {
            assert_eq!((attempt, delay_ms, error_kind), (1, 1000, ErrorKind::RateLimit));
            assert!(message.contains("slow down"), "{message}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn loop_detection_identical_calls_inject_a_warning_steering_turn() {
    let config = SessionConfig { loop_detection_window: 4, ..SessionConfig::default() };
    let mut steps: Vec<_> = (0..4).map(|_| ScriptStep::tool_call("echo", json!({"text": "same"}))).collect();
    steps.push(ScriptStep::text("ok, changing approach"));
    let h = Harness::with(steps, config, |p| p);
    h.submit("loop").unwrap();
    let warning = "Loop detected: the last 4 tool calls follow a repeating pattern. Try a different approach.";
    let history = h.session.history();
    assert!(history.iter().any(|t| matches!(t, Turn::Steering { content, .. } if content == warning)));
    assert!(h.drain().iter().any(|e| e.data == EventData::LoopDetection { message: warning.into() }));
    // The model is told: the last request carries the warning as a user message.
    let last = h.client.requests().pop().unwrap();
    assert!(last.messages.iter().any(|m| m.role == Role::User && m.text() == warning));
}

#[test]
fn loop_detection_can_be_disabled() {
    let config = SessionConfig { loop_detection_window: 2, enable_loop_detection: false, ..SessionConfig::default() };
    let mut steps: Vec<_> = (0..3).map(|_| ScriptStep::tool_call("echo", json!({"text": "same"}))).collect();
    steps.push(ScriptStep::text("done"));
    let h = Harness::with(steps, config, |p| p);
    h.submit("loop").unwrap();
    assert!(!h.kinds().contains(&"loop_detection"));
}

#[test]
fn multiple_sequential_inputs_work() {
    let h = Harness::new(vec![ScriptStep::text("one"), ScriptStep::text("two"), ScriptStep::text("three")]);
    for input in ["a", "b", "c"] {
        assert_eq!(h.submit(input).unwrap(), StopReason::Completed);
    }
    let last = h.client.requests().pop().unwrap();
    // system, then a/one, b/two, c.
    let texts: Vec<String> = last.messages.iter().skip(1).map(Message::text).collect();
    assert_eq!(texts, ["a", "one", "b", "two", "c"]);
}

#[test]
fn a_question_leaves_the_session_awaiting_input() {
    let h = Harness::new(vec![ScriptStep::text("Which file should I change?"), ScriptStep::text("Done.")]);
    h.submit("fix it").unwrap();
    assert_eq!(h.session.status(), SessionStatus::AwaitingInput);
    h.submit("main.rs").unwrap();
    assert_eq!(h.session.status(), SessionStatus::Idle);
}

// ---- 9.3 Tool execution ----

#[test]
fn tool_calls_are_dispatched_through_the_registry_latest_wins() {
    let h = Harness::new(vec![ScriptStep::tool_call("echo", json!({"text": "x"})), ScriptStep::text("done")]);
    let params = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    h.session.register_tool(tool("echo", params, |_| Ok("replaced".into())));
    h.submit("go").unwrap();
    assert_eq!(tool_results(&h.session.history())[0].content.as_ref(), "replaced");
}

#[test]
fn unknown_tool_returns_an_error_result_not_an_exception() {
    let h = Harness::new(vec![ScriptStep::tool_call("no_such_tool", json!({})), ScriptStep::text("sorry")]);
    assert_eq!(h.submit("go").unwrap(), StopReason::Completed);
    let result = &tool_results(&h.session.history())[0];
    assert!(result.is_error);
    assert!(result.content.starts_with("Unknown tool: no_such_tool. Available tools: echo, "), "{}", result.content);
}

#[test]
fn tool_arguments_are_parsed_and_validated_against_the_schema() {
    let bad_json = openagent_core::llm::ToolCall::from_raw("c1", "echo", "{\"text\": ");
    let steps = vec![
        ScriptStep::Reply(reply_with(vec![ContentPart::ToolCall { tool_call: bad_json }])),
        ScriptStep::tool_call("echo", json!({"text": 42})),
        ScriptStep::tool_call("echo", json!({})),
        ScriptStep::text("gave up"),
    ];
    let h = Harness::new(steps);
    h.submit("go").unwrap();
    let results = tool_results(&h.session.history());
    assert!(results.iter().all(|r| r.is_error));
    assert!(results[0].content.starts_with("Invalid arguments for tool echo: the arguments are not a valid JSON object"));
    assert!(results[1].content.starts_with("Invalid arguments for tool echo:\n- /text: "), "{}", results[1].content);
    assert!(results[2].content.contains("text"), "{}", results[2].content);
}

fn reply_with(content: Vec<ContentPart>) -> openagent_core::llm::Response {
    match ScriptStep::text("") {
        ScriptStep::Reply(mut r) => {
            r.message.content = content;
            r
        }
        _ => unreachable!(),
    }
}

#[test]
fn tool_execution_errors_become_error_results() {
    let h = Harness::new(vec![ScriptStep::tool_call("boom", json!({})), ScriptStep::text("recovered")]);
    h.session.register_tool(tool("boom", json!({"type": "object"}), |_| Err(ToolError::new("disk on fire"))));
    assert_eq!(h.submit("go").unwrap(), StopReason::Completed);
    let result = &tool_results(&h.session.history())[0];
    assert!(result.is_error);
    assert_eq!(result.content.as_ref(), "Tool error (boom): disk on fire");
    let end = h.drain().into_iter().find(|e| e.kind() == "tool_call_end").unwrap();
    assert!(
        matches!(end.data, EventData::ToolCallEnd { error: Some(ref e), output: None, .. } if e == "Tool error (boom): disk on fire")
    );
}

/// Completes only once `needed` calls are in flight at the same time.
struct Rendezvous {
    arrived: Rc<Cell<usize>>,
    waiters: Rc<RefCell<Vec<Waker>>>,
    needed: usize,
}

struct Arrive<'a>(&'a Rendezvous, bool);

impl Future for Arrive<'_> {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if !self.1 {
            self.1 = true;
            self.0.arrived.set(self.0.arrived.get() + 1);
            self.0.waiters.borrow_mut().drain(..).for_each(Waker::wake);
        }
        if self.0.arrived.get() >= self.0.needed {
            return Poll::Ready(());
        }
        self.0.waiters.borrow_mut().push(cx.waker().clone());
        Poll::Pending
    }
}

#[async_trait(?Send)]
impl ToolExecutor for Rendezvous {
    async fn execute(&self, args: &Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        Arrive(self, false).await;
        Ok(format!("done {}", args["n"]).into())
    }
}

#[test]
fn parallel_tool_execution_when_the_profile_supports_it() {
    let calls = [("meet", json!({"n": 1})), ("meet", json!({"n": 2})), ("meet", json!({"n": 3}))];
    let h = Harness::new(vec![ScriptStep::tool_calls(&calls), ScriptStep::text("done")]);
    let rendezvous = Rendezvous { arrived: Rc::default(), waiters: Rc::default(), needed: 3 };
    let definition = openagent_core::llm::ToolDefinition {
        name: "meet".into(),
        description: "waits for the others".into(),
        parameters: json!({"type": "object"}),
    };
    h.session.register_tool(RegisteredTool::new(definition, Rc::new(rendezvous)).unwrap());
    // Sequential execution would never complete: each call waits for all three.
    h.submit("go").unwrap();
    let results = tool_results(&h.session.history());
    let contents: Vec<&str> = results.iter().map(|r| r.content.as_ref()).collect();
    assert_eq!(contents, ["done 1", "done 2", "done 3"], "results come back in call order");
    let ids: Vec<&str> = results.iter().map(|r| r.tool_call_id.as_str()).collect();
    assert_eq!(ids, ["call_1_1", "call_1_2", "call_1_3"]);
}

#[test]
fn sequential_tool_execution_when_the_profile_does_not() {
    let calls = [("echo", json!({"text": "1"})), ("echo", json!({"text": "2"}))];
    let h = Harness::with(vec![ScriptStep::tool_calls(&calls), ScriptStep::text("done")], SessionConfig::default(), |p| {
        p.with_parallel_tool_calls(false)
    });
    h.submit("go").unwrap();
    let kinds: Vec<_> = h.kinds().into_iter().filter(|k| k.starts_with("tool_call")).collect();
    assert_eq!(kinds, ["tool_call_start", "tool_call_end", "tool_call_start", "tool_call_end"]);
}

// ---- 9.5 Tool output truncation ----

#[test]
fn tool_call_end_carries_the_full_output_and_the_model_gets_the_truncated_one() {
    let big = format!("{}\n", "x".repeat(79)).repeat(1000); // 80 000 characters in 1000 lines
    let h = Harness::new(vec![ScriptStep::tool_call("read_file", json!({"file_path": "big.txt"})), ScriptStep::text("big")]);
    block_on(h.env.write_file("big.txt", &big)).unwrap();
    h.submit("read it").unwrap();
    let end = h.drain().into_iter().find(|e| e.kind() == "tool_call_end").unwrap();
    let EventData::ToolCallEnd { output: Some(full), .. } = end.data else { panic!("no output") };
    assert_eq!(full.lines().count(), 1000, "the event has every line");
    let sent = &tool_results(&h.session.history())[0].content;
    assert!(sent.contains("[WARNING: Tool output was truncated."), "the model gets a marked, truncated output");
    assert!(sent.chars().count() < 51_000);
}

#[test]
fn an_output_the_model_gets_whole_is_one_text_shared_by_the_event_and_the_history() {
    let h = Harness::new(vec![ScriptStep::tool_call("read_file", json!({"file_path": "small.txt"})), ScriptStep::text("read")]);
    block_on(h.env.write_file("small.txt", &"y".repeat(5_000))).unwrap();
    h.submit("read it").unwrap();
    let end = h.drain().into_iter().find(|e| e.kind() == "tool_call_end").unwrap();
    let EventData::ToolCallEnd { output: Some(full), .. } = end.data else { panic!("no output") };
    let history = h.session.history();
    let sent = &tool_results(&history)[0].content;
    assert_eq!(full, *sent);
    assert_eq!(full.as_ptr(), sent.as_ptr(), "the same text, not a copy of it");
}

#[test]
fn truncation_limits_are_overridable_through_session_config() {
    let mut config = SessionConfig::default();
    config.tool_output_limits.insert("echo".into(), 10);
    let h = Harness::with(
        vec![ScriptStep::tool_call("echo", json!({"text": "abcdefghijklmnopqrstuvwxyz"})), ScriptStep::text("ok")],
        config,
        |p| p,
    );
    h.submit("go").unwrap();
    let sent = &tool_results(&h.session.history())[0].content;
    assert!(sent.starts_with("abcde\n\n[WARNING: Tool output was truncated. 16 characters"), "{sent}");
}

// ---- 9.6 Steering ----

#[test]
fn steer_is_injected_after_the_current_tool_round_as_a_user_message() {
    let h = Harness::new(vec![ScriptStep::tool_call("steer_me", json!({})), ScriptStep::text("adjusted")]);
    let session = h.session.clone();
    h.session.register_tool(tool("steer_me", json!({"type": "object"}), move |_| {
        session.steer("use tabs, not spaces");
        Ok("round done".into())
    }));
    h.submit("format the file").unwrap();
    let history = h.session.history();
    let kinds: Vec<&str> = history
        .iter()
        .map(|t| match t {
            Turn::User { .. } => "user",
            Turn::Assistant { .. } => "assistant",
            Turn::ToolResults { .. } => "tool_results",
            Turn::Steering { .. } => "steering",
            Turn::System { .. } => "system",
            Turn::Summary { .. } => "summary",
        })
        .collect();
    assert_eq!(kinds, ["user", "assistant", "tool_results", "steering", "assistant"]);
    let second = &h.client.requests()[1];
    let last = second.messages.last().unwrap();
    assert_eq!((last.role, last.text()), (Role::User, "use tabs, not spaces".to_owned()));
    assert!(h.drain().iter().any(|e| e.data == EventData::SteeringInjected { content: "use tabs, not spaces".into() }));
}

#[test]
fn steer_while_idle_is_delivered_on_the_next_submit() {
    let h = Harness::new(vec![ScriptStep::text("ok")]);
    h.session.steer("be brief");
    h.submit("hello").unwrap();
    let request = &h.client.requests()[0];
    let texts: Vec<String> = request.messages.iter().skip(1).map(Message::text).collect();
    assert_eq!(texts, ["hello", "be brief"]);
}

#[test]
fn steering_left_after_the_last_tool_round_can_be_taken_back() {
    let h = Harness::new(vec![ScriptStep::text("done"), ScriptStep::text("again")]);
    h.submit("hello").unwrap();
    // Queued after the input's last round: it would open the next input.
    h.session.steer("too late");
    assert_eq!(h.session.take_steering(), ["too late"]);
    assert!(h.session.take_steering().is_empty());
    h.submit("next").unwrap();
    let texts: Vec<String> = h.client.requests()[1].messages.iter().map(Message::text).collect();
    assert!(!texts.iter().any(|text| text == "too late"), "{texts:?}");
}

#[test]
fn follow_up_is_processed_after_the_current_input_completes() {
    let h = Harness::new(vec![
        ScriptStep::tool_call("echo", json!({"text": "1"})),
        ScriptStep::text("first"),
        ScriptStep::text("second"),
    ]);
    h.session.follow_up("now the tests");
    assert_eq!(h.submit("write code").unwrap(), StopReason::Completed);
    assert_eq!(h.client.calls(), 3);
    let inputs: Vec<String> = h
        .drain()
        .into_iter()
        .filter_map(|e| match e.data {
            EventData::UserInput { content, .. } => Some(content),
            _ => None,
        })
        .collect();
    assert_eq!(inputs, ["write code", "now the tests"]);
}

// ---- 9.7 Reasoning effort ----

#[test]
fn reasoning_effort_is_passed_through_and_changes_take_effect_on_the_next_call() {
    let config = SessionConfig { reasoning_effort: Some("low".into()), ..SessionConfig::default() };
    let h = Harness::with(
        vec![ScriptStep::tool_call("think_harder", json!({})), ScriptStep::text("done"), ScriptStep::text("again")],
        config,
        |p| p,
    );
    let session = h.session.clone();
    h.session.register_tool(tool("think_harder", json!({"type": "object"}), move |_| {
        session.set_reasoning_effort(Some("high".into()));
        Ok("ok".into())
    }));
    h.submit("go").unwrap();
    h.session.set_reasoning_effort(None);
    h.submit("more").unwrap();
    let efforts: Vec<Option<String>> = h.client.requests().into_iter().map(|r| r.reasoning_effort).collect();
    assert_eq!(efforts, [Some("low".into()), Some("high".into()), None]);
}

#[test]
fn max_output_tokens_caps_every_response() {
    let config = SessionConfig { max_output_tokens: Some(256), ..SessionConfig::default() };
    let h = Harness::with(vec![ScriptStep::text("short")], config, |p| p);
    h.submit("go").unwrap();
    assert_eq!(h.client.requests()[0].max_tokens, Some(256));
    let h = Harness::new(vec![ScriptStep::text("short")]);
    h.submit("go").unwrap();
    assert_eq!(h.client.requests()[0].max_tokens, None, "the provider's default unless set");
}

// ---- 9.10 Event system ----

#[test]
fn event_kinds_are_emitted_at_the_correct_times() {
    let h = Harness::new(vec![ScriptStep::tool_call("echo", json!({"text": "hi"})), ScriptStep::text("all done")]);
    h.submit("say hi").unwrap();
    h.session.close();
    assert_eq!(
        h.kinds(),
        [
            "session_start",
            "user_input",
            "turn_start",
            "assistant_text_end",
            "tool_call_start",
            "tool_decision",
            "tool_call_end",
            "turn_start",
            "assistant_text_start",
            "assistant_text_delta",
            "assistant_text_delta",
            "assistant_text_end",
            "result",
            "processing_end",
            "session_end",
        ]
    );
}

#[test]
fn events_are_delivered_as_an_async_stream_and_serialise_to_the_envelope() {
    let h = Harness::new(vec![ScriptStep::text("hello there")]);
    let mut second = h.session.events();
    h.submit("hi").unwrap();
    let first = block_on(second.next()).unwrap();
    let json = serde_json::to_value(&first).unwrap();
    assert_eq!(
        json,
        json!({"kind": "session_start", "timestamp": "2025-01-01T00:00:00.000Z", "session_id": "s1",
               "data": {"provider": "core", "model": "test-model", "working_directory": "/workspace"}})
    );
    let back: SessionEvent = serde_json::from_value(json).unwrap();
    assert_eq!(back, first);
}

#[test]
fn text_deltas_carry_only_the_new_text() {
    let h = Harness::new(vec![ScriptStep::text("one two three")]);
    h.submit("count").unwrap();
    let deltas: Vec<String> = h
        .drain()
        .into_iter()
        .filter_map(|e| match e.data {
            EventData::AssistantTextDelta { delta } => Some(delta),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, ["one ", "two ", "three"]);
}

#[test]
fn reasoning_streams_in_its_own_deltas_before_the_text() {
    use openagent_core::llm::{FinishReason, Reason, StreamEvent};
    let h = Harness::new(vec![ScriptStep::Events(vec![
        StreamEvent::StreamStart { id: Some("r1".into()), model: None, warnings: vec![] },
        StreamEvent::ReasoningStart { id: "t".into() },
        StreamEvent::ReasoningDelta { id: "t".into(), delta: "First, ".into() },
        StreamEvent::ReasoningDelta { id: "t".into(), delta: "count.".into() },
        StreamEvent::ReasoningEnd { id: "t".into(), signature: None },
        StreamEvent::TextStart { text_id: "a".into() },
        StreamEvent::TextDelta { text_id: "a".into(), delta: "three".into() },
        StreamEvent::TextEnd { text_id: "a".into() },
        StreamEvent::Finish { finish_reason: FinishReason::new(Reason::Stop, None), usage: Usage::new(1, 1) },
    ])]);
    h.submit("count").unwrap();
    let streamed: Vec<(&str, String)> = h
        .drain()
        .into_iter()
        .filter_map(|e| match e.data {
            EventData::AssistantReasoningDelta { delta } => Some(("reasoning", delta)),
            EventData::AssistantTextDelta { delta } => Some(("text", delta)),
            EventData::AssistantTextEnd { reasoning, .. } => Some(("end", reasoning.unwrap_or_default())),
            _ => None,
        })
        .collect();
    let expected = [("reasoning", "First, "), ("reasoning", "count."), ("text", "three"), ("end", "First, count.")];
    assert_eq!(streamed, expected.map(|(kind, text)| (kind, text.to_owned())));
}

#[test]
fn usage_is_reported_per_call_and_as_running_totals() {
    let h = Harness::new(vec![ScriptStep::tool_call("echo", json!({"text": "a"})), ScriptStep::text("b")]);
    h.submit("go").unwrap();
    let ends: Vec<(Usage, Usage)> = h
        .drain()
        .into_iter()
        .filter_map(|e| match e.data {
            EventData::AssistantTextEnd { usage, total_usage, .. } => Some((usage, total_usage)),
            _ => None,
        })
        .collect();
    assert_eq!(ends.len(), 2);
    assert_eq!(ends[0].0.total_tokens, 15);
    assert_eq!(ends[1].1.total_tokens, 30);
    assert_eq!(h.session.total_usage().total_tokens, 30);
}

#[test]
fn session_start_and_session_end_bracket_the_session() {
    let h = Harness::new(vec![ScriptStep::text("a")]);
    h.submit("x").unwrap();
    h.session.close();
    h.session.close();
    let kinds = h.kinds();
    assert_eq!(kinds.first(), Some(&"session_start"));
    assert_eq!(kinds.last(), Some(&"session_end"));
    assert_eq!(kinds.iter().filter(|k| **k == "session_end").count(), 1);
}

// ---- 9.11 Errors ----

#[test]
fn authentication_errors_surface_at_once_and_close_the_session() {
    let h = Harness::new(vec![ScriptStep::fail(ErrorKind::Authentication, "invalid x-api-key"), ScriptStep::text("unused")]);
    let err = h.submit("hi").unwrap_err();
    assert!(matches!(err, SessionError::Llm(ref e) if e.kind == ErrorKind::Authentication));
    assert_eq!(h.client.calls(), 1, "never retried");
    assert_eq!(h.session.status(), SessionStatus::Closed);
    let kinds = h.kinds();
    assert!(kinds.contains(&"error"));
    assert_eq!(kinds.last(), Some(&"session_end"));
}

#[test]
fn a_transient_error_ends_the_input_but_not_the_session() {
    let h = Harness::new(vec![ScriptStep::fail(ErrorKind::Server, "overloaded"), ScriptStep::text("back")]);
    assert!(h.submit("hi").is_err());
    assert_eq!(h.session.status(), SessionStatus::Idle);
    assert_eq!(h.submit("again").unwrap(), StopReason::Completed);
}

#[test]
fn context_usage_warning_above_80_percent_of_the_window() {
    let h = Harness::with(vec![ScriptStep::text("ok")], SessionConfig::default(), |p| p.with_context_window_size(100));
    h.submit(&"y".repeat(400)).unwrap();
    let warning = h.drain().into_iter().find(|e| e.kind() == "warning").expect("warning");
    assert!(
        matches!(warning.data, EventData::Warning { ref message } if message.starts_with("Context usage at ~10")),
        "{warning:?}"
    );
}

#[test]
fn a_broken_stream_is_an_error_not_a_silent_success() {
    let events = vec![openagent_core::llm::StreamEvent::TextDelta { text_id: "t".into(), delta: "partial".into() }];
    let h = Harness::new(vec![ScriptStep::Events(events)]);
    let err = h.submit("hi").unwrap_err();
    assert!(matches!(err, SessionError::Llm(ref e) if e.kind == ErrorKind::Stream));
}

#[test]
fn a_profile_default_command_timeout_overrides_the_session_default() {
    /// Reports the timeout the shell tool would use.
    struct Timeout;
    #[async_trait(?Send)]
    impl ToolExecutor for Timeout {
        async fn execute(&self, _args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
            Ok(format!("{} {}", ctx.default_command_timeout_ms, ctx.max_command_timeout_ms).into())
        }
    }
    struct Slow(CoreProfile);
    #[async_trait(?Send)]
    impl openagent_core::profiles::ProviderProfile for Slow {
        fn id(&self) -> &str {
            self.0.id()
        }
        fn model(&self) -> &str {
            self.0.model()
        }
        fn tool_registry(&self) -> &ToolRegistry {
            self.0.tool_registry()
        }
        async fn build_system_prompt(&self, ctx: &openagent_core::profiles::PromptContext<'_>) -> String {
            self.0.build_system_prompt(ctx).await
        }
        fn supports_reasoning(&self) -> bool {
            true
        }
        fn supports_streaming(&self) -> bool {
            true
        }
        fn supports_parallel_tool_calls(&self) -> bool {
            false
        }
        fn context_window_size(&self) -> usize {
            100_000
        }
        fn default_command_timeout_ms(&self) -> Option<u64> {
            Some(120_000)
        }
    }
    let mut registry = ToolRegistry::new();
    let definition = openagent_core::llm::ToolDefinition {
        name: "timeout".into(),
        description: "t".into(),
        parameters: json!({"type": "object"}),
    };
    registry.register(RegisteredTool::new(definition, Rc::new(Timeout)).unwrap());
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let client = Rc::new(ScriptedClient::new([ScriptStep::tool_call("timeout", json!({})), ScriptStep::text("ok")]));
    let profile = Rc::new(Slow(CoreProfile::new("m", registry)));
    let session = Session::builder(profile.clone(), env.clone(), client, runtime.clone()).build();
    block_on(session.submit("go")).unwrap();
    assert_eq!(tool_results(&session.history())[0].content.as_ref(), "120000 600000");

    // A timeout the host sets wins over the profile's.
    let client = Rc::new(ScriptedClient::new([ScriptStep::tool_call("timeout", json!({})), ScriptStep::text("ok")]));
    let config = SessionConfig { default_command_timeout_ms: Some(2_000), ..SessionConfig::default() };
    let session = Session::builder(profile, env, client, runtime).config(config).build();
    block_on(session.submit("go")).unwrap();
    assert_eq!(tool_results(&session.history())[0].content.as_ref(), "2000 600000");
}

// ---- 6.3 The system prompt is built once ----

#[test]
fn the_system_prompt_is_built_at_the_first_input_and_kept_after() {
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let client = Rc::new(ScriptedClient::new([
        ScriptStep::tool_call("write_file", json!({"file_path": "AGENTS.md", "content": "Always answer in French."})),
        ScriptStep::text("done"),
        ScriptStep::text("encore"),
    ]));
    let profile = Rc::new(openagent_core::GeneralProfile::new("local"));
    let session = Session::builder(profile, env, client.clone(), runtime.clone()).build();
    block_on(session.submit("write the project instructions")).unwrap();
    runtime.advance(86_400_000); // a day later
    block_on(session.submit("and now?")).unwrap();
    let prompts: Vec<String> = client.requests().iter().map(|r| r.messages[0].text()).collect();
    assert!(prompts.iter().all(|p| *p == prompts[0]), "the prompt changed between inputs");
    assert!(!prompts[0].contains("Always answer in French."), "an edit made during the session is not read back in");
}

// ---- Appendix B: an answer cut off at the output limit is not a completed one ----

#[test]
fn an_answer_cut_off_at_the_output_limit_ends_the_input_as_such() {
    let ScriptStep::Reply(mut reply) = ScriptStep::text("The first half of") else { unreachable!() };
    reply.finish_reason = openagent_core::llm::FinishReason::new(openagent_core::llm::Reason::Length, Some("max_tokens"));
    let h = Harness::new(vec![ScriptStep::Reply(reply)]);
    assert_eq!(h.submit("write an essay").unwrap(), StopReason::OutputLimit);
    let result = h.session.last_result().unwrap();
    assert_eq!((result.outcome.status, result.result_text.as_str()), (OutcomeStatus::Failure, "The first half of"));
    assert_eq!(result.outcome.evidence[0].description, "finish reason `length`");
    assert_eq!(h.session.status(), SessionStatus::Idle, "the session goes on");
}

#[test]
fn known_secrets_are_redacted_in_tool_outputs_events_history_and_the_next_request() {
    const KEY: &str = "sk-test-0123456789abcdef";
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    block_on(env.write_file(".env", &format!("OPENAI_API_KEY={KEY}\n"))).unwrap();
    let mut registry = ToolRegistry::new();
    openagent_core::tools::register_core_tools(&mut registry);
    let profile = Rc::new(CoreProfile::new("test-model", registry));
    let client = Rc::new(ScriptedClient::new(vec![
        ScriptStep::tool_call("read_file", json!({"file_path": ".env"})),
        ScriptStep::tool_call("shell", json!({"command": "cat .env"})),
        ScriptStep::text("done"),
    ]));
    let session = Session::builder(profile, env, client.clone(), runtime).redact([KEY.to_owned()]).build();
    let mut events = session.events();
    assert_eq!(block_on(session.submit("show me the key")).unwrap(), StopReason::Completed);

    let mut recorded = Vec::new();
    while let Some(event) = events.try_recv() {
        recorded.push(serde_json::to_string(&event).unwrap());
    }
    let ends: Vec<&String> = recorded.iter().filter(|e| e.contains("tool_call_end")).collect();
    assert_eq!(ends.len(), 2, "{recorded:#?}");
    assert!(ends.iter().all(|e| e.contains("OPENAI_API_KEY=[REDACTED]")), "{ends:#?}");
    for text in recorded.iter().chain([&serde_json::to_string(&session.snapshot()).unwrap()]) {
        assert!(!text.contains(KEY), "the key was recorded: {text}");
    }
    let last = client.requests().pop().unwrap();
    assert!(!serde_json::to_string(&last.messages).unwrap().contains(KEY));
}
