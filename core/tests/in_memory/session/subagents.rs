//! Spec 9.9: subagents, driven on a `LocalPool` so that children really run as spawned tasks.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::rc::Rc;

use futures::executor::LocalPool;
use futures::task::LocalSpawnExt;
use serde_json::{json, Value};

use openagent_core::env::ExecutionEnvironment;
use openagent_core::llm::{ScriptStep, ScriptedClient, ToolResult};
use openagent_core::profiles::CoreProfile;
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::{EventData, Session, SessionConfig, SessionEvent, SessionStatus, StopReason, Turn};
use openagent_core::tools::{register_core_tools, ToolRegistry};
use openagent_memenv::MemoryEnvironment;

struct World {
    pool: LocalPool,
    session: Session,
    client: Rc<ScriptedClient>,
    env: Rc<MemoryEnvironment>,
}

/// One client serves parent and children in call order, as the pool runs them.
fn world(steps: Vec<ScriptStep>, config: SessionConfig) -> World {
    let pool = LocalPool::new();
    let spawner = pool.spawner();
    let runtime = Rc::new(VirtualRuntime::new(move |task| {
        let _ = spawner.spawn_local(task);
    }));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let mut registry = ToolRegistry::new();
    register_core_tools(&mut registry);
    let client = Rc::new(ScriptedClient::new(steps));
    let profile = Rc::new(CoreProfile::new("model", registry));
    let session = Session::builder(profile, env.clone(), client.clone(), runtime).config(config).id("p").build();
    World { pool, session, client, env }
}

fn results(session: &Session) -> Vec<ToolResult> {
    Turn::tool_results(&session.history())
}

fn json_of(result: &ToolResult) -> Value {
    serde_json::from_str(&result.content).unwrap_or(Value::Null)
}

#[test]
fn a_subagent_shares_the_environment_keeps_its_own_history_and_returns_its_result_as_a_tool_result() {
    let mut w = world(
        vec![
            ScriptStep::tool_call("spawn_agent", json!({"task": "write notes.txt"})), // parent
            ScriptStep::tool_call("wait", json!({"agent_id": "agent_1"})),            // parent, then waits
            ScriptStep::tool_call("write_file", json!({"file_path": "notes.txt", "content": "from the child"})), // child
            ScriptStep::text("I wrote notes.txt."),                                   // child
            ScriptStep::text("The subagent wrote the notes."),                        // parent
        ],
        SessionConfig::default(),
    );
    let stop = w.pool.run_until(w.session.submit("delegate the notes"));
    assert_eq!(stop.unwrap(), StopReason::Completed);
    assert_eq!(futures::executor::block_on(w.env.read_file("notes.txt", None, None)).unwrap(), "from the child");
    let results = results(&w.session);
    assert_eq!(json_of(&results[0]), json!({"agent_id": "agent_1", "status": "running"}));
    assert_eq!(
        json_of(&results[1]),
        json!({
            "agent_id": "agent_1", "status": "completed", "output": "I wrote notes.txt.", "success": true, "turns_used": 2,
            "result_text": "I wrote notes.txt.", "result_data": null
        })
    );
    // The parent's history has none of the child's turns.
    assert!(!w.session.history().iter().any(|t| matches!(t, Turn::Steering { .. })));
    assert_eq!(w.session.history().iter().filter(|t| matches!(t, Turn::Assistant { .. })).count(), 3);
    // The child's first request was its task alone, not the parent's conversation.
    let child_request = &w.client.requests()[2];
    assert_eq!(child_request.messages.len(), 2, "system prompt and the task");
    assert_eq!(child_request.messages[1].text(), "write notes.txt");
}

