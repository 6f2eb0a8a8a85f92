//! The `openai_chat` codec against real captured Chat Completions payloads
//! (`shared/fixtures/provider_payloads/openai-chat/<case>/<kind>.json`, see its README).
//!
//! - `response.json`, `followup-response.json`: parsed, and checked against facts read from the
//!   captured JSON itself (text, reasoning, tool calls, finish reason, usage, raw body).
//! - `response-streaming.json`, `followup-response-streaming.json`: re-framed as the SSE bytes
//!   OpenAI sends (`data: <chunk>` + blank line, then `data: [DONE]`), fed through the decoder
//!   whole, 1 byte and 7 bytes at a time, and without `[DONE]`; every feeding must give the same
//!   events, and the accumulated response the facts of the captured chunks. Where a case has
//!   both captures, the streamed and non-streamed parses must agree on every fact on which the
//!   two captures agree (they are separate live calls, so their texts often differ).
//! - `error.json`: the captured status and message (the corpus keeps only those) in the body
//!   shapes OpenAI, llama.cpp and the capture use, mapped to the kind spec 6.4/6.5 give.
//! - `request.json`, `followup-request.json`: translated into a unified `Request` (a test-side
//!   reverse mapping), built back into a body by the codec, and compared with the capture after
//!   one normalisation, applied to both sides, that drops only what `NOT_CARRIED` lists.
//!   Parameters the unified model does not have go through `provider_options` and must come
//!   back unchanged.
//!
//! The fixtures are found at `$CARGO_MANIFEST_DIR/../../shared/fixtures` or `$OPENAGENT_FIXTURES`;
//! without them the test says so and passes.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use openagent_llm::openai_chat::OpenAiChat;
use openagent_llm::{
    base64, Codec, ContentPart, ErrorKind, MediaData, Message, ProviderConfig, Reason, Request, Response, ResponseFormat, Role,
    StreamAccumulator, StreamEvent, ToolCall, ToolChoice, ToolDefinition, ToolResult,
};
use serde_json::{json, Map, Value};

/// The codec's default provider name, written as a key.
const OPTIONS_KEY: &str = "openai_compatible";

/// Cases whose request uses something Chat Completions (or we) do not support.
const UNSUPPORTED: &[(&str, &str)] = &[
    (
        "chatCompletionsGcsBackedVideoFileParam",
        "a `file` part by URL (gs://): the API takes files only as base64 data URLs (its captured 400 says so); the codec refuses it before sending",
    ),
    (
        "chatCompletionsUrlBackedAudioFileParam",
        "a `file` part by URL (https://): the API takes files only as base64 data URLs (its captured 400 says so); the codec refuses it before sending",
    ),
];

/// What the unified model deliberately does not carry, so a round trip loses it. The request
/// comparison normalises exactly these away, on both sides.
const NOT_CARRIED: &[(&str, &str)] = &[
    ("cache_control", "per-part `cache_control`/`prompt_cache_breakpoint` (Anthropic-style cache hints on Chat parts): ContentPart has no cache field"),
    ("text_split", "how a text-only message is split into text parts: the codec sends text-only content as one string"),
    ("echoed_fields", "`refusal: null` and `annotations: []` echoed back on assistant history: response-only fields that carry nothing"),
];

/// What the codec does not handle, and why (printed with the results).
const NOT_HANDLED: &[&str] = &[
    "choices beyond the first (`n` > 1): the unified Response has one message",
    "legacy `function_call`/`functions` (pre-tools API): mapped as a finish reason only; we never send `functions`",
    "`custom` tool calls (GPT-5 free-form tools): we only declare function tools",
    "`logprobs`, `annotations` (URL citations), audio output: kept in Response.raw only",
    "tool results' `is_error` and images: Chat tool messages are text only (the model reads the error from the text)",
    "URL-backed audio and files: the API takes them only inline (base64); refused before sending",
    "per-part cache hints: ContentPart has no cache field",
];

