//! Compaction: when it runs, what it keeps, and a long session that never overflows its window.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::{block_on, LocalPool};
use futures::task::LocalSpawnExt;
use serde_json::{json, Value};

use openagent_core::llm::openai_chat::OpenAiChat;
use openagent_core::llm::{
    stream_events, Codec, ContentPart, ErrorKind, EventStream, FinishReason, LlmClient, LlmError, Message, ProviderConfig,
    Reason, Request, Response, Role, ScriptStep, ScriptedClient, ToolCall, ToolDefinition, Usage,
};
use openagent_core::profiles::CoreProfile;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::{
    CompactionReason, EventData, Events, Session, SessionConfig, SessionError, SessionStatus, StopReason, Turn,
};
use openagent_core::tools::{RegisteredTool, ToolContext, ToolError, ToolExecutor, ToolOutput, ToolRegistry};
use openagent_memenv::MemoryEnvironment;

/// A tool that answers with `size` bytes.
struct Big(usize);

#[async_trait(?Send)]
impl ToolExecutor for Big {
    async fn execute(&self, _: &Value, _: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        Ok("x".repeat(self.0).into())
    }
}

fn big_tool(size: usize) -> RegisteredTool {
    let definition = ToolDefinition {
        name: "big".into(),
        description: "prints a lot".into(),
        parameters: json!({"type": "object", "properties": {}}),
    };
    RegisteredTool::new(definition, Rc::new(Big(size))).unwrap()
}

/// A request's size as a provider would see it, a token for every 4 characters, counted here
/// apart from the session's own estimate.
fn request_tokens(request: &Request) -> usize {
    let tools: usize = request.tools.iter().map(|t| t.name.len() + t.description.len() + t.parameters.to_string().len()).sum();
    let messages: usize = request
        .messages
        .iter()
        .flat_map(|m| &m.content)
        .map(|part| match part {
            ContentPart::Text { text } => text.len(),
            ContentPart::ToolCall { tool_call } => tool_call.name.len() + tool_call.arguments.to_string().len(),
            ContentPart::ToolResult { tool_result } => tool_result.content.len(),
            _ => 0,
        })
        .sum();
    (tools + messages) / 4
}

/// A model for long sessions: a new input gets one `big` call, a tool result gets an answer,
/// and a summary request gets a summary. Every request's size is recorded, and every request is
/// checked to encode (Chat Completions) to the same bytes through the session's memo of encoded
/// messages as afresh: the session tells the memo of each change, compactions included.
#[derive(Default)]
struct Worker {
    sizes: RefCell<Vec<usize>>,
    summaries: Cell<usize>,
}

fn response(content: Vec<ContentPart>) -> Response {
    Response {
        id: String::new(),
        model: "worker".into(),
        provider: "worker".into(),
        message: Message::new(Role::Assistant, content),
        finish_reason: FinishReason::new(Reason::Stop, None),
        usage: Usage::new(10, 5),
        raw: None,
        warnings: vec![],
        rate_limit: None,
    }
}

#[async_trait(?Send)]
impl LlmClient for Worker {
    fn provider(&self) -> &str {
        "worker"
    }

    async fn complete(&self, request: &Request) -> Result<Response, LlmError> {
        self.sizes.borrow_mut().push(request_tokens(request));
        let codec = OpenAiChat::new(ProviderConfig { base_url: "http://x/v1".into(), ..ProviderConfig::default() });
        let (kept, fresh) = (codec.build_request(request, true)?, codec.build_request(&request.clone(), true)?);
        assert!(kept.body == fresh.body, "request {} differs from its fresh encoding", self.sizes.borrow().len());
        if request.tools.is_empty() {
            self.summaries.set(self.summaries.get() + 1);
            return Ok(response(vec![ContentPart::text(format!("summary {}", self.summaries.get()))]));
        }
        let last = request.messages.last().expect("a request has messages");
        Ok(match last.role {
            Role::Tool => response(vec![ContentPart::text("done")]),
            _ => {
                let id = format!("call_{}", self.sizes.borrow().len());
                response(vec![ContentPart::ToolCall { tool_call: ToolCall::new(id, "big", json!({})) }])
            }
        })
    }

    async fn stream(&self, request: &Request) -> Result<EventStream, LlmError> {
        let response = self.complete(request).await?;
        Ok(Box::pin(futures::stream::iter(stream_events(&response))))
    }
}