#[test]
fn depth_limits_recursive_spawning() {
    let w = world(vec![], SessionConfig::default());
    assert!(w.session.tool_names().contains(&"spawn_agent".to_owned()));
    let w = world(vec![], SessionConfig { max_subagent_depth: 0, ..SessionConfig::default() });
    assert!(!w.session.tool_names().iter().any(|n| ["spawn_agent", "send_input", "wait", "close_agent"].contains(&n.as_str())));
    // A child at depth 1 (the default limit) gets no spawn_agent: its call is an unknown tool.
    let mut w = world(
        vec![
            ScriptStep::tool_call("spawn_agent", json!({"task": "try to recurse"})),
            ScriptStep::tool_call("wait", json!({"agent_id": "agent_1"})),
            ScriptStep::tool_call("spawn_agent", json!({"task": "grandchild"})), // child
            ScriptStep::text("could not"),                                       // child
            ScriptStep::text("done"),
        ],
        SessionConfig::default(),
    );
    w.pool.run_until(w.session.submit("go")).unwrap();
    let child_second = &w.client.requests()[3];
    let last = child_second.messages.last().unwrap();
    assert!(last.text().is_empty() && format!("{last:?}").contains("Unknown tool: spawn_agent"), "{last:?}");
}

#[test]
fn subagents_run_concurrently_and_report_into_the_parents_event_stream() {
    let mut w = world(
        vec![
            ScriptStep::tool_calls(&[("spawn_agent", json!({"task": "one"})), ("spawn_agent", json!({"task": "two"}))]),
            ScriptStep::tool_calls(&[("wait", json!({"agent_id": "agent_1"})), ("wait", json!({"agent_id": "agent_2"}))]),
            ScriptStep::text("first child"),
            ScriptStep::text("second child"),
            ScriptStep::text("both done"),
        ],
        SessionConfig::default(),
    );
    let mut events = w.session.events();
    w.pool.run_until(w.session.submit("fan out")).unwrap();
    let outputs: Vec<String> =
        results(&w.session)[2..].iter().map(|r| json_of(r)["output"].as_str().unwrap_or("").to_owned()).collect();
    assert_eq!(outputs, ["first child", "second child"]);
    let mut seen: Vec<SessionEvent> = Vec::new();
    while let Some(event) = events.try_recv() {
        seen.push(event);
    }
    let child_ends: Vec<&str> = seen
        .iter()
        .filter(|e| matches!(e.data, EventData::ProcessingEnd { .. }) && e.session_id != "p")
        .map(|e| e.session_id.as_str())
        .collect();
    assert_eq!(child_ends, ["p/agent_1", "p/agent_2"]);
}

#[test]
fn send_input_steers_a_running_agent_and_restarts_a_finished_one() {
    let mut w = world(
        vec![
            ScriptStep::tool_call("spawn_agent", json!({"task": "count files"})),
            ScriptStep::tool_call("send_input", json!({"agent_id": "agent_1", "message": "only .rs files"})),
            ScriptStep::tool_call("wait", json!({"agent_id": "agent_1"})),
            ScriptStep::text("3 .rs files"), // child: its first request carries the steering
            ScriptStep::tool_call("send_input", json!({"agent_id": "agent_1", "message": "and .toml?"})),
            ScriptStep::tool_call("wait", json!({"agent_id": "agent_1"})),
            ScriptStep::text("1 .toml file"), // child, second run
            ScriptStep::text("done"),
        ],
        SessionConfig::default(),
    );
    w.pool.run_until(w.session.submit("go")).unwrap();
    let results = results(&w.session);
    assert!(results[1].content.starts_with("delivered"), "{}", results[1].content);
    let child_first = &w.client.requests()[3];
    assert_eq!(child_first.messages.last().unwrap().text(), "only .rs files");
    assert_eq!(results[3].content.as_ref(), "agent_1 is running again on your message");
    assert_eq!(json_of(&results[4])["output"], "1 .toml file");
}

