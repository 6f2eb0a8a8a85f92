//! Size probe: what `openagent-core` weighs in a browser bundle, with the `MemoryEnvironment`
//! (`openagent-memenv`) a browser host runs it on.
//!
//! `scripts/test-all` builds this example as a `cdylib` for `wasm32-unknown-unknown` with the
//! `wasm-release` profile, runs `wasm-opt -Oz` and gzip -9 on it, and prints the sizes (DESIGN.md:
//! "the browser bundle is a budget"). Each `#[no_mangle]` export below drives a piece of the core's
//! public API with inputs the host passes in at run time, so the linker cannot drop that code and
//! the number reflects what a real host would ship.
//!
//! When a public API grows in `core` or `core/memenv`, add an export (or extend one) that
//! exercises it, or the size figure will under-report.
//!
//! ABI: the host allocates with [`probe_alloc`], writes UTF-8 (usually JSON) there, passes
//! `(ptr, len)` pairs and frees with [`probe_free`]. Results are small integers (lengths, counts or
//! negative error codes). Nothing here is meant to be called by real code.

use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;
use futures::StreamExt;
use openagent_core::abort::AbortSignal;
use openagent_core::llm::anthropic_messages::AnthropicMessages;
use openagent_core::llm::gemini::Gemini;
use openagent_core::llm::http::{HttpClient, HttpError, HttpRequest, HttpResponse};
use openagent_core::llm::openai_chat::OpenAiChat;
use openagent_core::llm::openai_responses::OpenAiResponses;
use openagent_core::llm::{
    collect_stream, LlmClient, Message, Request, ScriptStep, ScriptedClient, StreamEvent, ToolChoice, ToolDefinition,
};
use openagent_core::llm::{ApiKey, HttpLlmClient, ProviderConfig, RetryPolicy, RetryingClient};
use openagent_core::profiles::PromptContext;
use openagent_core::runtime::{format_rfc3339, VirtualRuntime};
use openagent_core::schema::Schema;
use openagent_core::session::SessionSnapshot;
use openagent_core::tools::{apply_patch, register_core_tools, ApplyPatchTool};
use openagent_core::tools::{RegisteredTool, ToolContext, ToolError, ToolExecutor, ToolOutput, ToolRegistry};
use openagent_core::{
    AnthropicProfile, CoreProfile, GeminiProfile, GeneralProfile, OpenAiProfile, ProviderProfile, Session, SessionConfig,
};
use openagent_memenv::MemoryEnvironment;
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

/// Builds a `Request` (messages, a tool, a tool choice) around the user's text and serialises it
/// with serde_json. Returns the JSON length. (Nothing is parsed back: a browser host sends
/// requests and events as JSON but never reads them from JSON, and derived deserialisers are big.)
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
    count(serde_json::to_string(&request).map_or(0, |text| text.len()))
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

/// A host-defined tool, as a browser registers one from JavaScript.
struct EchoTool;

#[async_trait(?Send)]
impl ToolExecutor for EchoTool {
    async fn execute(&self, arguments: &Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        Ok(arguments.to_string().into())
    }
}

/// Runs a whole `Session` (core tools and apply_patch, `MemoryEnvironment`, built-in shell) against a script given
/// as JSON: an array of tool calls `{"name", "arguments"}`, then a closing text. Restores the
/// environment from its own snapshot, as the browser's file tree does, and the session from its
/// snapshot (read back from JSON), which then compacts. Returns the snapshots' length, or -1 for
/// a script that does not parse, -2 if the run failed.
///
/// # Safety
/// `(script_ptr, script_len)` and `(task_ptr, task_len)` must be readable buffers.
#[no_mangle]
pub unsafe extern "C" fn probe_session(script_ptr: *const u8, script_len: usize, task_ptr: *const u8, task_len: usize) -> i32 {
    let Ok(Value::Array(calls)) = serde_json::from_str::<Value>(input(script_ptr, script_len)) else {
        return -1;
    };
    let mut script: Vec<ScriptStep> = calls
        .iter()
        .map(|call| ScriptStep::tool_call(call["name"].as_str().unwrap_or_default(), call["arguments"].clone()))
        .collect();
    script.push(ScriptStep::text("done"));
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let client = Rc::new(ScriptedClient::new(script));
    let mut registry = ToolRegistry::new();
    register_core_tools(&mut registry);
    match RegisteredTool::new(apply_patch::definition(), Rc::new(ApplyPatchTool)) {
        Ok(tool) => registry.register(tool),
        Err(_) => return -1,
    }
    let profile = Rc::new(CoreProfile::new("probe-model", registry));
    let builder = || Session::builder(profile.clone(), env.clone(), client.clone(), runtime.clone());
    let session = builder().config(SessionConfig::default()).build();
    let mut events = session.events();
    let outcome = block_on(session.submit(input(task_ptr, task_len)));
    let saved = session.snapshot().to_json();
    let restored = match SessionSnapshot::from_json(&saved) {
        Ok(snapshot) => builder().restore(snapshot).build(),
        Err(_) => return -2,
    };
    let compacted = block_on(restored.compact()).is_ok();
    let mut lines = 0;
    while let Some(event) = events.try_recv() {
        lines += serde_json::to_string(&event).map_or(0, |_| 1);
    }
    let snapshot = env.snapshot();
    match outcome {
        Ok(_) if compacted && lines > 0 && env.restore(&snapshot).is_ok() => count(snapshot.to_string().len() + saved.len()),
        _ => -2,
    }
}

