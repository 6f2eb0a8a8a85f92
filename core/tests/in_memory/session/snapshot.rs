//! Snapshots: saved at any time, restored whole, refused when damaged.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::RefCell;
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::{block_on, LocalPool};
use futures::task::LocalSpawnExt;
use serde_json::{json, Value};

use openagent_core::llm::{ContentPart, LlmClient, Message, ScriptStep, ScriptedClient, ToolDefinition};
use openagent_core::profiles::CoreProfile;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::{
    EventData, Session, SessionConfig, SessionSnapshot, SessionStatus, SnapshotError, StopReason, SubAgentStatus, Turn,
};
use openagent_core::tools::{
    register_core_tools, RegisteredTool, ToolContext, ToolError, ToolExecutor, ToolOutput, ToolRegistry,
};
use openagent_memenv::MemoryEnvironment;

fn build(provider: &str, client: Rc<dyn LlmClient>, extra: Option<RegisteredTool>) -> openagent_core::session::SessionBuilder {
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let mut registry = ToolRegistry::new();
    register_core_tools(&mut registry);
    if let Some(tool) = extra {
        registry.register(tool);
    }
    let profile = Rc::new(CoreProfile::new("model", registry).with_id(provider));
    Session::builder(profile, env, client, runtime)
}

fn texts(messages: &[Message]) -> Vec<String> {
    messages.iter().skip(1).map(|m| m.text()).collect()
}