/// Captured parameters that are provider-only: they travel through `provider_options`.
const PROVIDER_ONLY: &[&str] = &[
    "frequency_penalty",
    "presence_penalty",
    "logprobs",
    "top_logprobs",
    "seed",
    "service_tier",
    "store",
    "metadata",
    "prompt_cache_key",
    "parallel_tool_calls",
];

#[derive(Default)]
struct Tally {
    passed: usize,
    failed: usize,
    skipped: usize,
}

#[derive(Default)]
struct Run {
    tallies: BTreeMap<&'static str, Tally>,
    failures: Vec<String>,
    skipped: Vec<String>,
    notes: BTreeMap<String, usize>,
    /// Streamed-vs-plain facts compared, and facts not compared because the captures differ.
    agreement: (usize, usize),
}

impl Run {
    fn record(&mut self, kind: &'static str, case: &str, result: Result<(), String>) {
        let tally = self.tallies.entry(kind).or_default();
        match result {
            Ok(()) => tally.passed += 1,
            Err(why) => {
                tally.failed += 1;
                self.failures.push(format!("{case}/{kind}: {why}"));
            }
        }
    }

    fn skip(&mut self, kind: &'static str, case: &str, reason: &str) {
        self.tallies.entry(kind).or_default().skipped += 1;
        self.skipped.push(format!("{case}/{kind}: {reason}"));
    }
}

fn codec() -> OpenAiChat {
    OpenAiChat::new(ProviderConfig { base_url: "http://127.0.0.1:8080/v1".into(), ..Default::default() })
}

fn read_json(path: &Path) -> Result<Value, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

#[test]
fn openai_chat_codec_against_captured_payloads() {
    let root = std::env::var_os("OPENAGENT_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures"));
    let dir = root.join("provider_payloads/openai-chat");
    if !dir.is_dir() {
        println!("skipped: fixtures not found at {}", dir.display());
        return;
    }
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the fixture directory is readable")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_dir())
        .collect();
    cases.sort();
    let mut run = Run::default();
    for case_dir in &cases {
        let case = case_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        run_case(&case, case_dir, &mut run);
    }

    println!("{:<28} {:>6} {:>6} {:>7}", "fixture kind", "passed", "failed", "skipped");
    for (kind, tally) in &run.tallies {
        println!("{kind:<28} {:>6} {:>6} {:>7}", tally.passed, tally.failed, tally.skipped);
    }
    let (compared, differ) = run.agreement;
    println!("streamed vs non-streamed: {compared} facts agree; {differ} not compared (the two live captures differ there)");
    println!("\nskipped:");
    run.skipped.iter().for_each(|s| println!("  {s}"));
    println!("\nnot carried by the unified model (normalised away in the request comparison; cases affected):");
    for (key, why) in NOT_CARRIED {
        println!("  {why} [{}]", run.notes.get(*key).copied().unwrap_or(0));
    }
    println!("\nprovider-only parameters, passed through provider_options.{OPTIONS_KEY} (cases):");
    for name in PROVIDER_ONLY {
        println!("  {name} [{}]", run.notes.get(*name).copied().unwrap_or(0));
    }
    for (note, count) in run.notes.iter().filter(|(k, _)| k.starts_with("option ")) {
        println!("  {note} [{count}]");
    }
    println!("\nnot handled by the codec:");
    NOT_HANDLED.iter().for_each(|s| println!("  {s}"));
    assert!(run.failures.is_empty(), "{} unexpected mismatches:\n{}", run.failures.len(), run.failures.join("\n"));
}