fn session_with(client: Rc<dyn LlmClient>, window: usize, config: SessionConfig, tool_size: usize) -> Session {
    session_on(Rc::new(VirtualRuntime::new(|_| {})), client, window, config, tool_size)
}

/// A session whose subagents run as tasks of `runtime`.
fn session_on(
    runtime: Rc<VirtualRuntime>,
    client: Rc<dyn LlmClient>,
    window: usize,
    config: SessionConfig,
    tool_size: usize,
) -> Session {
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let mut registry = ToolRegistry::new();
    registry.register(big_tool(tool_size));
    let profile = Rc::new(CoreProfile::new("test-model", registry).with_context_window_size(window));
    Session::builder(profile, env, client, runtime).config(config).id("s1").build()
}

fn drain(events: &mut Events) -> Vec<EventData> {
    std::iter::from_fn(|| events.try_recv()).map(|e| e.data).collect()
}

#[test]
fn a_thousand_rounds_fit_a_32k_window_with_the_last_two_inputs_whole() {
    const WINDOW: usize = 32_000;
    const INPUTS: usize = 1_000;
    let worker = Rc::new(Worker::default());
    // The same call every round is a loop by design here; its warnings would add rounds.
    let config = SessionConfig { enable_loop_detection: false, ..SessionConfig::default() };
    let session = session_with(worker.clone(), WINDOW, config, 10 * 1024);
    let mut events = session.events();
    for i in 1..=INPUTS {
        assert_eq!(block_on(session.submit(format!("task {i}"))).unwrap(), StopReason::Completed, "input {i}");
    }

    let sizes = worker.sizes.borrow();
    let largest = sizes.iter().copied().max().unwrap();
    assert!(largest <= WINDOW, "a request of ~{largest} tokens went over the {WINDOW}-token window");
    assert_eq!(sizes.len(), 2 * INPUTS + worker.summaries.get(), "one tool round and one answer per input, plus summaries");

    let compactions = drain(&mut events)
        .into_iter()
        .filter_map(|e| match e {
            EventData::CompactionEnd { summarized_turns, tokens_before, tokens_after, error, .. } => {
                assert!(error.is_none() && summarized_turns > 0 && tokens_after < tokens_before);
                Some(())
            }
            _ => None,
        })
        .count();
    assert_eq!(compactions, worker.summaries.get());
    assert!((1..=INPUTS / 4).contains(&compactions), "{compactions} compactions for {INPUTS} inputs");

    let history = session.history();
    let users: Vec<&str> = history
        .iter()
        .filter_map(|t| match t {
            Turn::User { content, .. } => Some(content.as_str()),
            _ => None,
        })
        .collect();
    let [.., before_last, last] = users[..] else { panic!("fewer than two inputs kept: {users:?}") };
    assert_eq!((before_last, last), ("task 999", "task 1000"));
    let from = history.iter().position(|t| matches!(t, Turn::User { content, .. } if content == "task 999")).unwrap();
    let kinds: Vec<_> = history[from..].iter().map(std::mem::discriminant).collect();
    let one_input = [
        std::mem::discriminant(&history[from]),
        std::mem::discriminant(&history[from + 1]),
        std::mem::discriminant(&history[from + 2]),
        std::mem::discriminant(&history[from + 3]),
    ];
    assert_eq!(kinds, [one_input, one_input].concat(), "the last two inputs: user, call, result, answer each");
    assert!(matches!(history[0], Turn::Summary { .. }));
    assert_eq!(session.snapshot().state.compactions, compactions);
}

#[test]
fn below_the_threshold_or_switched_off_nothing_is_compacted() {
    for (window, percent) in [(1_000_000, 80), (8_000, 0)] {
        let worker = Rc::new(Worker::default());
        let config = SessionConfig { compaction_threshold_percent: percent, ..SessionConfig::default() };
        let session = session_with(worker.clone(), window, config, 4_000);
        for i in 0..10 {
            block_on(session.submit(format!("task {i}"))).unwrap();
        }
        assert_eq!(worker.summaries.get(), 0, "window {window}, threshold {percent}%");
        assert!(!session.history().iter().any(|t| matches!(t, Turn::Summary { .. })));
    }
}