/// Builds each provider-aligned profile for a model name and its layered system prompt over an
/// in-memory project, and runs each of the profile's tools once with the given arguments (JSON).
/// Returns the prompts' total length.
///
/// # Safety
/// `(model_ptr, model_len)` and `(args_ptr, args_len)` must be readable buffers.
#[no_mangle]
pub unsafe extern "C" fn probe_profiles(model_ptr: *const u8, model_len: usize, args_ptr: *const u8, args_len: usize) -> i32 {
    let model = input(model_ptr, model_len);
    let args = serde_json::from_str::<Value>(input(args_ptr, args_len)).unwrap_or(Value::Null);
    let env = MemoryEnvironment::new(Rc::new(VirtualRuntime::new(|_| {})));
    let profiles: [Rc<dyn ProviderProfile>; 4] = [
        Rc::new(OpenAiProfile::new(model)),
        Rc::new(AnthropicProfile::new(model).with_beta_headers(&[model])),
        Rc::new(GeminiProfile::new(model).with_provider_options(args.clone())),
        Rc::new(GeneralProfile::new(model)),
    ];
    let mut total = 0;
    for profile in profiles {
        let ctx = PromptContext { env: &env, today: "2025-01-01".into(), user_instructions: Some(model) };
        total += block_on(profile.build_system_prompt(&ctx)).len();
        let tool_ctx = ToolContext::new(&env, 1, 1);
        for name in profile.tool_registry().names() {
            if let Some(tool) = profile.tool_registry().get(&name) {
                total += block_on(tool.executor.execute(&args, &tool_ctx)).map_or(0, |out| out.text.len());
            }
        }
    }
    count(total)
}

/// Builds the HTTP request of each of the four wire codecs for a conversation, and decodes a response body
/// through each codec's stream decoder and `HttpLlmClient`. Returns the number of events decoded.
///
/// # Safety
/// `(body_ptr, body_len)` must be a readable buffer.
#[no_mangle]
pub unsafe extern "C" fn probe_codecs(body_ptr: *const u8, body_len: usize) -> i32 {
    let body = input(body_ptr, body_len).as_bytes().to_vec();
    let config = ProviderConfig { api_key: ApiKey::new("probe"), base_url: "http://127.0.0.1:1".into(), ..Default::default() };
    let request = Request {
        model: "probe-model".into(),
        messages: vec![Message::system("You are a coding agent."), Message::user("hello")],
        tools: vec![read_file_definition()],
        ..Request::default()
    };
    let http: Rc<dyn HttpClient> = Rc::new(Replay(body));
    let clients: Vec<Rc<dyn LlmClient>> = vec![
        Rc::new(HttpLlmClient::new(AnthropicMessages::new(config.clone()), http.clone())),
        Rc::new(HttpLlmClient::new(OpenAiResponses::new(config.clone()), http.clone())),
        Rc::new(HttpLlmClient::new(OpenAiChat::new(config.clone()), http.clone())),
        Rc::new(HttpLlmClient::new(Gemini::new(config), http)),
    ];
    let mut decoded = 0;
    for client in clients {
        let runtime = Rc::new(VirtualRuntime::new(|_| {}));
        let retrying = RetryingClient::new(client, RetryPolicy::default(), runtime);
        if let Ok(stream) = block_on(retrying.stream(&request)) {
            decoded += block_on(stream.count());
        }
        decoded += usize::from(block_on(retrying.complete(&request)).is_ok());
    }
    count(decoded)
}

/// An HTTP client that answers every request with the same body, as a 200.
struct Replay(Vec<u8>);

#[async_trait(?Send)]
impl HttpClient for Replay {
    async fn send(&self, _request: HttpRequest) -> Result<HttpResponse, HttpError> {
        let chunk: Result<Vec<u8>, HttpError> = Ok(self.0.clone());
        Ok(HttpResponse { status: 200, headers: vec![], body: Box::pin(futures::stream::iter([chunk])) })
    }
}