fn run_case(case: &str, dir: &Path, run: &mut Run) {
    let unsupported = UNSUPPORTED.iter().find(|(name, _)| *name == case).map(|(_, why)| *why);
    for (kind, file) in [("request", "request.json"), ("followup-request", "followup-request.json")] {
        let path = dir.join(file);
        if !path.exists() {
            continue;
        }
        match unsupported {
            Some(why) => {
                // Skipped, but the refusal itself is checked: it must be clear and early.
                let refused = read_json(&path)
                    .and_then(|body| unify(&body, &mut BTreeMap::new()))
                    .map(|req| codec().build_request(&req, false));
                match refused {
                    Ok(Err(e)) if e.kind == ErrorKind::InvalidRequest => run.skip(kind, case, why),
                    other => run.record(kind, case, Err(format!("expected an InvalidRequest refusal, got {other:?}"))),
                }
            }
            None => {
                let result = read_json(&path).and_then(|body| check_request(&body, &mut run.notes));
                run.record(kind, case, result);
            }
        }
    }
    let mut parsed: [Option<Response>; 2] = [None, None];
    for (kind, file) in [("response", "response.json"), ("followup-response", "followup-response.json")] {
        let path = dir.join(file);
        if path.exists() {
            let result = std::fs::read(&path).map_err(|e| e.to_string()).and_then(|bytes| {
                let response = check_response(&bytes)?;
                parsed[usize::from(kind != "response")] = Some(response);
                Ok(())
            });
            run.record(kind, case, result);
        }
    }
    for (n, (kind, file, plain)) in [
        ("response-streaming", "response-streaming.json", "response.json"),
        ("followup-response-streaming", "followup-response-streaming.json", "followup-response.json"),
    ]
    .into_iter()
    .enumerate()
    {
        let path = dir.join(file);
        if !path.exists() {
            continue;
        }
        let result = read_json(&path).and_then(|chunks| {
            let streamed = check_stream(&chunks)?;
            match (&parsed[n], read_json(&dir.join(plain))) {
                (Some(response), Ok(plain)) => agree(&plain, response, &chunks, &streamed, &mut run.agreement),
                _ => Ok(()),
            }
        });
        run.record(kind, case, result);
    }
    let path = dir.join("error.json");
    if path.exists() {
        run.record("error", case, read_json(&path).and_then(|body| check_error(&body)));
    }
}

// ---------------------------------------------------------------------------------------------
// Requests: captured body -> unified Request -> our body, compared after normalisation.
// ---------------------------------------------------------------------------------------------

fn check_request(captured: &Value, notes: &mut BTreeMap<String, usize>) -> Result<(), String> {
    let request = unify(captured, notes)?;
    let http = codec().build_request(&request, false).map_err(|e| format!("build_request failed: {e}"))?;
    if http.url != "http://127.0.0.1:8080/v1/chat/completions" || http.header("authorization").is_some() {
        return Err(format!("unexpected url or auth header: {http:?}"));
    }
    let ours: Value = serde_json::from_slice(&http.body.to_vec()).map_err(|e| format!("our body is not JSON: {e}"))?;
    let mut seen = BTreeMap::new();
    let (expected, actual) = (normalise(captured, &mut seen), normalise(&ours, &mut BTreeMap::new()));
    for key in seen.into_keys() {
        *notes.entry(key).or_default() += 1;
    }
    if expected != actual {
        return Err(format!("meaning differs:\n  captured {expected}\n  ours     {actual}"));
    }
    // Streaming adds exactly `stream` and `stream_options.include_usage`.
    let streamed = codec().build_request(&request, true).map_err(|e| format!("build_request(stream) failed: {e}"))?;
    let mut streamed: Value = serde_json::from_slice(&streamed.body.to_vec()).map_err(|e| e.to_string())?;
    let added = streamed.as_object_mut().map(|o| (o.remove("stream"), o.remove("stream_options")));
    if added != Some((Some(json!(true)), Some(json!({"include_usage": true})))) || streamed != ours {
        return Err(format!("the streamed body is not the plain one plus stream options: {added:?}"));
    }
    Ok(())
}