#[test]
fn the_context_window_setting_overrides_the_profile() {
    let worker = Rc::new(Worker::default());
    let config = SessionConfig { context_window: Some(8_000), ..SessionConfig::default() };
    let session = session_with(worker.clone(), 1_000_000, config, 4_000);
    for i in 0..10 {
        block_on(session.submit(format!("task {i}"))).unwrap();
    }
    assert!(worker.summaries.get() > 0);
    assert!(worker.sizes.borrow().iter().all(|&s| s <= 8_000));
}

#[test]
fn reasoning_signatures_in_kept_turns_replay_untouched() {
    let client = Rc::new(ScriptedClient::new([
        ScriptStep::text("first answer"),
        ScriptStep::reasoning_then_text("thinking hard", "second answer"),
        ScriptStep::text("the summary"),
        ScriptStep::text("third answer"),
    ]));
    // Room for the second input (~8 tokens) only.
    let config = SessionConfig { compaction_keep_recent_tokens: Some(8), ..SessionConfig::default() };
    let session = session_with(client.clone(), 1_000_000, config, 10);
    block_on(session.submit("one")).unwrap();
    block_on(session.submit("two")).unwrap();
    block_on(session.compact()).unwrap();
    block_on(session.submit("three")).unwrap();
    let last = client.requests().pop().unwrap();
    let thinking = last.messages.iter().flat_map(|m| &m.content).find_map(|p| match p {
        ContentPart::Thinking { thinking } => Some(thinking.clone()),
        _ => None,
    });
    assert_eq!(thinking.and_then(|t| t.signature).as_deref(), Some("scripted"));
    let texts: Vec<String> = last.messages.iter().skip(1).map(Message::text).collect();
    assert!(texts[0].contains("the summary") && !texts.iter().any(|t| t == "one"), "{texts:?}");
}

#[test]
fn manual_compaction_reports_itself_and_the_summary_request_has_no_tools() {
    let client = Rc::new(ScriptedClient::new([
        ScriptStep::tool_call("big", json!({})),
        ScriptStep::text("done"),
        ScriptStep::text("They asked for a big output and got it."),
    ]));
    let config = SessionConfig { compaction_keep_recent_tokens: Some(1), ..SessionConfig::default() };
    let session = session_with(client.clone(), 1_000_000, config, 4_000);
    let mut events = session.events();
    block_on(session.submit("make a big output")).unwrap();
    drain(&mut events);
    block_on(session.compact()).unwrap();

    let summary_request = client.requests().pop().unwrap();
    assert!(summary_request.tools.is_empty() && summary_request.tool_choice.is_none());
    assert!(summary_request.messages[1].text().contains("make a big output"));
    let events = drain(&mut events);
    let [EventData::CompactionStart { reason: CompactionReason::Manual, tokens_before, .. }, EventData::CompactionEnd { summarized_turns: 3, kept_turns: 1, tokens_after, .. }] =
        &events[..]
    else {
        panic!("{events:?}")
    };
    assert!(tokens_after < tokens_before, "{tokens_before} -> {tokens_after}");
    let history = session.history();
    assert!(matches!(&history[0], Turn::Summary { content, summarized_turns: 3, .. } if content.contains("big output")));
    assert_eq!(history.len(), 2);
}

#[test]
fn manual_compaction_with_nothing_old_is_a_no_op_and_a_busy_session_refuses() {
    let client = Rc::new(ScriptedClient::new([ScriptStep::text("hi")]));
    let session = session_with(client.clone(), 1_000_000, SessionConfig::default(), 10);
    block_on(session.submit("hello")).unwrap();
    block_on(session.compact()).unwrap();
    assert_eq!(client.calls(), 1, "no summary was asked for");
    assert_eq!(session.history().len(), 2);
    session.close();
    assert_eq!(block_on(session.compact()), Err(SessionError::Closed));
}

#[test]
fn a_context_length_error_compacts_once_and_retries_the_call() {
    let client = Rc::new(ScriptedClient::new([
        ScriptStep::text("first"),
        ScriptStep::fail(ErrorKind::ContextLength, "prompt is too long"),
        ScriptStep::text("the summary"),
        ScriptStep::text("answer after compaction"),
    ]));
    let config = SessionConfig { compaction_keep_recent_tokens: Some(1), ..SessionConfig::default() };
    let session = session_with(client.clone(), 1_000_000, config, 10);
    let mut events = session.events();
    block_on(session.submit("one")).unwrap();
    assert_eq!(block_on(session.submit("two")).unwrap(), StopReason::Completed);
    assert_eq!(client.calls(), 4);
    let retried = client.requests().pop().unwrap();
    let texts: Vec<String> = retried.messages.iter().skip(1).map(Message::text).collect();
    assert!(texts[0].contains("the summary") && texts[1] == "two", "{texts:?}");
    let reasons: Vec<CompactionReason> = drain(&mut events)
        .into_iter()
        .filter_map(|e| match e {
            EventData::CompactionEnd { reason, summarized_turns: 2, .. } => Some(reason),
            _ => None,
        })
        .collect();
    assert_eq!(reasons, [CompactionReason::Overflow]);
}

