#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;
use openagent_core::runtime::VirtualRuntime;
use serde_json::{json, Value};

use super::*;
use crate::{tool_name, McpTools};

/// A server played from a function: each message the client sends gets the messages it returns.
struct Scripted {
    answer: Box<dyn Fn(&Value) -> Vec<Value>>,
    sent: RefCell<Vec<Value>>,
    inbox: RefCell<VecDeque<Value>>,
}

impl Scripted {
    fn new(answer: impl Fn(&Value) -> Vec<Value> + 'static) -> Rc<Self> {
        Rc::new(Self { answer: Box::new(answer), sent: RefCell::default(), inbox: RefCell::default() })
    }

    fn methods(&self) -> Vec<String> {
        self.sent.borrow().iter().filter_map(|m| m["method"].as_str().map(str::to_owned)).collect()
    }
}

#[async_trait(?Send)]
impl McpTransport for Scripted {
    async fn send(&self, message: Value) -> Result<(), McpError> {
        let answers = (self.answer)(&message);
        self.sent.borrow_mut().push(message);
        self.inbox.borrow_mut().extend(answers);
        Ok(())
    }

    async fn receive(&self) -> Result<Value, McpError> {
        let next = self.inbox.borrow_mut().pop_front();
        match next {
            Some(message) => Ok(message),
            None => futures::future::pending().await,
        }
    }
}

fn result(request: &Value, result: Value) -> Vec<Value> {
    vec![json!({"jsonrpc": "2.0", "id": request["id"], "result": result})]
}

fn initialized(request: &Value, version: &str) -> Vec<Value> {
    result(
        request,
        json!({"protocolVersion": version, "capabilities": {"tools": {}}, "serverInfo": {"name": "demo", "version": "1.0"}}),
    )
}

/// A server with two pages of tools (one with a broken schema) and an `add` tool.
fn demo(request: &Value) -> Vec<Value> {
    match request["method"].as_str().unwrap_or_default() {
        "initialize" => initialized(request, "2025-06-18"),
        "tools/list" if request["params"]["cursor"].is_null() => result(
            request,
            json!({"tools": [{"name": "add", "description": "Adds", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}}}}], "nextCursor": "2"}),
        ),
        "tools/list" => result(
            request,
            json!({"tools": [{"name": "bad.tool", "inputSchema": {"type": "object", "properties": {"x": {"type": 7}}}}, {"name": "echo", "inputSchema": {"type": "object"}}, {"name": "my_tool", "inputSchema": {"type": "object"}}, {"name": "my.tool", "inputSchema": {"type": "object"}}]}),
        ),
        "tools/call" => result(
            request,
            json!({"content": [{"type": "text", "text": format!("sum {}", request["params"]["arguments"]["a"])}]}),
        ),
        _ => vec![],
    }
}

fn runtime() -> Rc<VirtualRuntime> {
    Rc::new(VirtualRuntime::new(|_| {}))
}

fn connect(server: &Rc<Scripted>) -> Result<Rc<McpClient>, McpError> {
    block_on(McpClient::connect("demo", server.clone(), runtime(), McpOptions::default()))
}

#[test]
fn initialize_negotiates_then_says_initialized() {
    let server = Scripted::new(demo);
    let client = connect(&server).expect("connects");
    assert_eq!(server.methods(), ["initialize", "notifications/initialized"]);
    assert_eq!(server.sent.borrow()[0]["params"]["protocolVersion"], PROTOCOL_VERSIONS[0]);
    let info = client.server_info();
    assert_eq!((info.name.as_str(), info.protocol_version.as_str()), ("demo", "2025-06-18"));
}

#[test]
fn an_unsupported_revision_is_a_clear_error() {
    let server = Scripted::new(|request| initialized(request, "2024-11-05"));
    let error = connect(&server).err().expect("refused");
    assert!(matches!(error, McpError::UnsupportedVersion { .. }), "{error}");
    assert!(error.to_string().contains("2024-11-05"), "{error}");
}

#[test]
fn a_server_that_never_answers_initialize_times_out() {
    let server = Scripted::new(|_| vec![]);
    let error = connect(&server).err().expect("timeout");
    assert_eq!(error, McpError::Timeout { method: "initialize".into(), ms: 60_000 });
}

#[test]
fn malformed_json_rpc_is_a_protocol_error() {
    let server = Scripted::new(|_| vec![json!({"id": 1, "result": {}})]);
    let error = connect(&server).err().expect("malformed");
    assert!(matches!(error, McpError::Protocol(_)), "{error}");
}