#[test]
fn a_restored_session_goes_on_with_its_history_usage_and_id() {
    let first = Rc::new(ScriptedClient::new([
        ScriptStep::tool_call("write_file", json!({"file_path": "a.txt", "content": "hi"})),
        ScriptStep::text("wrote it"),
    ]));
    let session = build("openai", first, None).id("s1").build();
    block_on(session.submit("write a.txt")).unwrap();
    session.steer("later, say thanks");
    session.follow_up("then stop");
    let json = session.snapshot().to_json();
    assert!(json.starts_with(r#"{"schema":"openagent.session/1","session_id":"s1""#), "{json}");

    let snapshot = SessionSnapshot::from_json(&json).unwrap();
    assert_eq!(snapshot, session.snapshot());
    let second = Rc::new(ScriptedClient::new([ScriptStep::text("thanks"), ScriptStep::text("stopped")]));
    let restored = build("openai", second.clone(), None).restore(snapshot).build();
    assert_eq!((restored.id(), restored.status()), ("s1", SessionStatus::Idle));
    assert_eq!(restored.history(), session.history());
    assert_eq!(restored.total_usage(), session.total_usage());
    assert_eq!(restored.last_result(), session.last_result());

    block_on(restored.submit("and now?")).unwrap();
    let request = &second.requests()[0];
    assert_eq!(texts(&request.messages), ["write a.txt", "", "", "wrote it", "and now?", "later, say thanks"]);
    assert_eq!(request.messages[2].tool_calls().count(), 1, "the tool call replays");
    assert_eq!(second.calls(), 2, "the queued follow-up ran too");
    assert_eq!(restored.snapshot().state.turns, 4);
}

#[test]
fn a_fork_takes_a_new_id_and_leaves_the_original_alone() {
    let session = build("openai", Rc::new(ScriptedClient::new([ScriptStep::text("one")])), None).id("s1").build();
    block_on(session.submit("first")).unwrap();
    let fork = build("openai", Rc::new(ScriptedClient::new([ScriptStep::text("two")])), None)
        .id("s2")
        .restore(session.snapshot())
        .build();
    block_on(fork.submit("second")).unwrap();
    assert_eq!(fork.id(), "s2");
    assert_eq!((session.history().len(), fork.history().len()), (2, 4));
}

#[test]
fn settings_given_to_the_builder_replace_the_saved_ones() {
    let config = SessionConfig { max_turns: 7, reasoning_effort: Some("high".into()), ..SessionConfig::default() };
    let session = build("openai", Rc::new(ScriptedClient::new([])), None).config(config).build();
    let kept = build("openai", Rc::new(ScriptedClient::new([])), None).restore(session.snapshot()).build();
    assert_eq!((kept.config().max_turns, kept.config().reasoning_effort.as_deref()), (7, Some("high")));
    let replaced = build("openai", Rc::new(ScriptedClient::new([])), None)
        .config(SessionConfig::default())
        .restore(session.snapshot())
        .build();
    assert_eq!(replaced.config().max_turns, 0);
}

/// A tool that saves the session it runs in, mid-round.
struct SaveMidRound(Rc<RefCell<Option<Session>>>, Rc<RefCell<Option<SessionSnapshot>>>);

#[async_trait(?Send)]
impl ToolExecutor for SaveMidRound {
    async fn execute(&self, _: &Value, _: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let session = self.0.borrow().clone().unwrap();
        *self.1.borrow_mut() = Some(session.snapshot());
        Ok("saved".into())
    }
}

#[test]
fn a_snapshot_taken_mid_input_restores_to_the_last_complete_turn() {
    let (slot, saved) = (Rc::new(RefCell::new(None)), Rc::new(RefCell::new(None)));
    let definition = ToolDefinition { name: "save".into(), description: "saves".into(), parameters: json!({"type": "object"}) };
    let tool = RegisteredTool::new(definition, Rc::new(SaveMidRound(slot.clone(), saved.clone()))).unwrap();
    let client = Rc::new(ScriptedClient::new([
        ScriptStep::text("hello"),
        ScriptStep::tool_call("save", json!({})),
        ScriptStep::text("done"),
    ]));
    let session = build("openai", client, Some(tool)).build();
    *slot.borrow_mut() = Some(session.clone());
    block_on(session.submit("greet")).unwrap();
    block_on(session.submit("save yourself")).unwrap();

    let snapshot = saved.borrow().clone().unwrap();
    let kinds: Vec<&str> = snapshot
        .state
        .history
        .iter()
        .map(|t| match t {
            Turn::User { .. } => "user",
            Turn::Assistant { .. } => "assistant",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["user", "assistant", "user"], "the round in flight is left out");
    let next = Rc::new(ScriptedClient::new([ScriptStep::text("again")]));
    let restored = build("openai", next.clone(), None).restore(snapshot).build();
    assert_eq!(block_on(restored.submit("go on")).unwrap(), StopReason::Completed);
    assert_eq!(texts(&next.requests()[0].messages), ["greet", "hello", "save yourself", "go on"]);
}

#[test]
fn another_provider_family_drops_the_reasoning_with_a_warning() {
    let client = Rc::new(ScriptedClient::new([ScriptStep::reasoning_then_text("let me think", "answer")]));
    let session = build("anthropic", client, None).build();
    block_on(session.submit("think")).unwrap();
    let snapshot = session.snapshot();

    let same = Rc::new(ScriptedClient::new([ScriptStep::text("ok")]));
    let kept = build("anthropic", same.clone(), None).restore(snapshot.clone()).build();
    let mut events = kept.events();
    block_on(kept.submit("more")).unwrap();
    let thinking = |c: &ScriptedClient| {
        c.requests()[0].messages.iter().flat_map(|m| m.content.clone()).any(|p| matches!(p, ContentPart::Thinking { .. }))
    };
    assert!(thinking(&same));
    assert!(!std::iter::from_fn(|| events.try_recv()).any(|e| matches!(e.data, EventData::Warning { .. })));

    let other = Rc::new(ScriptedClient::new([ScriptStep::text("ok")]));
    let moved = build("gemini", other.clone(), None).restore(snapshot).build();
    let mut events = moved.events();
    block_on(moved.submit("more")).unwrap();
    assert!(!thinking(&other));
    let warning = std::iter::from_fn(|| events.try_recv()).find_map(|e| match e.data {
        EventData::Warning { message } => Some(message),
        _ => None,
    });
    let warning = warning.expect("a warning");
    assert!(warning.contains("anthropic") && warning.contains("gemini") && warning.contains("1 reasoning"), "{warning}");
}

#[test]
fn a_damaged_snapshot_is_refused_saying_what_is_wrong() {
    let good = build("openai", Rc::new(ScriptedClient::new([])), None).build().snapshot().to_json();
    let cases: Vec<(String, fn(&SnapshotError) -> bool, &str)> = vec![
        ("not json at all".into(), |e| matches!(e, SnapshotError::NotJson(_)), "not valid JSON"),
        (good[..good.len() / 2].to_owned(), |e| matches!(e, SnapshotError::Truncated(_)), "truncated"),
        ("[1, 2]".into(), |e| matches!(e, SnapshotError::NotASnapshot(_)), "not a JSON object"),
        (r#"{"history": []}"#.into(), |e| matches!(e, SnapshotError::NotASnapshot(_)), "no \"schema\""),
        (r#"{"schema": "other/1"}"#.into(), |e| matches!(e, SnapshotError::NotASnapshot(_)), "\"other/1\""),
        (
            good.replace("openagent.session/1", "openagent.session/2"),
            |e| matches!(e, SnapshotError::Newer { .. }),
            "newer than this build reads",
        ),
        (good.replace("\"history\"", "\"histories\""), |e| matches!(e, SnapshotError::Invalid(_)), "missing field `history`"),
        (good.replace("\"turns\":0", "\"turns\":\"many\""), |e| matches!(e, SnapshotError::Invalid(_)), "invalid type"),
    ];
    for (text, is, says) in cases {
        let error = SessionSnapshot::from_json(&text).unwrap_err();
        assert!(is(&error) && error.to_string().contains(says), "{text:?}: {error}");
    }

    let session = build("openai", Rc::new(ScriptedClient::new([ScriptStep::text("hi")])), None).build();
    block_on(session.submit("hello")).unwrap();
    let good = session.snapshot().to_json();
    for (from, to, says) in [
        (r#""type":"user""#, r#""type":"robot""#, "unknown turn type `robot` at state.history[0].type"),
        (r#""content":"hello""#, r#""content":7"#, "invalid type: expected a string, found a number at state.history[0].content"),
        (r#""role":"assistant""#, r#""role":"narrator""#, "unknown variant `narrator` at state.history[1].message.role"),
        (r#""kind":"text""#, r#""kind":"smell""#, "unknown content kind `smell` at state.history[1].message.content[0].kind"),
    ] {
        assert!(good.contains(from), "{good}");
        let error = SessionSnapshot::from_json(&good.replacen(from, to, 1)).unwrap_err();
        assert_eq!(error.to_string(), format!("the session snapshot is damaged: {says}"));
    }
}

#[test]
fn subagents_are_saved_inside_their_parent_and_come_back() {
    let pool = LocalPool::new();
    let spawner = pool.spawner();
    let runtime = Rc::new(VirtualRuntime::new(move |task| {
        let _ = spawner.spawn_local(task);
    }));
    let mut pool = pool;
    let profile = || {
        let mut registry = ToolRegistry::new();
        register_core_tools(&mut registry);
        Rc::new(CoreProfile::new("model", registry))
    };
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let client = Rc::new(ScriptedClient::new([
        ScriptStep::tool_call("spawn_agent", json!({"task": "count to two"})),
        ScriptStep::tool_call("wait", json!({"agent_id": "agent_1"})),
        ScriptStep::text("one, two"),
        ScriptStep::text("the child counted"),
    ]));
    let session = Session::builder(profile(), env.clone(), client, runtime.clone()).id("p").build();
    pool.run_until(session.submit("delegate")).unwrap();
    let snapshot = SessionSnapshot::from_json(&session.snapshot().to_json()).unwrap();
    let [child] = &snapshot.state.subagents[..] else { panic!("{:?}", snapshot.state.subagents) };
    assert_eq!((child.agent_id.as_str(), child.state.history.len()), ("agent_1", 2));
    assert_eq!(child.result.as_ref().map(|r| r.status), Some(SubAgentStatus::Completed));

    let next = Rc::new(ScriptedClient::new([
        ScriptStep::tool_call("send_input", json!({"agent_id": "agent_1", "message": "now three"})),
        ScriptStep::tool_call("wait", json!({"agent_id": "agent_1"})),
        ScriptStep::text("three"),
        ScriptStep::text("done"),
    ]));
    let restored = Session::builder(profile(), env, next.clone(), runtime).restore(snapshot).build();
    pool.run_until(restored.submit("again")).unwrap();
    let child_request = &next.requests()[2];
    assert_eq!(texts(&child_request.messages), ["count to two", "one, two", "now three"], "the child goes on with its history");
    let restored_again = restored.snapshot();
    assert_eq!(restored_again.state.subagents[0].state.history.len(), 4);
}

#[test]
fn the_output_schema_and_instructions_come_back_with_the_session() {
    let schema = json!({"type": "object", "properties": {"answer": {"type": "integer"}}, "required": ["answer"]});
    let client = Rc::new(ScriptedClient::new([ScriptStep::tool_call("submit_result", json!({"answer": 42}))]));
    let session =
        build("openai", client, None).user_instructions("Answer in numbers.").output_schema(schema.clone()).unwrap().build();
    block_on(session.submit("what is six times seven?")).unwrap();
    let snapshot = SessionSnapshot::from_json(&session.snapshot().to_json()).unwrap();
    assert_eq!(
        (snapshot.output_schema.as_ref(), snapshot.user_instructions.as_deref()),
        (Some(&schema), Some("Answer in numbers."))
    );

    let next = Rc::new(ScriptedClient::new([
        ScriptStep::tool_call("submit_result", json!({"answer": "many"})),
        ScriptStep::tool_call("submit_result", json!({"answer": 48})),
    ]));
    let restored = build("openai", next.clone(), None).restore(snapshot.clone()).build();
    assert!(restored.tool_names().contains(&"submit_result".to_owned()));
    block_on(restored.submit("and six times eight?")).unwrap();
    let system = next.requests()[0].messages[0].text();
    assert!(system.contains("Answer in numbers.") && system.contains("submit_result"), "{system}");
    assert_eq!(restored.last_result().unwrap().result_data, Some(json!({"answer": 48})), "\"many\" was refused");
    assert_eq!(next.calls(), 2);

    let mut bad = snapshot;
    bad.output_schema = Some(json!({"type": "string"}));
    let restored = build("openai", Rc::new(ScriptedClient::new([ScriptStep::text("ok")])), None).restore(bad).build();
    let mut events = restored.events();
    block_on(restored.submit("go")).unwrap();
    let warned = std::iter::from_fn(|| events.try_recv())
        .any(|e| matches!(e.data, EventData::Warning { ref message } if message.contains("output schema was not restored")));
    assert!(warned && !restored.tool_names().contains(&"submit_result".to_owned()));
}