#[test]
fn a_second_context_length_error_fails_the_input_with_its_warning() {
    let client = Rc::new(ScriptedClient::new([
        ScriptStep::text("first"),
        ScriptStep::fail(ErrorKind::ContextLength, "prompt is too long"),
        ScriptStep::text("the summary"),
        ScriptStep::fail(ErrorKind::ContextLength, "prompt is still too long"),
    ]));
    let config = SessionConfig { compaction_keep_recent_tokens: Some(1), ..SessionConfig::default() };
    let session = session_with(client.clone(), 1_000_000, config, 10);
    block_on(session.submit("one")).unwrap();
    let error = block_on(session.submit("two")).unwrap_err();
    assert!(error.to_string().contains("still too long"), "{error}");
    assert_eq!(client.calls(), 4, "one retry only");
    assert_eq!(session.status(), SessionStatus::Idle, "the session goes on");
}

#[test]
fn a_summary_that_fails_is_reported_and_the_input_still_runs() {
    let client = Rc::new(ScriptedClient::new([
        ScriptStep::text("first"),
        ScriptStep::fail(ErrorKind::Server, "overloaded"),
        ScriptStep::text("answer"),
    ]));
    let config = SessionConfig { context_window: Some(20), compaction_keep_recent_tokens: Some(1), ..SessionConfig::default() };
    let session = session_with(client, 1_000_000, config, 10);
    let mut events = session.events();
    block_on(session.submit("one")).unwrap();
    assert_eq!(block_on(session.submit("two")).unwrap(), StopReason::Completed);
    let failed = drain(&mut events)
        .into_iter()
        .any(|e| matches!(e, EventData::CompactionEnd { error: Some(ref e), .. } if e.contains("overloaded")));
    assert!(failed);
}

/// A parent that hands its work to a subagent: the parent (the only one offered `spawn_agent`)
/// starts one and waits for it; the subagent calls `big` eight times, then answers. Summaries
/// are the `Worker`'s.
#[derive(Default)]
struct Delegating {
    worker: Worker,
    child_rounds: Cell<usize>,
}

#[async_trait(?Send)]
impl LlmClient for Delegating {
    fn provider(&self) -> &str {
        "worker"
    }

    async fn complete(&self, request: &Request) -> Result<Response, LlmError> {
        if request.tools.is_empty() {
            return self.worker.complete(request).await;
        }
        let call = |id: String, name: &str, arguments: Value| {
            response(vec![ContentPart::ToolCall { tool_call: ToolCall::new(id, name, arguments) }])
        };
        if request.tools.iter().any(|tool| tool.name == "spawn_agent") {
            let results = request.messages.iter().filter(|m| matches!(m.role, Role::Tool)).count();
            return Ok(match results {
                0 => call("spawn".into(), "spawn_agent", json!({"task": "make big outputs"})),
                1 => call("wait".into(), "wait", json!({"agent_id": "agent_1"})),
                _ => response(vec![ContentPart::text("done")]),
            });
        }
        let round = self.child_rounds.get();
        self.child_rounds.set(round + 1);
        Ok(match round < 8 {
            true => call(format!("call_{round}"), "big", json!({})),
            false => response(vec![ContentPart::text("done")]),
        })
    }

    async fn stream(&self, request: &Request) -> Result<EventStream, LlmError> {
        let response = self.complete(request).await?;
        Ok(Box::pin(futures::stream::iter(stream_events(&response))))
    }
}