/// The test-side reverse mapping: a captured Chat body as a unified `Request`. Anything it does
/// not know is an error, so nothing is dropped unnoticed.
fn unify(body: &Value, notes: &mut BTreeMap<String, usize>) -> Result<Request, String> {
    let object = body.as_object().ok_or("the request is not an object")?;
    let mut request = Request::default();
    let mut options = Map::new();
    for (key, value) in object {
        match key.as_str() {
            "model" => request.model = value.as_str().ok_or("model")?.to_owned(),
            "messages" => {
                for message in value.as_array().ok_or("messages")? {
                    request.messages.push(unify_message(message)?);
                }
            }
            "tools" => {
                let tools = value.as_array().ok_or("tools")?;
                let strict: Vec<bool> = tools.iter().map(|t| t["function"]["strict"] == json!(true)).collect();
                if strict.iter().any(|s| *s) {
                    if !strict.iter().all(|s| *s) {
                        return Err("tools mix strict and non-strict functions; strict_tools is all or nothing".into());
                    }
                    options.insert("strict_tools".into(), json!(true));
                    *notes.entry("option strict_tools (tools[].function.strict)".into()).or_default() += 1;
                }
                for tool in tools {
                    let f = &tool["function"];
                    request.tools.push(ToolDefinition {
                        name: f["name"].as_str().ok_or("tool name")?.to_owned(),
                        description: f["description"].as_str().unwrap_or_default().to_owned(),
                        parameters: f["parameters"].clone(),
                    });
                }
            }
            "tool_choice" => {
                request.tool_choice = Some(match value {
                    Value::String(s) if s == "auto" => ToolChoice::Auto,
                    Value::String(s) if s == "none" => ToolChoice::None,
                    Value::String(s) if s == "required" => ToolChoice::Required,
                    v => ToolChoice::Named { tool_name: v["function"]["name"].as_str().ok_or("tool_choice")?.to_owned() },
                })
            }
            "response_format" => {
                request.response_format = Some(match value["type"].as_str() {
                    Some("text") => ResponseFormat::Text,
                    Some("json_object") => ResponseFormat::Json,
                    Some("json_schema") => {
                        let mut wrapper = value["json_schema"].as_object().ok_or("json_schema")?.clone();
                        let strict = wrapper.remove("strict").is_some_and(|s| s == json!(true));
                        ResponseFormat::JsonSchema { json_schema: Value::Object(wrapper), strict }
                    }
                    other => return Err(format!("response_format {other:?}")),
                })
            }
            "temperature" => request.temperature = value.as_f64(),
            "top_p" => request.top_p = value.as_f64(),
            "max_tokens" => request.max_tokens = value.as_u64(),
            "max_completion_tokens" => {
                request.max_tokens = value.as_u64();
                options.insert("max_tokens_param".into(), json!("max_completion_tokens"));
                *notes.entry("option max_tokens_param (max_completion_tokens)".into()).or_default() += 1;
            }
            "stop" => {
                request.stop_sequences = match value {
                    Value::String(s) => vec![s.clone()],
                    v => v.as_array().ok_or("stop")?.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
                }
            }
            "reasoning_effort" => request.reasoning_effort = value.as_str().map(str::to_owned),
            name if PROVIDER_ONLY.contains(&name) => {
                *notes.entry(name.to_owned()).or_default() += 1;
                options.insert(name.to_owned(), value.clone());
            }
            other => return Err(format!("the reverse mapping does not know `{other}`: add it to PROVIDER_ONLY or map it")),
        }
    }
    if !options.is_empty() {
        request.provider_options = Some(json!({ OPTIONS_KEY: options }));
    }
    Ok(request)
}

fn unify_message(message: &Value) -> Result<Message, String> {
    const KNOWN: &[&str] = &["role", "content", "tool_calls", "tool_call_id", "name", "refusal", "annotations"];
    if let Some(key) = message.as_object().and_then(|o| o.keys().find(|k| !KNOWN.contains(&k.as_str()))) {
        return Err(format!("message field `{key}` is not mapped"));
    }
    let role = match message["role"].as_str() {
        Some("system") => Role::System,
        Some("developer") => Role::Developer,
        Some("user") => Role::User,
        Some("assistant") => Role::Assistant,
        Some("tool") => {
            let id = message["tool_call_id"].as_str().ok_or("tool_call_id")?;
            let content = match &message["content"] {
                Value::String(s) => s.clone(),
                parts => parts.as_array().ok_or("tool content")?.iter().filter_map(|p| p["text"].as_str()).collect(),
            };
            return Ok(Message::tool_result(ToolResult::new(id, content, false)));
        }
        other => return Err(format!("role {other:?}")),
    };
    let mut content = Vec::new();
    match &message["content"] {
        Value::Null => {}
        Value::String(s) => content.push(ContentPart::text(s.clone())),
        Value::Array(parts) => {
            for part in parts {
                content.push(unify_part(part)?);
            }
        }
        other => return Err(format!("content {other}")),
    }
    for call in message["tool_calls"].as_array().into_iter().flatten() {
        let f = &call["function"];
        let tool_call = ToolCall::from_raw(
            call["id"].as_str().ok_or("tool call id")?,
            f["name"].as_str().ok_or("tool call name")?,
            f["arguments"].as_str().ok_or("tool call arguments")?,
        );
        content.push(ContentPart::ToolCall { tool_call });
    }
    let mut unified = Message::new(role, content);
    unified.name = message["name"].as_str().map(str::to_owned);
    Ok(unified)
}

