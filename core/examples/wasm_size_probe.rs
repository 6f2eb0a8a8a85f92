//! Size probe: what `openagent-core` weighs in a browser bundle.
//!
//! `scripts/test-all` builds this example as a `cdylib` for `wasm32-unknown-unknown` with the
//! `wasm-release` profile, runs `wasm-opt -Oz` and gzip -9 on it, and prints the sizes (DESIGN.md:
//! "the browser bundle is a budget"). Each `#[no_mangle]` export below drives a piece of the core's
//! public API with inputs the host passes in at run time, so the linker cannot drop that code and
//! the number reflects what a real host would ship.
//!
//! The session, the memory environment and the tools will be added here as they land: when a
//! public API grows in `core`, add an export (or extend one) that exercises it, or the size figure
//! will under-report.
//!
//! ABI: the host allocates with [`probe_alloc`], writes UTF-8 (usually JSON) there, passes
//! `(ptr, len)` pairs and frees with [`probe_free`]. Results are small integers (lengths, counts or
//! negative error codes). Nothing here is meant to be called by real code.

use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;
use futures::StreamExt;
use openagent_core::abort::AbortSignal;
use openagent_core::llm::{
    collect_stream, LlmClient, Message, Request, ScriptStep, ScriptedClient, StreamAccumulator, StreamEvent, ToolChoice,
    ToolDefinition,
};
use openagent_core::runtime::format_rfc3339;
use openagent_core::schema::Schema;
use openagent_core::tools::{RegisteredTool, ToolContext, ToolError, ToolExecutor, ToolOutput, ToolRegistry};
use serde_json::{json, Value};