#[test]
fn close_agent_and_parent_abort_close_the_children() {
    let mut w = world(
        vec![
            ScriptStep::tool_call("spawn_agent", json!({"task": "hang"})),
            ScriptStep::tool_call("close_agent", json!({"agent_id": "agent_1"})),
            ScriptStep::tool_call("wait", json!({"agent_id": "agent_1"})),
            ScriptStep::text("closed it"),
        ],
        SessionConfig::default(),
    );
    w.pool.run_until(w.session.submit("go")).unwrap();
    let waited = json_of(&results(&w.session)[2]);
    assert_eq!((waited["status"].as_str(), waited["success"].as_bool()), (Some("failed"), Some(false)));

    // The parent aborts while its child hangs on the model: the child is closed too.
    let mut w = world(
        vec![
            ScriptStep::tool_call("spawn_agent", json!({"task": "hang"})),
            ScriptStep::tool_call("wait", json!({"agent_id": "agent_1"})),
            ScriptStep::Hang, // child
        ],
        SessionConfig::default(),
    );
    let mut events = w.session.events();
    let session = w.session.clone();
    let client = w.client.clone();
    let abort_when_child_calls = futures::future::poll_fn(move |cx| {
        if client.calls() == 3 {
            session.abort();
            return std::task::Poll::Ready(());
        }
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    });
    let (stop, ()) = w.pool.run_until(futures::future::join(w.session.submit("go"), abort_when_child_calls));
    assert_eq!(stop.unwrap(), StopReason::Aborted);
    assert_eq!(w.session.status(), SessionStatus::Closed);
    w.pool.run_until_stalled();
    // The child reports into the parent's events: its `session_end` says it is closed.
    let child_closed = std::iter::from_fn(|| events.try_recv()).any(|event| {
        event.session_id == "p/agent_1" && matches!(event.data, EventData::SessionEnd { state: SessionStatus::Closed, .. })
    });
    assert!(child_closed);
}

#[test]
fn working_dir_scopes_the_subagent_to_a_subdirectory() {
    let mut w = world(
        vec![
            ScriptStep::tool_call("spawn_agent", json!({"task": "write here", "working_dir": "pkg"})),
            ScriptStep::tool_call("wait", json!({"agent_id": "agent_1"})),
            ScriptStep::tool_call("write_file", json!({"file_path": "lib.rs", "content": "x"})), // child, relative
            ScriptStep::text("ok"),
            ScriptStep::text("done"),
        ],
        SessionConfig::default(),
    );
    futures::executor::block_on(w.env.write_file("pkg/.keep", "")).unwrap();
    w.pool.run_until(w.session.submit("go")).unwrap();
    assert!(futures::executor::block_on(w.env.file_exists("pkg/lib.rs")));
    assert!(!futures::executor::block_on(w.env.file_exists("lib.rs")));
}

#[test]
fn wait_returns_a_structured_childs_result_data() {
    let schema = json!({"type": "object", "properties": {"files": {"type": "integer"}}, "required": ["files"]});
    let mut w = world(
        vec![
            ScriptStep::tool_call("spawn_agent", json!({"task": "count the files", "output_schema": schema})), // parent
            ScriptStep::tool_call("wait", json!({"agent_id": "agent_1"})),                                     // parent
            ScriptStep::tool_call("submit_result", json!({"files": "three"})),                                 // child: refused
            ScriptStep::tool_call("submit_result", json!({"files": 3})),                                       // child: accepted
            ScriptStep::text("There are 3 files."),                                                            // parent
        ],
        SessionConfig::default(),
    );
    assert_eq!(w.pool.run_until(w.session.submit("how many files?")).unwrap(), StopReason::Completed);
    let waited = json_of(&results(&w.session)[1]);
    assert_eq!((waited["success"].as_bool(), &waited["result_data"]), (Some(true), &json!({"files": 3})));

    // A schema that is not an object schema is refused before any child starts.
    let mut w = world(
        vec![
            ScriptStep::tool_call("spawn_agent", json!({"task": "x", "output_schema": {"type": "string"}})),
            ScriptStep::text("ok"),
        ],
        SessionConfig::default(),
    );
    w.pool.run_until(w.session.submit("go")).unwrap();
    let refused = &results(&w.session)[0];
    assert!(refused.is_error && refused.content.contains("output_schema"), "{}", refused.content);
}