#[test]
fn tools_follow_pages_and_skip_a_broken_schema_and_a_name_taken_already() {
    let server = Scripted::new(demo);
    let client = connect(&server).expect("connects");
    let tools = block_on(client.tools()).expect("tools");
    let names: Vec<&str> = tools.tools.iter().map(|t| t.definition.name.as_str()).collect();
    assert_eq!(names, ["mcp__demo__add", "mcp__demo__echo", "mcp__demo__my_tool"]);
    assert_eq!(tools.warnings.len(), 2, "{:?}", tools.warnings);
    assert!(tools.warnings[0].contains("skipped tool bad.tool"), "{:?}", tools.warnings);
    assert_eq!(tools.warnings[1], "MCP server demo: skipped tool my.tool: another tool is named mcp__demo__my_tool already");
    assert_eq!(tool_name("my server", "a.b/c"), "mcp__my_server__a_b_c");
    let long = tool_name("server", &"x".repeat(80));
    assert_eq!(long.len(), 64, "{long}");
    assert!(long.starts_with("mcp__server__xxx") && long != tool_name("server", &"x".repeat(81)), "{long}");
}

/// A name that says nothing (empty, blank) or holds control characters would become
/// `mcp__demo__` or a name the model cannot tell from another: skipped, the name shown escaped.
#[test]
fn tools_with_an_empty_blank_or_control_character_name_are_skipped_with_a_warning() {
    const NAMES: [&str; 6] = ["", "  ", "line\nbreak", "bell\u{7}", "tab\there", "ok"];
    let server = Scripted::new(|request| match request["method"].as_str() {
        Some("tools/list") => {
            result(request, json!({"tools": NAMES.map(|name| json!({"name": name, "inputSchema": {"type": "object"}}))}))
        }
        _ => demo(request),
    });
    let client = connect(&server).expect("connects");
    let tools = block_on(client.tools()).expect("tools");
    let names: Vec<&str> = tools.tools.iter().map(|t| t.definition.name.as_str()).collect();
    assert_eq!(names, ["mcp__demo__ok"]);
    let skipped =
        |shown: &str| format!("MCP server demo: skipped tool \"{shown}\": its name is empty or holds control characters");
    assert_eq!(
        tools.warnings,
        [skipped(""), skipped("  "), skipped("line\\nbreak"), skipped("bell\\u{7}"), skipped("tab\\there")]
    );
}

#[test]
fn a_call_answers_pings_and_re_lists_after_list_changed() {
    let server = Scripted::new(|request| match request["method"].as_str() {
        Some("tools/call") => {
            let mut messages = vec![
                json!({"jsonrpc": "2.0", "id": "p1", "method": "ping"}),
                json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
            ];
            messages.extend(result(request, json!({"content": [{"type": "text", "text": "done"}]})));
            messages
        }
        _ => demo(request),
    });
    let client = connect(&server).expect("connects");
    let tools = block_on(client.tools()).expect("tools");
    let seen: Rc<RefCell<Vec<McpTools>>> = Rc::default();
    let sink = seen.clone();
    client.on_tools_changed(Some(Rc::new(move |tools| sink.borrow_mut().push(tools))));
    let ctx_env = openagent_core_env();
    let ctx = openagent_core::tools::ToolContext::new(&*ctx_env, 1000, 1000);
    let output = block_on(tools.tools[0].executor.execute(&json!({"a": 1}), &ctx)).expect("call");
    assert_eq!(output.text, "done");
    let pong = server.sent.borrow().iter().find(|m| m["id"] == "p1").cloned().expect("pong");
    assert_eq!(pong["result"], json!({}));
    assert_eq!(seen.borrow().len(), 1, "re-listed once");
    assert!(seen.borrow()[0].removed.is_empty());
}

#[test]
fn a_server_error_result_is_a_tool_error() {
    let server = Scripted::new(|request| match request["method"].as_str() {
        Some("tools/call") => {
            vec![json!({"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32602, "message": "unknown tool"}})]
        }
        _ => demo(request),
    });
    let client = connect(&server).expect("connects");
    let error = block_on(client.call_tool("nope", json!({}))).expect_err("rpc error");
    assert_eq!(error.to_string(), "the server answered `tools/call` with error -32602: unknown tool");
}

fn openagent_core_env() -> Rc<dyn openagent_core::ExecutionEnvironment> {
    Rc::new(openagent_memenv::MemoryEnvironment::new(runtime()))
}