#[test]
fn a_subagent_compacts_on_its_own() {
    let client = Rc::new(Delegating::default());
    // The child's filler calls are identical: no repeat guard in the way of its compaction.
    let config = SessionConfig { context_window: Some(6_000), enable_repeat_guard: false, ..SessionConfig::default() };
    let mut pool = LocalPool::new();
    let spawner = pool.spawner();
    let runtime = Rc::new(VirtualRuntime::new(move |task| {
        let _ = spawner.spawn_local(task);
    }));
    let parent = session_on(runtime, client.clone(), 1_000_000, config, 4_000);
    assert_eq!(pool.run_until(parent.submit("delegate")), Ok(StopReason::Completed));
    assert!(client.worker.summaries.get() > 0);
    let child = &parent.snapshot().state.subagents[0].state;
    assert!(child.history.iter().any(|t| matches!(t, Turn::Summary { .. })));
    assert!(!parent.history().iter().any(|t| matches!(t, Turn::Summary { .. })));
}

#[test]
fn an_abort_during_a_manual_compaction_closes_the_session() {
    let client =
        Rc::new(ScriptedClient::new([ScriptStep::tool_call("big", json!({})), ScriptStep::text("done"), ScriptStep::Hang]));
    let config = SessionConfig { compaction_keep_recent_tokens: Some(1), ..SessionConfig::default() };
    let session = session_with(client, 1_000_000, config, 4_000);
    block_on(session.submit("make a big output")).unwrap();
    let compacting = session.compact();
    let aborting = async {
        session.abort();
    };
    let (compacted, ()) = block_on(futures::future::join(compacting, aborting));
    assert_eq!(compacted, Err(SessionError::Closed));
    assert_eq!(session.status(), SessionStatus::Closed);
    assert_eq!(session.history().len(), 4, "nothing was summarised");
}

#[test]
fn an_empty_summary_keeps_the_history() {
    let client = Rc::new(ScriptedClient::new([ScriptStep::text("first"), ScriptStep::text("  ")]));
    let config = SessionConfig { compaction_keep_recent_tokens: Some(1), ..SessionConfig::default() };
    let session = session_with(client, 1_000_000, config, 10);
    let mut events = session.events();
    block_on(session.submit("one")).unwrap();
    block_on(session.compact()).unwrap();
    assert_eq!(session.history().len(), 2, "nothing was replaced");
    let said = drain(&mut events).into_iter().any(
        |e| matches!(e, EventData::CompactionEnd { summarized_turns: 0, error: Some(ref e), .. } if e.contains("empty summary")),
    );
    assert!(said);
}

#[test]
fn a_window_as_large_as_can_be_does_not_overflow_the_arithmetic() {
    let client = Rc::new(ScriptedClient::new([ScriptStep::text("first"), ScriptStep::text("the summary")]));
    let config =
        SessionConfig { context_window: Some(usize::MAX), compaction_keep_recent_tokens: Some(1), ..SessionConfig::default() };
    let session = session_with(client, 1_000, config, 10);
    block_on(session.submit("one")).unwrap();
    block_on(session.compact()).unwrap();
    assert!(matches!(session.history()[0], Turn::Summary { .. }));
}

/// A model whose window the session does not know (it assumes 128k tokens) answers a long
/// request with the window it has: the session believes it, and compacts to fit it, shortening
/// the huge tool output the recent turns hold (before, it kept a quarter of 128k tokens, and the
/// retried request was as long as the one refused).
#[test]
fn the_window_a_context_length_error_states_is_believed_and_the_history_compacted_to_fit() {
    let stated = "This model's maximum context length is 8192 tokens. However, your messages resulted in 50100 tokens.";
    let client = Rc::new(ScriptedClient::new([
        ScriptStep::tool_call("big", json!({})),
        ScriptStep::fail(ErrorKind::ContextLength, stated),
        ScriptStep::text("the summary"),
        ScriptStep::text("done"),
    ]));
    let session = session_with(client.clone(), 128_000, SessionConfig::default(), 200_000);
    let mut events = session.events();
    assert_eq!(block_on(session.submit("read the big thing")).unwrap(), StopReason::Completed);
    assert_eq!(client.calls(), 4);
    let retried = client.requests().pop().unwrap();
    let tokens = request_tokens(&retried);
    assert!(tokens <= 8_192 / 2, "the retried request is ~{tokens} tokens, over its share of the stated 8192");
    assert_eq!(session.config().context_window, Some(8_192), "believed for the rest of the session");
    let events = drain(&mut events);
    let warned = events.iter().any(|e| matches!(e, EventData::Warning { message } if message.contains("8192 tokens")));
    assert!(warned, "the session says which window it now uses: {events:?}");
    let ended =
        events.iter().any(|e| matches!(e, EventData::CompactionEnd { reason: CompactionReason::Overflow, error: None, .. }));
    assert!(ended, "{events:?}");
}