fn unify_part(part: &Value) -> Result<ContentPart, String> {
    let media = |url: &str| -> Result<MediaData, String> {
        match url.strip_prefix("data:").and_then(|rest| rest.split_once(";base64,")) {
            Some((media_type, data)) => Ok(MediaData {
                data: Some(base64::decode(data)?),
                media_type: Some(media_type.to_owned()),
                ..MediaData::default()
            }),
            None => Ok(MediaData { url: Some(url.to_owned()), ..MediaData::default() }),
        }
    };
    Ok(match part["type"].as_str() {
        Some("text") => ContentPart::text(part["text"].as_str().ok_or("text")?),
        Some("image_url") => {
            let mut image = media(part["image_url"]["url"].as_str().ok_or("image url")?)?;
            image.detail = part["image_url"]["detail"].as_str().map(str::to_owned);
            ContentPart::Image { image }
        }
        Some("file") => {
            let mut document = media(part["file"]["file_data"].as_str().ok_or("file_data")?)?;
            document.file_name = part["file"]["filename"].as_str().map(str::to_owned);
            ContentPart::Document { document }
        }
        other => return Err(format!("content part type {other:?} is not mapped")),
    })
}

/// One canonical form for both bodies. Each rule removes one `NOT_CARRIED` difference and
/// records it in `seen` when it changed something.
fn normalise(body: &Value, seen: &mut BTreeMap<String, usize>) -> Value {
    let mut body = body.clone();
    let mut note = |key: &str| *seen.entry(key.to_owned()).or_default() += 1;
    for message in body["messages"].as_array_mut().into_iter().flatten() {
        let Some(message) = message.as_object_mut() else { continue };
        let before = message.len();
        message.retain(|k, v| !(k == "refusal" && v.is_null() || k == "annotations" && v == &json!([])));
        if message.len() != before {
            note("echoed_fields");
        }
        let Some(content) = message.get_mut("content") else { continue };
        // Content as a list of parts with adjacent text merged; no part for empty text.
        let mut parts: Vec<Value> = Vec::new();
        let items = match content.take() {
            Value::String(s) => vec![json!({"type": "text", "text": s})],
            Value::Array(items) => items,
            _ => Vec::new(),
        };
        if items.iter().filter(|p| p["type"] == "text").count() > 1 && items.iter().all(|p| p["type"] == "text") {
            note("text_split");
        }
        for mut item in items {
            if let Some(obj) = item.as_object_mut() {
                let before = obj.len();
                obj.retain(|k, _| k != "cache_control" && k != "prompt_cache_breakpoint");
                if obj.len() != before {
                    note("cache_control");
                }
            }
            match (parts.last_mut(), item["text"].as_str()) {
                (_, Some("")) => {}
                (Some(last), Some(text)) if last["type"] == "text" => {
                    let joined = format!("{}{text}", last["text"].as_str().unwrap_or_default());
                    last["text"] = json!(joined);
                }
                _ => parts.push(item),
            }
        }
        *content = Value::Array(parts);
    }
    body
}

// ---------------------------------------------------------------------------------------------
// Responses: facts read from the captured JSON, then checked on our parse.
// ---------------------------------------------------------------------------------------------

