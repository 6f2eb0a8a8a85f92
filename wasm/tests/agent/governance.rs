//! What a page governs and adds: the approval mode and `onApproval`, the `hooks` callbacks, and
//! MCP servers through `addMcpServer` (here a small server behind the scripted `fetch`; the
//! playground test reaches the real reference server from Chromium).

use js_sys::{Function, Reflect};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::wasm_bindgen_test as test;

use openagent_wasm::Agent;

use crate::support::{agent_with, data, error_message, js, options, pause, recorder, requests, scripted_fetch, submit};

#[wasm_bindgen(module = "/tests/support/fake_llm.js")]
extern "C" {
    #[wasm_bindgen(js_name = withMcpServer)]
    fn with_mcp_server(fetch: &Function) -> Function;
}

fn write(path: &str) -> Value {
    json!({"name": "write_file", "arguments": {"file_path": path, "content": "x"}})
}

/// Options with `name` set to a JS function of `body` (its argument is `input`).
fn with_function(options: JsValue, path: &[&str], body: &str) -> JsValue {
    let mut target = options.clone();
    for key in &path[..path.len() - 1] {
        let next = Reflect::get(&target, &(*key).into()).unwrap();
        let next = if next.is_undefined() { js_sys::Object::new().into() } else { next };
        Reflect::set(&target, &(*key).into(), &next).unwrap();
        target = next;
    }
    Reflect::set(&target, &(*path.last().unwrap()).into(), &Function::new_with_args("input", body)).unwrap();
    options
}

fn kinds_and_data(events: &Function) -> Vec<Value> {
    data(&Reflect::get(events, &"events".into()).unwrap()).as_array().cloned().unwrap_or_default()
}

#[test]
async fn on_approval_answers_what_the_mode_asks_and_a_denial_reaches_the_model() {
    let fetch = scripted_fetch(js(json!([{"toolCalls": [write("a.txt")]}, {"toolCalls": [write("b.txt")]}, {"text": "done"}])));
    let asked = "globalThis.asked = (globalThis.asked || []).concat([input]); \
                 return input.arguments.file_path === 'a.txt' ? { decision: 'deny', reason: 'not that one' } : Promise.resolve('allow');";
    let agent = Agent::new(with_function(options(&fetch, json!({"approval": "read-only"})), &["onApproval"], asked)).unwrap();
    submit(&agent, "write two files").await.unwrap();
    assert!(agent.fs().read_text("a.txt").is_err(), "the denied write did not happen");
    assert_eq!(agent.fs().read_text("b.txt").unwrap(), "x");
    let asked = data(&js_sys::eval("globalThis.asked").unwrap());
    assert_eq!(asked[0]["tool_name"], "write_file");
    assert_eq!(asked[0]["reason"], "the read-only approval mode asks before file edits");
    let second = requests(&fetch)[1]["body"]["messages"].to_string();
    assert!(second.contains("not that one"), "{second}");

    let (agent, _) = agent_with(json!([{"toolCalls": [write("c.txt")]}, {"text": "done"}]), json!({"approval": "auto-edit"}));
    submit(&agent, "write").await.unwrap();
    assert_eq!(agent.fs().read_text("c.txt").unwrap(), "x", "auto-edit allows file edits");

    let (agent, fetch) = agent_with(json!([{"toolCalls": [write("d.txt")]}, {"text": "done"}]), json!({"approval": "read-only"}));
    submit(&agent, "write").await.unwrap();
    assert!(agent.fs().read_text("d.txt").is_err());
    assert!(requests(&fetch)[1]["body"]["messages"].to_string().contains("no one can be asked here"));

    let fetch = scripted_fetch(js(json!([])));
    let error = Agent::new(options(&fetch, json!({"approval": "yolo"}))).err().unwrap();
    assert!(error_message(&error).contains("unknown approval mode `yolo`"), "{}", error_message(&error));
}