/// Reads a host buffer as text; invalid UTF-8 reads as empty.
///
/// # Safety
/// `ptr` must point to `len` readable bytes (or `len` must be 0).
unsafe fn input<'a>(ptr: *const u8, len: usize) -> &'a str {
    if len == 0 {
        return "";
    }
    std::str::from_utf8(std::slice::from_raw_parts(ptr, len)).unwrap_or("")
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

/// Allocates `len` bytes for the host to write an input into.
#[no_mangle]
pub extern "C" fn probe_alloc(len: usize) -> *mut u8 {
    let mut buf = Vec::<u8>::with_capacity(len);
    let ptr = buf.as_mut_ptr();
    std::mem::forget(buf);
    ptr
}

/// Frees a buffer from [`probe_alloc`].
///
/// # Safety
/// `ptr` and `len` must come from one call of `probe_alloc`, freed once.
#[no_mangle]
pub unsafe extern "C" fn probe_free(ptr: *mut u8, len: usize) {
    drop(Vec::from_raw_parts(ptr, 0, len));
}

/// Builds a `Request` (messages, a tool, a tool choice) around the user's text, serialises it with
/// serde_json and parses it back. Returns the JSON length, or -1 if the round trip differs.
///
/// # Safety
/// `(ptr, len)` must be a readable buffer.
#[no_mangle]
pub unsafe extern "C" fn probe_request(ptr: *const u8, len: usize) -> i32 {
    let request = Request {
        model: "probe-model".into(),
        messages: vec![Message::system("You are a coding agent."), Message::user(input(ptr, len))],
        tools: vec![read_file_definition()],
        tool_choice: Some(ToolChoice::Auto),
        max_tokens: Some(1024),
        ..Request::default()
    };
    let text = serde_json::to_string(&request).unwrap_or_default();
    match serde_json::from_str::<Request>(&text) {
        Ok(back) if back == request => count(text.len()),
        _ => -1,
    }
}

/// Parses newline-separated `StreamEvent` JSON and folds it with a `StreamAccumulator`. Returns the
/// length of the response's text, -1 for unparsable JSON, -2 for a stream that did not finish.
///
/// # Safety
/// `(ptr, len)` must be a readable buffer.
#[no_mangle]
pub unsafe extern "C" fn probe_stream(ptr: *const u8, len: usize) -> i32 {
    let mut acc = StreamAccumulator::new();
    for line in input(ptr, len).lines().filter(|l| !l.trim().is_empty()) {
        match serde_json::from_str::<StreamEvent>(line) {
            Ok(event) => acc.push(&event),
            Err(_) => return -1,
        }
    }
    match acc.finish("probe") {
        Ok(response) => count(response.text().len()),
        Err(_) => -2,
    }
}

/// Plays a `ScriptedClient` (a tool call, then the given text), once whole and once streamed, under
/// an `AbortSignal`. Returns the number of stream events seen, or -1 on any error.
///
/// # Safety
/// `(ptr, len)` must be a readable buffer.
#[no_mangle]
pub unsafe extern "C" fn probe_scripted(ptr: *const u8, len: usize) -> i32 {
    let text = input(ptr, len).to_owned();
    let client = ScriptedClient::new([
        ScriptStep::tool_call("read_file", json!({"file_path": "README.md"})),
        ScriptStep::text(text.clone()),
        ScriptStep::reasoning_then_text("thinking", &text),
    ]);
    let signal = AbortSignal::new();
    let request = Request { model: "scripted".into(), messages: vec![Message::user(text)], ..Request::default() };
    let run = async {
        let first = client.complete(&request).await.ok()?;
        let events: Vec<StreamEvent> = client.stream(&request).await.ok()?.collect().await;
        let whole = client.stream(&request).await.ok()?;
        let last = collect_stream(client.provider(), whole).await.ok()?;
        Some(first.tool_calls().len() + events.len() + last.text().len())
    };
    match block_on(signal.guard(run)) {
        Some(Some(n)) => count(n),
        _ => -1,
    }
}

/// Compiles a JSON Schema and validates an instance against it. Returns the number of violations,
/// -1 for a schema that does not compile, -2 for JSON that does not parse.
///
/// # Safety
/// Both `(ptr, len)` pairs must be readable buffers.
#[no_mangle]
pub unsafe extern "C" fn probe_schema(schema_ptr: *const u8, schema_len: usize, inst_ptr: *const u8, inst_len: usize) -> i32 {
    let (Ok(schema), Ok(instance)) =
        (serde_json::from_str::<Value>(input(schema_ptr, schema_len)), serde_json::from_str::<Value>(input(inst_ptr, inst_len)))
    else {
        return -2;
    };
    match Schema::compile(&schema) {
        Ok(schema) => count(schema.validate(&instance).err().map_or(0, |errors| errors.len())),
        Err(_) => -1,
    }
}

/// Formats epoch milliseconds as RFC 3339. Returns the string's length.
#[no_mangle]
pub extern "C" fn probe_timestamp(ms: u64) -> i32 {
    count(format_rfc3339(ms).len())
}

/// Registers a tool from a `ToolDefinition` in JSON (and the built-in probe tool) in a
/// `ToolRegistry`, then validates the given arguments against its schema. Returns the number of
/// tools, -1 for a definition that does not parse or register, -2 for invalid arguments.
///
/// # Safety
/// Both `(ptr, len)` pairs must be readable buffers.
#[no_mangle]
pub unsafe extern "C" fn probe_tools(def_ptr: *const u8, def_len: usize, args_ptr: *const u8, args_len: usize) -> i32 {
    let Ok(definition) = serde_json::from_str::<ToolDefinition>(input(def_ptr, def_len)) else {
        return -1;
    };
    let name = definition.name.clone();
    let mut registry = ToolRegistry::new();
    for definition in [read_file_definition(), definition] {
        match RegisteredTool::new(definition, Rc::new(EchoTool)) {
            Ok(tool) => registry.register(tool),
            Err(_) => return -1,
        }
    }
    let arguments = serde_json::from_str::<Value>(input(args_ptr, args_len)).unwrap_or(Value::Null);
    match registry.get(&name).map(|tool| tool.schema().validate(&arguments)) {
        Some(Ok(())) => count(registry.definitions().len() + registry.names().len()),
        _ => -2,
    }
}

fn read_file_definition() -> ToolDefinition {
    ToolDefinition {
        name: "read_file".into(),
        description: "Read a file.".into(),
        parameters: json!({
            "type": "object",
            "properties": {"file_path": {"type": "string"}, "offset": {"type": "integer"}},
            "required": ["file_path"]
        }),
    }
}

/// A stand-in executor until the real tools land (they need an `ExecutionEnvironment`).
struct EchoTool;

#[async_trait(?Send)]
impl ToolExecutor for EchoTool {
    async fn execute(&self, arguments: &Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        Ok(arguments.to_string().into())
    }
}