/// What a captured answer says, read straight from its JSON.
#[derive(Debug, PartialEq)]
struct Facts {
    model: Option<String>,
    text: String,
    reasoning: Option<String>,
    /// (id, name, argument text)
    tool_calls: Vec<(String, String, String)>,
    finish_reason: Option<String>,
    usage: Option<Value>,
}

fn facts_of_body(body: &Value) -> Facts {
    let message = &body["choices"][0]["message"];
    let reasoning = message["reasoning_content"].as_str().or(message["reasoning"].as_str()).filter(|s| !s.is_empty());
    let tool_calls = message["tool_calls"].as_array().into_iter().flatten().map(|c| {
        let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
        (text(&c["id"]), text(&c["function"]["name"]), text(&c["function"]["arguments"]))
    });
    Facts {
        model: body["model"].as_str().map(str::to_owned),
        text: message["content"].as_str().unwrap_or_default().to_owned(),
        reasoning: reasoning.map(str::to_owned),
        tool_calls: tool_calls.collect(),
        finish_reason: body["choices"][0]["finish_reason"].as_str().map(str::to_owned),
        usage: Some(body["usage"].clone()).filter(Value::is_object),
    }
}

fn facts_of_chunks(chunks: &[Value]) -> Facts {
    let mut facts =
        Facts { model: None, text: String::new(), reasoning: None, tool_calls: Vec::new(), finish_reason: None, usage: None };
    let mut calls: BTreeMap<u64, (String, String, String)> = BTreeMap::new();
    for chunk in chunks {
        facts.model = facts.model.or(chunk["model"].as_str().map(str::to_owned));
        if chunk["usage"].is_object() {
            facts.usage = Some(chunk["usage"].clone());
        }
        let Some(choice) = chunk["choices"].as_array().and_then(|c| c.first()) else { continue };
        let delta = &choice["delta"];
        facts.text.push_str(delta["content"].as_str().unwrap_or_default());
        if let Some(r) = delta["reasoning_content"].as_str().or(delta["reasoning"].as_str()) {
            facts.reasoning.get_or_insert_with(String::new).push_str(r);
        }
        for fragment in delta["tool_calls"].as_array().into_iter().flatten() {
            let call = calls.entry(fragment["index"].as_u64().unwrap_or(0)).or_default();
            call.0.push_str(fragment["id"].as_str().unwrap_or_default());
            call.1.push_str(fragment["function"]["name"].as_str().unwrap_or_default());
            call.2.push_str(fragment["function"]["arguments"].as_str().unwrap_or_default());
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            facts.finish_reason = Some(reason.to_owned());
        }
    }
    facts.tool_calls = calls.into_values().collect();
    facts
}

/// Spec 3.8's table for OpenAI, and tool calls whatever the stop reason said.
fn expected_reason(facts: &Facts) -> Reason {
    match facts.finish_reason.as_deref() {
        Some("length") => Reason::Length,
        Some("content_filter") => Reason::ContentFilter,
        _ if !facts.tool_calls.is_empty() => Reason::ToolCalls,
        Some("stop") => Reason::Stop,
        Some("tool_calls" | "function_call") => Reason::ToolCalls,
        _ => Reason::Other,
    }
}