#[test]
async fn hooks_block_add_context_report_failures_and_see_the_end() {
    let fetch = scripted_fetch(js(json!([{"toolCalls": [write("a.txt")]}, {"toolCalls": [write("b.txt")]}, {"text": "done"}])));
    let events = recorder();
    let mut options = options(&fetch, json!({}));
    Reflect::set(&options, &"onEvent".into(), &events).unwrap();
    options = with_function(
        options,
        &["hooks", "preToolUse"],
        "return input.tool_input.file_path === 'a.txt' ? { block: 'a.txt is frozen' } : undefined;",
    );
    options =
        with_function(options, &["hooks", "userPromptSubmit"], "return Promise.resolve({ context: 'The team uses tabs.' });");
    options = with_function(options, &["hooks", "postToolUse"], "throw new Error('the audit log is down');");
    options = with_function(options, &["hooks", "sessionEnd"], "globalThis.ended = input;");
    let agent = Agent::new(options).unwrap();
    submit(&agent, "write two files").await.unwrap();
    assert!(agent.fs().read_text("a.txt").is_err(), "the blocked write did not happen");
    assert_eq!(agent.fs().read_text("b.txt").unwrap(), "x");
    let first = requests(&fetch)[0]["body"]["messages"].to_string();
    assert!(first.contains("The team uses tabs."), "{first}");
    let second = requests(&fetch)[1]["body"]["messages"].to_string();
    assert!(second.contains("a pre_tool_use hook blocked the call to write_file (a.txt is frozen)"), "{second}");
    let seen = kinds_and_data(&events);
    let decision = seen.iter().find(|e| e["kind"] == "tool_decision").unwrap();
    assert_eq!((&decision["data"]["decision"], &decision["data"]["source"]), (&json!("deny"), &json!("hook")));
    let warning = seen.iter().find(|e| e["kind"] == "warning").expect("the failed hook is reported");
    assert!(
        warning["data"]["message"].as_str().unwrap().contains("the postToolUse hook failed: the audit log is down"),
        "{warning}"
    );

    agent.abort();
    pause().await;
    let ended = data(&js_sys::eval("globalThis.ended").unwrap());
    assert_eq!((&ended["hook_event_name"], &ended["reason"]), (&json!("session_end"), &json!("aborted")), "{ended}");
}

#[test]
async fn a_blocked_task_resolves_blocked_without_a_model_call() {
    let fetch = scripted_fetch(js(json!([{"text": "never"}])));
    let options = with_function(options(&fetch, json!({})), &["hooks", "userPromptSubmit"], "return { block: 'not today' };");
    let agent = Agent::new(options).unwrap();
    let outcome = data(&submit(&agent, "deploy").await.unwrap());
    assert_eq!(outcome["reason"], "blocked");
    assert_eq!(outcome["resultText"], "A user_prompt_submit hook blocked the input: not today");
    assert!(requests(&fetch).is_empty());
}

#[test]
fn bad_hooks_are_refused_with_a_message_that_says_what_to_fix() {
    let fetch = scripted_fetch(js(json!([])));
    let error = Agent::new(with_function(options(&fetch, json!({})), &["hooks", "beforeTool"], "")).err().unwrap();
    assert!(
        error_message(&error).contains("unknown hook `beforeTool`; the hooks are preToolUse, postToolUse"),
        "{}",
        error_message(&error)
    );
    let error = Agent::new(options(&fetch, json!({"hooks": {"preToolUse": "block"}}))).err().unwrap();
    assert!(error_message(&error).contains("`preToolUse` must be a function"), "{}", error_message(&error));
}

#[test]
async fn an_mcp_servers_tool_is_offered_called_and_its_answer_reaches_the_model() {
    let call = json!({"name": "mcp__docs__echo", "arguments": {"text": "hello"}});
    let fetch = with_mcp_server(&scripted_fetch(js(json!([{"toolCalls": [call]}, {"text": "done"}]))));
    let agent = Agent::new(options(&fetch, json!({}))).unwrap();
    let server = js(json!({"name": "docs", "url": "http://mcp.test/mcp", "headers": {"Authorization": "Bearer t"}}));
    let added = data(&JsFuture::from(agent.add_mcp_server(server.clone())).await.unwrap());
    assert_eq!(added, json!({"name": "docs", "tools": ["mcp__docs__echo"], "warnings": []}));
    assert!(agent.tools().contains(&"mcp__docs__echo".to_owned()));
    submit(&agent, "echo hello").await.unwrap();
    let second = requests(&fetch)[1]["body"]["messages"].to_string();
    assert!(second.contains("echo: hello"), "the server's answer reached the model: {second}");
    let mcp = data(&Reflect::get(&fetch, &"mcpRequests".into()).unwrap());
    let call = mcp.as_array().unwrap().iter().find(|r| r["message"]["method"] == "tools/call").unwrap();
    assert_eq!(call["headers"]["authorization"], "Bearer t");
    assert_eq!(call["headers"]["mcp-session-id"], "s-1", "the session id is sent back");

    let again = JsFuture::from(agent.add_mcp_server(server)).await.unwrap_err();
    assert!(error_message(&again).contains("a server named `docs` was added already"), "{}", error_message(&again));
    for (bad, says) in [
        (json!({"name": "my docs", "url": "http://mcp.test/mcp"}), "`name` must be letters"),
        (json!({"name": "docs2", "url": "ftp://mcp.test"}), "`url` must be an http:// or https:// URL"),
        (json!({"name": "docs2", "url": "http://mcp.test/mcp", "port": 1}), "unknown field `port`"),
        (json!({"name": "down", "url": "http://unreachable.test/mcp"}), "MCP server down:"),
    ] {
        let error = JsFuture::from(agent.add_mcp_server(js(bad))).await.unwrap_err();
        assert!(error_message(&error).contains(says), "{says}: {}", error_message(&error));
    }
}