/// Our response against the facts; `Err` names the first difference.
fn compare(facts: &Facts, response: &Response) -> Result<(), String> {
    let differ = |what: &str, expected: &dyn std::fmt::Debug, got: &dyn std::fmt::Debug| {
        Err(format!("{what}: expected {expected:?}, got {got:?}"))
    };
    if facts.model.as_deref().unwrap_or_default() != response.model {
        return differ("model", &facts.model, &response.model);
    }
    if facts.text != response.text() {
        return differ("text", &facts.text, &response.text());
    }
    if facts.reasoning != response.reasoning() {
        return differ("reasoning", &facts.reasoning, &response.reasoning());
    }
    let calls: Vec<(String, String, String)> =
        response.tool_calls().into_iter().map(|c| (c.id, c.name, c.raw_arguments.unwrap_or_default())).collect();
    if facts.tool_calls != calls {
        return differ("tool calls", &facts.tool_calls, &calls);
    }
    for call in response.tool_calls() {
        let parsed = serde_json::from_str::<Value>(call.raw_arguments.as_deref().unwrap_or_default()).unwrap_or(Value::Null);
        if parsed != call.arguments {
            return differ("parsed arguments", &parsed, &call.arguments);
        }
    }
    let reason = (expected_reason(facts), facts.finish_reason.clone());
    if reason != (response.finish_reason.reason, response.finish_reason.raw.clone()) {
        return differ("finish reason", &reason, &response.finish_reason);
    }
    let usage = &response.usage;
    match &facts.usage {
        Some(raw) => {
            let n = |v: &Value| v.as_u64();
            let expected = (
                n(&raw["prompt_tokens"]),
                n(&raw["completion_tokens"]),
                n(&raw["total_tokens"]),
                n(&raw["completion_tokens_details"]["reasoning_tokens"]),
                n(&raw["prompt_tokens_details"]["cached_tokens"]),
                n(&raw["prompt_tokens_details"]["cache_write_tokens"]),
                Some(raw),
            );
            let got = (
                Some(usage.input_tokens),
                Some(usage.output_tokens),
                Some(usage.total_tokens),
                usage.reasoning_tokens,
                usage.cache_read_tokens,
                usage.cache_write_tokens,
                usage.raw.as_ref(),
            );
            if expected != got {
                return differ("usage", &expected, &got);
            }
        }
        None => {
            if (usage.input_tokens, usage.output_tokens, usage.total_tokens, usage.raw.is_some()) != (0, 0, 0, false) {
                return differ("usage (none reported)", &"zero", usage);
            }
            if !response.warnings.iter().any(|w| w.code.as_deref() == Some("usage_missing")) {
                return differ("warnings", &"a usage_missing warning", &response.warnings);
            }
        }
    }
    Ok(())
}

/// The captured bytes go to the codec as they are (re-serialising would not round-trip every
/// float of a logprobs body).
fn check_response(bytes: &[u8]) -> Result<Response, String> {
    let body: Value = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    let response = codec().parse_response(bytes, &[]).map_err(|e| format!("parse_response failed: {e}"))?;
    compare(&facts_of_body(&body), &response)?;
    if response.raw.as_ref() != Some(&body) || response.id != body["id"].as_str().unwrap_or_default() {
        return Err("Response.raw or id is not the provider's".into());
    }
    Ok(response)
}

/// The chunks as the bytes OpenAI sends.
fn sse_bytes(chunks: &[Value], done: bool) -> Vec<u8> {
    let mut out: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
    if done {
        out.push_str("data: [DONE]\n\n");
    }
    out.into_bytes()
}

fn decode(bytes: &[u8], piece: usize) -> Vec<StreamEvent> {
    let mut decoder = codec().stream_decoder();
    let mut events = Vec::new();
    for chunk in bytes.chunks(piece.max(1)) {
        if let Err(error) = decoder.feed(chunk, &mut events) {
            events.push(StreamEvent::Error { error });
            return events;
        }
    }
    if let Err(error) = decoder.end(&mut events) {
        events.push(StreamEvent::Error { error });
    }
    events
}

fn check_stream(chunks: &Value) -> Result<Response, String> {
    let chunks = chunks.as_array().ok_or("the streaming capture is not a list")?;
    let bytes = sse_bytes(chunks, true);
    let events = decode(&bytes, bytes.len());
    for piece in [1, 7] {
        if decode(&bytes, piece) != events {
            return Err(format!("fed {piece} bytes at a time, the events differ"));
        }
    }
    if decode(&sse_bytes(chunks, false), 7) != events {
        return Err("without [DONE] the events differ".into());
    }
    let finishes = events.iter().filter(|e| matches!(e, StreamEvent::Finish { .. } | StreamEvent::Error { .. })).count();
    if finishes != 1 || !matches!(events.last(), Some(StreamEvent::Finish { .. })) {
        return Err(format!("the stream must end with exactly one Finish: {:?}", events.last()));
    }
    let mut acc = StreamAccumulator::new();
    events.iter().for_each(|e| acc.push(e.clone()));
    let response = acc.finish("openai-compatible").map_err(|e| format!("the stream did not finish: {e}"))?;
    compare(&facts_of_chunks(chunks), &response)?;
    let id = chunks.first().and_then(|c| c["id"].as_str()).unwrap_or_default();
    if response.id != id {
        return Err(format!("stream id: expected {id}, got {}", response.id));
    }
    Ok(response)
}

/// Streamed and non-streamed parses agree on each fact on which the two captures agree.
fn agree(
    plain: &Value,
    plain_response: &Response,
    chunks: &Value,
    streamed: &Response,
    tally: &mut (usize, usize),
) -> Result<(), String> {
    let (a, b) = (facts_of_body(plain), facts_of_chunks(chunks.as_array().map(Vec::as_slice).unwrap_or_default()));
    let checks: [(&str, bool, bool); 4] = [
        ("model", a.model == b.model, plain_response.model == streamed.model),
        ("text", a.text == b.text, plain_response.text() == streamed.text()),
        ("finish reason", a.finish_reason == b.finish_reason, plain_response.finish_reason == streamed.finish_reason),
        (
            "tool calls (name, arguments)",
            a.tool_calls.iter().map(|c| (&c.1, &c.2)).eq(b.tool_calls.iter().map(|c| (&c.1, &c.2))),
            plain_response
                .tool_calls()
                .iter()
                .map(|c| (&c.name, &c.arguments))
                .eq(streamed.tool_calls().iter().map(|c| (&c.name, &c.arguments))),
        ),
    ];
    let compared = checks.iter().filter(|(_, captures_agree, _)| *captures_agree).count();
    *tally = (tally.0 + compared, tally.1 + checks.len() - compared);
    match checks.iter().find(|(_, captures_agree, ours_agree)| *captures_agree && !ours_agree) {
        Some((what, ..)) => Err(format!("streamed and non-streamed parses disagree on {what} where the captures agree")),
        None => Ok(()),
    }
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// Spec 6.4's kind for a status, refined by 6.5's words.
fn expected_kind(status: u16, message: &str) -> ErrorKind {
    let m = message.to_ascii_lowercase();
    let by_status = match status {
        400 | 422 => ErrorKind::InvalidRequest,
        401 => ErrorKind::Authentication,
        403 => ErrorKind::AccessDenied,
        404 => ErrorKind::NotFound,
        408 => ErrorKind::RequestTimeout,
        413 => ErrorKind::ContextLength,
        429 => ErrorKind::RateLimit,
        _ => ErrorKind::Server,
    };
    if m.contains("context length") || m.contains("too many tokens") {
        ErrorKind::ContextLength
    } else if m.contains("not found") || m.contains("does not exist") {
        ErrorKind::NotFound
    } else if m.contains("unauthorized") || m.contains("invalid key") {
        ErrorKind::Authentication
    } else {
        by_status
    }
}

fn check_error(captured: &Value) -> Result<(), String> {
    // The corpus keeps OpenAI errors as "Error: <status> <message>".
    let line = captured["error"].as_str().ok_or("error.json has no error line")?;
    let (status, message) = line
        .strip_prefix("Error: ")
        .and_then(|rest| rest.split_once(' '))
        .and_then(|(status, message)| Some((status.parse::<u16>().ok()?, message)))
        .ok_or_else(|| format!("cannot read a status from {line:?}"))?;
    let kind = expected_kind(status, message);
    let bodies = [
        (json!({"error": {"message": message, "type": "invalid_request_error", "param": null, "code": null}}), message),
        (json!({"error": {"code": status, "message": message, "type": "invalid_request_error"}}), message),
        (captured.clone(), line),
    ];
    for (body, shown) in bodies {
        let error = codec().parse_error(status, &[], &serde_json::to_vec(&body).map_err(|e| e.to_string())?);
        let got = (error.kind, error.status_code, error.retryable, error.message.as_str(), error.raw.as_ref());
        let want = (kind, Some(status), kind.default_retryable(), shown, Some(&body));
        if got != want {
            return Err(format!("body {body}: expected {want:?}, got {got:?}"));
        }
    }
    Ok(())
}
