#![cfg(not(target_arch = "wasm32"))]
//! The Gemini codec against real captured payloads (`shared/fixtures/provider_payloads/gemini`,
//! or `$OPENAGENT_FIXTURES`). Every expectation is read from the captured JSON itself:
//!
//! - `response.json`, `followup-response.json`: parsed whole; text, reasoning, tool calls,
//!   signatures, media, usage, finish reason, id and model must match the body.
//! - `*-response-streaming.json`: the chunks re-framed as the provider sends them (SSE `data:`
//!   frames for `?alt=sse`, and the plain JSON array), fed whole, byte by byte and 7 bytes at a
//!   time; the events must follow the stream protocol, agree across chunkings, match the same
//!   facts, and agree with `parse_response` over the same chunks merged into one body.
//! - `error.json`: the provider's error body must map to the kind its gRPC status names.
//! - `request.json`, `followup-request.json`: translated back into a unified `Request` (what the
//!   unified model does not carry goes to `provider_options.gemini`), rebuilt by the codec, and
//!   the rebuilt body must mean the same as the captured one.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Debug;
use std::path::{Path, PathBuf};

use openagent_llm::gemini::{synthetic_call_id, Gemini};
use openagent_llm::{
    base64, ApiKey, Codec, ContentPart, ErrorKind, FinishReason, MediaData, Message, ProviderConfig, Reason, Request, Response,
    ResponseFormat, Role, StreamAccumulator, StreamEvent, ThinkingData, ToolCall, ToolChoice, ToolDefinition, ToolResult, Usage,
};
use serde_json::{json, Map, Value};

const KEY: &str = "AIza-test-key-never-shown";
const BASE: &str = "https://generativelanguage.googleapis.com";
/// The model of captured bodies that do not name one (Gemini puts it in the URL).
const DEFAULT_MODEL: &str = "gemini-2.5-flash";

fn codec() -> Gemini {
    Gemini::new(ProviderConfig { api_key: ApiKey::new(KEY), base_url: BASE.into(), ..ProviderConfig::default() })
}

fn fixtures_dir() -> Result<PathBuf, PathBuf> {
    let root = std::env::var_os("OPENAGENT_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures/provider_payloads"));
    // Accept the provider_payloads directory or the fixtures directory above it.
    [root.join("gemini"), root.join("provider_payloads/gemini")].into_iter().find(|d| d.is_dir()).ok_or(root)
}

#[derive(Default)]
struct Counts {
    pass: usize,
    skip: usize,
    fail: usize,
}

#[derive(Default)]
struct Report {
    counts: BTreeMap<String, Counts>,
    failures: Vec<String>,
    skipped: Vec<String>,
    /// Known gaps, each with the cases that show it.
    not_handled: BTreeMap<String, BTreeSet<String>>,
    /// Request fields that travel in `provider_options.gemini`, with the cases that use them.
    passed_through: BTreeMap<String, BTreeSet<String>>,
}

enum Verdict {
    Pass,
    Skip(String),
}

type Check = Result<Verdict, String>;

#[test]
fn gemini_codec_against_captured_payloads() {
    let dir = match fixtures_dir() {
        Ok(dir) => dir,
        Err(root) => {
            println!("skipped: fixtures not found at {}", root.display());
            return;
        }
    };
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    let mut report = Report::default();
    for case_dir in &cases {
        let case = case_dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<PathBuf> = std::fs::read_dir(case_dir).unwrap().map(|e| e.unwrap().path()).collect();
        files.sort();
        for file in files {
            let kind = file.file_stem().unwrap().to_string_lossy().into_owned();
            let captured: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
            let check = match kind.as_str() {
                "response" | "followup-response" => check_response(&captured, &case, &mut report),
                "response-streaming" | "followup-response-streaming" => check_stream(&captured, &case, &mut report),
                "error" => check_error(&captured),
                "request" | "followup-request" => check_request(&captured, &format!("{case}/{kind}"), &mut report),
                _ => Ok(Verdict::Skip(format!("unknown fixture kind `{kind}`"))),
            };
            let counts = report.counts.entry(kind.clone()).or_default();
            match check {
                Ok(Verdict::Pass) => counts.pass += 1,
                Ok(Verdict::Skip(reason)) => {
                    counts.skip += 1;
                    report.skipped.push(format!("{case}/{kind}: {reason}"));
                }
                Err(problem) => {
                    counts.fail += 1;
                    report.failures.push(format!("{case}/{kind}: {problem}"));
                }
            }
        }
    }
    print_report(&dir, &report);
    assert!(report.failures.is_empty(), "{} fixture check(s) failed:\n{}", report.failures.len(), report.failures.join("\n"));
    assert!(report.counts.values().map(|c| c.pass).sum::<usize>() > 0, "no fixture was checked");
}

fn print_report(dir: &Path, report: &Report) {
    println!("Gemini codec over {}", dir.display());
    println!("{:<30} {:>5} {:>5} {:>5}", "fixture kind", "pass", "skip", "fail");
    for (kind, c) in &report.counts {
        println!("{kind:<30} {:>5} {:>5} {:>5}", c.pass, c.skip, c.fail);
    }
    let list = |title: &str, entries: &mut dyn Iterator<Item = String>| {
        println!("\n{title}");
        entries.for_each(|e| println!("  - {e}"));
    };
    list("skipped:", &mut report.skipped.iter().cloned());
    list(
        "not handled (by design; the checks account for these):",
        &mut report
            .not_handled
            .iter()
            .map(|(what, cases)| format!("{what} [{}]", cases.iter().cloned().collect::<Vec<_>>().join(", "))),
    );
    list(
        "not in the unified model, carried by provider_options.gemini:",
        &mut report
            .passed_through
            .iter()
            .map(|(path, cases)| format!("{path} [{}]", cases.iter().cloned().collect::<Vec<_>>().join(", "))),
    );
    list("failures:", &mut report.failures.iter().cloned());
}

fn same<T: PartialEq + Debug>(what: &str, got: T, want: T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}"))
    }
}

// ---------------------------------------------------------------------------------------------
// Answers: the facts a captured body states, and a response's view of the same facts
// ---------------------------------------------------------------------------------------------

/// What a captured answer (one body, or a stream's chunks) says, read straight from its JSON.
#[derive(Debug, Default)]
struct Facts {
    id: String,
    model: String,
    text: String,
    reasoning: Option<String>,
    /// Name, arguments, signature and provider id of each function call.
    calls: Vec<(String, Value, Option<String>, Option<String>)>,
    /// Every `thoughtSignature`, in order.
    signatures: Vec<String>,
    media: usize,
    /// Names of parts with no unified form (`executableCode`, …).
    unsupported: Vec<String>,
    finish_raw: Option<String>,
    usage: Option<Value>,
}

fn facts(chunks: &[Value]) -> Facts {
    let mut facts = Facts::default();
    // The stream's start event carries the first chunk's id and model.
    let first = |key: &str| chunks.first().and_then(|c| c.get(key)).and_then(Value::as_str).unwrap_or_default().to_owned();
    (facts.id, facts.model) = (first("responseId"), first("modelVersion"));
    for chunk in chunks {
        if let Some(usage) = chunk.get("usageMetadata") {
            facts.usage = Some(usage.clone());
        }
        let candidates = chunk["candidates"].as_array().cloned().unwrap_or_default();
        let Some(candidate) = candidates.iter().find(|c| c["index"].as_u64().unwrap_or(0) == 0) else { continue };
        for part in candidate.pointer("/content/parts").and_then(Value::as_array).into_iter().flatten() {
            if let Some(signature) = part["thoughtSignature"].as_str() {
                facts.signatures.push(signature.to_owned());
            }
            if let Some(call) = part.get("functionCall") {
                let id = call["id"].as_str().map(str::to_owned);
                let signature = part["thoughtSignature"].as_str().map(str::to_owned);
                facts.calls.push((call["name"].as_str().unwrap_or_default().to_owned(), call["args"].clone(), signature, id));
            } else if part.get("inlineData").is_some() || part.get("fileData").is_some() {
                facts.media += 1;
            } else if let Some(text) = part["text"].as_str() {
                if part["thought"] == json!(true) {
                    facts.reasoning.get_or_insert_with(String::new).push_str(text);
                } else {
                    facts.text.push_str(text);
                }
            } else if part.get("thoughtSignature").is_none() {
                facts.unsupported.extend(part.as_object().into_iter().flat_map(|o| o.keys().cloned()));
            }
        }
        if let Some(reason) = candidate["finishReason"].as_str() {
            facts.finish_raw = Some(reason.to_owned());
        }
    }
    facts
}

/// Spec 3.8's table, for the reasons the captures hold.
fn expected_finish(facts: &Facts) -> FinishReason {
    let reason = match facts.finish_raw.as_deref() {
        Some("STOP") if !facts.calls.is_empty() => Reason::ToolCalls,
        Some("STOP") => Reason::Stop,
        Some("MAX_TOKENS") => Reason::Length,
        Some("SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII") => Reason::ContentFilter,
        _ => Reason::Other,
    };
    FinishReason::new(reason, facts.finish_raw.as_deref())
}

/// Spec 3.9's table, with thoughts counted in the output as the other providers count reasoning.
fn expected_usage(metadata: Option<&Value>) -> Usage {
    let Some(metadata) = metadata else { return Usage::default() };
    let count = |key: &str| metadata.get(key).and_then(Value::as_u64);
    Usage {
        input_tokens: count("promptTokenCount").unwrap_or(0),
        output_tokens: count("candidatesTokenCount").unwrap_or(0) + count("thoughtsTokenCount").unwrap_or(0),
        total_tokens: count("totalTokenCount").unwrap_or(0),
        reasoning_tokens: count("thoughtsTokenCount"),
        cache_read_tokens: count("cachedContentTokenCount"),
        cache_write_tokens: None,
        cost_usd: None,
        raw: Some(metadata.clone()),
    }
}

/// `call_` and a UUID: the codec's id for a call Gemini gave none.
fn is_synthetic(id: &str) -> bool {
    id.strip_prefix("call_").is_some_and(|uuid| {
        uuid.len() == 36
            && uuid.bytes().enumerate().all(|(i, b)| if [8, 13, 18, 23].contains(&i) { b == b'-' } else { b.is_ascii_hexdigit() })
    })
}

/// The facts of `response` that both a whole and a streamed answer carry.
fn check_facts(response: &Response, facts: &Facts) -> Result<(), String> {
    same("id", response.id.as_str(), facts.id.as_str())?;
    same("model", response.model.as_str(), facts.model.as_str())?;
    same("provider", response.provider.as_str(), "gemini")?;
    same("text", response.text(), facts.text.clone())?;
    same("reasoning", response.reasoning().filter(|r| !r.is_empty()), facts.reasoning.clone().filter(|r| !r.is_empty()))?;
    let calls = response.tool_calls();
    same("tool call count", calls.len(), facts.calls.len())?;
    for (call, (name, args, signature, provider_id)) in calls.iter().zip(&facts.calls) {
        same("tool call name", &call.name, name)?;
        same("tool call arguments", &call.arguments, args)?;
        same("tool call signature", &call.signature, signature)?;
        let raw: Value =
            serde_json::from_str(call.raw_arguments.as_deref().unwrap_or("")).map_err(|e| format!("raw arguments: {e}"))?;
        same("raw argument text", &raw, args)?;
        match provider_id {
            Some(id) => same("tool call id (Gemini's)", &call.id, id)?,
            None if is_synthetic(&call.id) => {}
            None => return Err(format!("tool call id `{}` is not a synthetic call_<uuid>", call.id)),
        }
    }
    let ids: BTreeSet<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    same("distinct tool call ids", ids.len(), calls.len())?;
    let signatures: Vec<String> = response
        .message
        .content
        .iter()
        .filter_map(|part| match part {
            ContentPart::ToolCall { tool_call } => tool_call.signature.clone(),
            ContentPart::Thinking { thinking } => thinking.signature.clone(),
            _ => None,
        })
        .collect();
    same("thought signatures kept", &signatures, &facts.signatures)?;
    same("finish reason", &response.finish_reason, &expected_finish(facts))?;
    same("usage", &response.usage, &expected_usage(facts.usage.as_ref()))
}

fn note_unsupported(facts: &Facts, case: &str, report: &mut Report) {
    for name in &facts.unsupported {
        let gap = format!("`{name}` parts (output of a provider built-in tool) have no unified form: a warning in complete(), a ProviderEvent in stream(); Response.raw keeps them");
        report.not_handled.entry(gap).or_default().insert(case.to_owned());
    }
}

fn check_response(body: &Value, case: &str, report: &mut Report) -> Check {
    let response = codec().parse_response(body.to_string().as_bytes(), &[]).map_err(|e| format!("parse_response failed: {e}"))?;
    let facts = facts(std::slice::from_ref(body));
    check_facts(&response, &facts)?;
    same("raw body", response.raw.as_ref(), Some(body))?;
    let media =
        response.message.content.iter().filter(|p| matches!(p, ContentPart::Image { .. } | ContentPart::Audio { .. })).count();
    same("media parts", media, facts.media)?;
    let ours: Vec<Option<Vec<u8>>> = response
        .message
        .content
        .iter()
        .filter_map(|p| match p {
            ContentPart::Image { image: m } | ContentPart::Audio { audio: m } => Some(m.data.clone()),
            _ => None,
        })
        .collect();
    let captured: Vec<Option<Vec<u8>>> = body
        .pointer("/candidates/0/content/parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|p| p.pointer("/inlineData/data").and_then(Value::as_str))
        .map(|data| base64::decode(data).ok())
        .collect();
    same("inline media bytes", ours, captured)?;
    same("warnings for parts left out", response.warnings.len(), facts.unsupported.len())?;
    note_unsupported(&facts, case, report);
    Ok(Verdict::Pass)
}

// ---------------------------------------------------------------------------------------------
// Streams
// ---------------------------------------------------------------------------------------------

/// The chunks as `?alt=sse` sends them: one `data:` frame each, CRLF line ends.
fn sse_body(chunks: &[Value]) -> Vec<u8> {
    chunks.iter().map(|c| format!("data: {c}\r\n\r\n")).collect::<String>().into_bytes()
}

fn decode(body: &[u8], piece: usize) -> Result<Vec<StreamEvent>, String> {
    let mut decoder = codec().stream_decoder();
    let mut events = Vec::new();
    for chunk in body.chunks(piece) {
        decoder.feed(chunk, &mut events).map_err(|e| format!("feed failed: {e}"))?;
    }
    decoder.end(&mut events).map_err(|e| format!("end failed: {e}"))?;
    Ok(events)
}

/// Start/delta/end in order, one `Finish` last, no errors.
fn check_protocol(events: &[StreamEvent]) -> Result<(), String> {
    if !matches!(events.first(), Some(StreamEvent::StreamStart { .. })) {
        return Err("the first event is not stream_start".into());
    }
    if !matches!(events.last(), Some(StreamEvent::Finish { .. })) {
        return Err(format!("the last event is not finish: {:?}", events.last()));
    }
    let (mut text, mut reasoning, mut call): (Option<&str>, Option<&str>, Option<(&str, String)>) = (None, None, None);
    for event in events {
        let fault = match event {
            StreamEvent::TextStart { text_id } if text.is_none() => {
                text = Some(text_id.as_str());
                None
            }
            StreamEvent::TextDelta { text_id, .. } if text == Some(text_id.as_str()) => None,
            StreamEvent::TextEnd { text_id } if text == Some(text_id.as_str()) => {
                text = None;
                None
            }
            StreamEvent::ReasoningStart { id } if reasoning.is_none() => {
                reasoning = Some(id.as_str());
                None
            }
            StreamEvent::ReasoningDelta { id, .. } if reasoning == Some(id.as_str()) => None,
            StreamEvent::ReasoningEnd { id, .. } if reasoning == Some(id.as_str()) => {
                reasoning = None;
                None
            }
            StreamEvent::ToolCallStart { call_id, .. } if call.is_none() => {
                call = Some((call_id.as_str(), String::new()));
                None
            }
            StreamEvent::ToolCallDelta { call_id, delta } => match &mut call {
                Some((open, arguments)) if open == call_id => {
                    arguments.push_str(delta);
                    None
                }
                _ => Some("a tool call delta outside its call"),
            },
            StreamEvent::ToolCallEnd { tool_call } => match call.take() {
                Some((open, arguments)) if open == tool_call.id && Some(&arguments) == tool_call.raw_arguments.as_ref() => None,
                _ => Some("a tool call end that does not match its start and deltas"),
            },
            StreamEvent::Error { .. } => Some("an error event"),
            StreamEvent::Finish { .. } if text.is_some() || reasoning.is_some() || call.is_some() => {
                Some("finish with a segment open")
            }
            StreamEvent::StreamStart { .. } | StreamEvent::Finish { .. } | StreamEvent::ProviderEvent { .. } => None,
            _ => Some("an event out of order"),
        };
        if let Some(fault) = fault {
            return Err(format!("{fault}: {event:?}"));
        }
    }
    same("finish events", events.iter().filter(|e| matches!(e, StreamEvent::Finish { .. })).count(), 1)
}

/// The events as JSON, with synthetic call ids (random) replaced, to compare runs.
fn comparable(events: &[StreamEvent]) -> String {
    let mut text = serde_json::to_string(events).unwrap();
    let mut from = 0;
    while let Some(at) = text[from..].find("\"call_").map(|at| from + at + 1) {
        if text.get(at..at + 41).is_some_and(is_synthetic) {
            text.replace_range(at..at + 41, "call_<synthetic>");
        }
        from = at;
    }
    text
}

/// The chunks as one generateContent body: parts in order, the last finish reason and usage.
fn merged(chunks: &[Value]) -> Value {
    let parts: Vec<Value> = chunks
        .iter()
        .flat_map(|c| c.pointer("/candidates/0/content/parts").and_then(Value::as_array).cloned().unwrap_or_default())
        .collect();
    let last = |pointer: &str| chunks.iter().rev().find_map(|c| c.pointer(pointer)).cloned();
    let first = |pointer: &str| chunks.iter().find_map(|c| c.pointer(pointer)).cloned();
    let mut candidate = json!({"content": {"role": "model", "parts": parts}, "index": 0});
    if let Some(reason) = last("/candidates/0/finishReason") {
        candidate["finishReason"] = reason;
    }
    let mut body = json!({"candidates": [candidate]});
    for (key, value) in [
        ("usageMetadata", last("/usageMetadata")),
        ("modelVersion", first("/modelVersion")),
        ("responseId", first("/responseId")),
    ] {
        if let Some(value) = value {
            body[key] = value;
        }
    }
    body
}

fn check_stream(captured: &Value, case: &str, report: &mut Report) -> Check {
    let chunks = captured.as_array().ok_or("a streaming fixture is not a JSON array")?;
    let facts = facts(chunks);
    let whole = codec().parse_response(merged(chunks).to_string().as_bytes(), &[]).map_err(|e| format!("merged body: {e}"))?;
    check_facts(&whole, &facts).map_err(|e| format!("merged body: {e}"))?;
    let framings = [("sse", sse_body(chunks)), ("json array", serde_json::to_vec_pretty(captured).unwrap())];
    for (framing, body) in &framings {
        let mut reference: Option<String> = None;
        for piece in [body.len(), 1, 7] {
            let at = |e: String| format!("{framing}, {piece}-byte chunks: {e}");
            let events = decode(body, piece).map_err(at)?;
            check_protocol(&events).map_err(at)?;
            let passed_through = events.iter().filter(|e| matches!(e, StreamEvent::ProviderEvent { .. })).count();
            same("provider events", passed_through, facts.media + facts.unsupported.len()).map_err(at)?;
            let shape = comparable(&events);
            match &reference {
                Some(reference) if *reference != shape => {
                    return Err(at("the events differ from those of the whole body".into()))
                }
                Some(_) => {}
                None => reference = Some(shape),
            }
            let mut accumulator = StreamAccumulator::new();
            events.iter().for_each(|e| accumulator.push(e.clone()));
            let streamed = accumulator.finish("gemini").map_err(|e| at(format!("accumulated: {e}")))?;
            check_facts(&streamed, &facts).map_err(at)?;
            same("streamed vs whole: content kinds", kinds(&streamed), kinds(&whole)).map_err(at)?;
        }
    }
    if facts.media > 0 {
        let gap = "generated media (inlineData) in a stream has no unified StreamEvent: passed as a ProviderEvent, so the accumulated response lacks it";
        report.not_handled.entry(gap.into()).or_default().insert(case.to_owned());
    }
    note_unsupported(&facts, case, report);
    Ok(Verdict::Pass)
}

/// The kinds of a message's parts, runs merged (a stream joins the pieces a whole body lists),
/// media left out (a stream cannot carry it).
fn kinds(response: &Response) -> Vec<String> {
    let mut kinds: Vec<String> = response
        .message
        .content
        .iter()
        .filter(|p| !matches!(p, ContentPart::Image { .. } | ContentPart::Audio { .. } | ContentPart::Document { .. }))
        .map(|p| serde_json::to_value(p).unwrap()["kind"].as_str().unwrap().to_owned())
        .collect();
    kinds.dedup();
    kinds
}

// ---------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------

/// The capture keeps the SDK's error text, `… ApiError: {json}`; one case wraps the provider's
/// body once more in a proxy's `{"error": {"message": "<the body>"}}`.
fn provider_error_body(captured: &Value) -> Result<Value, String> {
    let text = captured["error"].as_str().ok_or("error.json holds no error text")?;
    let start = text.find('{').ok_or("no JSON in the error text")?;
    let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
    let body = values.next().ok_or("no JSON in the error text")?.map_err(|e| e.to_string())?;
    let inner = body.pointer("/error/message").and_then(Value::as_str).and_then(|m| serde_json::from_str::<Value>(m).ok());
    Ok(inner.filter(|v| v.get("error").is_some()).unwrap_or(body))
}

fn check_error(captured: &Value) -> Check {
    let body = provider_error_body(captured)?;
    let status = body.pointer("/error/code").and_then(Value::as_u64).ok_or("the error has no code")? as u16;
    let grpc = body.pointer("/error/status").and_then(Value::as_str).ok_or("the error has no status")?;
    let message = body.pointer("/error/message").and_then(Value::as_str).unwrap_or_default();
    let kind = match grpc {
        "INVALID_ARGUMENT" | "FAILED_PRECONDITION" | "OUT_OF_RANGE" => ErrorKind::InvalidRequest,
        "UNAUTHENTICATED" => ErrorKind::Authentication,
        "PERMISSION_DENIED" => ErrorKind::AccessDenied,
        "NOT_FOUND" => ErrorKind::NotFound,
        "RESOURCE_EXHAUSTED" => ErrorKind::RateLimit,
        "UNAVAILABLE" | "INTERNAL" => ErrorKind::Server,
        "DEADLINE_EXCEEDED" => ErrorKind::RequestTimeout,
        other => return Err(format!("no expectation for gRPC status {other}")),
    };
    let error = codec().parse_error(status, &[], body.to_string().as_bytes());
    same("kind", error.kind, kind)?;
    same("retryable", error.retryable, kind.default_retryable())?;
    same("message", error.message.as_str(), message)?;
    same("error code", error.error_code.as_deref(), Some(grpc))?;
    same("status", error.status_code, Some(status))?;
    same("provider", error.provider.as_deref(), Some("gemini"))?;
    same("raw", error.raw.as_ref(), Some(&body))?;
    Ok(Verdict::Pass)
}

// ---------------------------------------------------------------------------------------------
// Requests: captured body -> unified Request -> our body, which must mean the same
// ---------------------------------------------------------------------------------------------

/// A captured request in unified terms, or why it has none.
enum Unified {
    /// The request, and the body fields that travel in `provider_options.gemini`.
    Request(Request, Vec<String>),
    Unsupported(String),
}

fn to_unified(body: &Value) -> Result<Unified, String> {
    let mut reverse = Reverse {
        request: Request::default(),
        options: Map::new(),
        passed_through: Vec::new(),
        open_calls: Vec::new(),
        unsupported: None,
    };
    reverse.fill(body)?;
    Ok(match reverse.unsupported {
        Some(reason) => Unified::Unsupported(reason),
        None => Unified::Request(reverse.request, reverse.passed_through),
    })
}

/// Builds a unified `Request` from a captured body, noting what had to go to provider_options.
struct Reverse {
    request: Request,
    options: Map<String, Value>,
    passed_through: Vec<String>,
    /// Calls not answered yet: (id, name).
    open_calls: Vec<(String, String)>,
    /// Why the body cannot be expressed as a unified request, if it cannot.
    unsupported: Option<String>,
}

impl Reverse {
    fn pass_through(&mut self, path: &[&str], value: &Value) {
        let mut target = &mut self.options;
        for key in &path[..path.len() - 1] {
            target = target.entry(key.to_string()).or_insert_with(|| json!({})).as_object_mut().unwrap();
        }
        target.insert(path[path.len() - 1].to_owned(), value.clone());
        self.passed_through.push(path.join("."));
    }

    fn fill(&mut self, body: &Value) -> Result<(), String> {
        self.request.model = body["model"].as_str().unwrap_or(DEFAULT_MODEL).to_owned();
        for (key, value) in body.as_object().ok_or("the request is not an object")? {
            match key.as_str() {
                "model" => {}
                "systemInstruction" => {
                    for part in value["parts"].as_array().into_iter().flatten() {
                        self.request.messages.push(Message::system(part["text"].as_str().ok_or("non-text system part")?));
                    }
                }
                "contents" => {
                    for content in value.as_array().ok_or("contents is not an array")? {
                        self.content(content)?;
                    }
                }
                "tools" => self.tools(value)?,
                "toolConfig" => self.tool_config(value, body),
                "generationConfig" => self.generation_config(value)?,
                other => self.pass_through(&[other], value),
            }
        }
        if !self.options.is_empty() {
            self.request.provider_options = Some(json!({ "gemini": self.options }));
        }
        Ok(())
    }

    fn content(&mut self, content: &Value) -> Result<(), String> {
        let parts = content["parts"].as_array().map(Vec::as_slice).unwrap_or_default();
        let mut message = Vec::new();
        let mut results = Vec::new();
        for part in parts {
            let signature = part["thoughtSignature"].as_str().map(str::to_owned);
            if let Some(text) = part["text"].as_str() {
                if part["thought"] == json!(true) {
                    message.push(ContentPart::Thinking {
                        thinking: ThinkingData { text: text.into(), signature, ..ThinkingData::default() },
                    });
                    continue;
                }
                if !text.is_empty() {
                    message.push(ContentPart::text(text));
                }
                if let Some(signature) = signature {
                    // The codec's convention for a signed text part: a signature carrier after it.
                    message.push(ContentPart::Thinking {
                        thinking: ThinkingData { signature: Some(signature), ..ThinkingData::default() },
                    });
                }
            } else if let Some(call) = part.get("functionCall") {
                let id = call["id"].as_str().map(str::to_owned).unwrap_or_else(synthetic_call_id);
                let name = call["name"].as_str().ok_or("a call without a name")?.to_owned();
                self.open_calls.push((id.clone(), name.clone()));
                let mut tool_call = ToolCall::from_raw(id, name, call["args"].to_string());
                tool_call.signature = signature;
                message.push(ContentPart::ToolCall { tool_call });
            } else if let Some(response) = part.get("functionResponse") {
                let name = response["name"].as_str().ok_or("a function response without a name")?;
                let at = self.open_calls.iter().position(|(_, n)| n == name).ok_or("a function response that answers no call")?;
                let (id, _) = self.open_calls.remove(at);
                let result = match response["response"].as_object() {
                    Some(r) if r.len() == 1 && r.get("result").is_some_and(Value::is_string) => {
                        ToolResult::new(id, r["result"].as_str().unwrap_or_default(), false)
                    }
                    Some(r) if r.len() == 1 && r.get("error").is_some_and(Value::is_string) => {
                        ToolResult::new(id, r["error"].as_str().unwrap_or_default(), true)
                    }
                    _ => ToolResult::new(id, response["response"].to_string(), false),
                };
                results.push(result);
            } else if let Some(blob) = part.get("inlineData") {
                let data = base64::decode(blob["data"].as_str().unwrap_or_default())?;
                message.push(media_part(MediaData { data: Some(data), media_type: mime(blob), ..MediaData::default() }));
            } else if let Some(file) = part.get("fileData") {
                let url = file["fileUri"].as_str().map(str::to_owned);
                message.push(media_part(MediaData { url, media_type: mime(file), ..MediaData::default() }));
            } else {
                let name = part.as_object().and_then(|o| o.keys().next().cloned()).unwrap_or_default();
                self.unsupported = Some(format!(
                    "the history holds a `{name}` part (output of a provider built-in tool), which the unified model cannot carry"
                ));
            }
        }
        match content["role"].as_str() {
            Some("model") => self.request.messages.push(Message::new(Role::Assistant, message)),
            Some("user") if results.is_empty() => self.request.messages.push(Message::new(Role::User, message)),
            Some("user") if message.is_empty() => self.request.messages.extend(results.into_iter().map(Message::tool_result)),
            role => return Err(format!("a content with role {role:?} mixing results and other parts")),
        }
        Ok(())
    }

    fn tools(&mut self, tools: &Value) -> Result<(), String> {
        for tool in tools.as_array().ok_or("tools is not an array")? {
            let Some(declarations) = tool.get("functionDeclarations") else {
                // A built-in tool: provider_options' tools are appended to the declarations.
                self.options.entry("tools").or_insert_with(|| json!([])).as_array_mut().unwrap().push(tool.clone());
                let name = tool.as_object().and_then(|o| o.keys().next().cloned()).unwrap_or_default();
                self.passed_through.push(format!("tools[].{name} (built-in tool)"));
                continue;
            };
            for declaration in declarations.as_array().ok_or("functionDeclarations is not an array")? {
                self.request.tools.push(ToolDefinition {
                    name: declaration["name"].as_str().unwrap_or_default().to_owned(),
                    description: declaration["description"].as_str().unwrap_or_default().to_owned(),
                    parameters: declaration.get("parameters").map(json_schema).unwrap_or_else(|| json!({"type": "object"})),
                });
            }
        }
        Ok(())
    }

    fn tool_config(&mut self, config: &Value, body: &Value) {
        let calling = &config["functionCallingConfig"];
        let allowed: Vec<&str> =
            calling["allowedFunctionNames"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
        let only_mode = calling.as_object().is_some_and(|c| c.keys().all(|k| k == "mode" || k == "allowedFunctionNames"))
            && config.as_object().is_some_and(|c| c.len() == 1);
        let has_functions = body["tools"].as_array().into_iter().flatten().any(|t| t.get("functionDeclarations").is_some());
        let choice = match (calling["mode"].as_str(), allowed.as_slice()) {
            _ if !only_mode || !has_functions => None,
            (Some("AUTO"), []) => Some(ToolChoice::Auto),
            (Some("NONE"), []) => Some(ToolChoice::None),
            (Some("ANY"), []) => Some(ToolChoice::Required),
            (Some("ANY"), [name]) => Some(ToolChoice::Named { tool_name: (*name).to_owned() }),
            _ => None,
        };
        match choice {
            Some(choice) => self.request.tool_choice = Some(choice),
            None => self.pass_through(&["toolConfig"], config),
        }
    }

    fn generation_config(&mut self, config: &Value) -> Result<(), String> {
        let config = config.as_object().ok_or("generationConfig is not an object")?;
        let json_out = config.get("responseMimeType") == Some(&json!("application/json"));
        for (key, value) in config {
            match key.as_str() {
                "temperature" => self.request.temperature = value.as_f64(),
                "topP" => self.request.top_p = value.as_f64(),
                "maxOutputTokens" => self.request.max_tokens = value.as_u64(),
                "stopSequences" => {
                    self.request.stop_sequences =
                        value.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_owned).collect()
                }
                "thinkingConfig" => {
                    let level = value["thinkingLevel"].as_str();
                    let plain = value.as_object().is_some_and(|c| c.len() == 2) && value["includeThoughts"] == json!(true);
                    match level {
                        Some(level) if plain && !self.request.model.starts_with("gemini-2") => {
                            self.request.reasoning_effort = Some(level.to_ascii_lowercase())
                        }
                        _ => self.pass_through(&["generationConfig", "thinkingConfig"], value),
                    }
                }
                "responseMimeType" if json_out => {
                    self.request.response_format = Some(match config.get("responseJsonSchema") {
                        Some(schema) => ResponseFormat::JsonSchema { json_schema: schema.clone(), strict: false },
                        None => ResponseFormat::Json,
                    })
                }
                "responseJsonSchema" if json_out => {}
                other => self.pass_through(&["generationConfig", other], value),
            }
        }
        Ok(())
    }
}

fn mime(value: &Value) -> Option<String> {
    value["mimeType"].as_str().map(str::to_owned)
}

fn media_part(media: MediaData) -> ContentPart {
    match media.media_type.as_deref().unwrap_or_default() {
        t if t.starts_with("image/") => ContentPart::Image { image: media },
        t if t.starts_with("audio/") => ContentPart::Audio { audio: media },
        _ => ContentPart::Document { document: media },
    }
}

/// A captured OpenAPI-style tool schema as the JSON Schema a tool would declare (lower-case types).
fn json_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(fields) => Value::Object(
            fields
                .iter()
                .map(|(k, v)| match (k.as_str(), v) {
                    ("type", Value::String(t)) => (k.clone(), json!(t.to_ascii_lowercase())),
                    // Property names are data, not keywords: convert their schemas, keep the names.
                    ("properties", Value::Object(p)) => {
                        (k.clone(), Value::Object(p.iter().map(|(n, s)| (n.clone(), json_schema(s))).collect()))
                    }
                    _ => (k.clone(), json_schema(v)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(json_schema).collect()),
        other => other.clone(),
    }
}

/// The captured body as our codec should send it: the differences we make on purpose.
fn expected_body(captured: &Value, label: &str, report: &mut Report) -> Value {
    let mut expected = captured.clone();
    let mut gaps = Vec::new();
    if expected.as_object_mut().and_then(|body| body.remove("model")).is_some() {
        gaps.push("the capture's body names the model; the codec puts it in the URL (checked there)");
    }
    if captured.pointer("/generationConfig/candidateCount").is_some() {
        gaps.push("candidateCount passes through, but answers are read from the first candidate (index 0) only");
    }
    if let Some(contents) = expected.get_mut("contents").and_then(Value::as_array_mut) {
        let before = contents.len();
        contents.retain(|c| c.get("parts").and_then(Value::as_array).is_some_and(|p| !p.is_empty()));
        if contents.len() < before {
            gaps.push("a turn with no parts (an empty answer cut off by maxOutputTokens) is left out of contents");
        }
    }
    for content in expected.get_mut("contents").and_then(Value::as_array_mut).into_iter().flatten() {
        for part in content.get_mut("parts").and_then(Value::as_array_mut).into_iter().flatten() {
            let Some(response) = part.pointer_mut("/functionResponse/response") else { continue };
            let textual = response
                .as_object()
                .is_some_and(|r| r.len() == 1 && ["result", "error"].iter().any(|k| r.get(*k).is_some_and(Value::is_string)));
            if !textual {
                *response = json!({ "result": response.to_string() });
                gaps.push(
                    "a structured functionResponse.response is sent as its JSON text under `result` (ToolResult.content is text)",
                );
            }
        }
    }
    for tool in expected.get_mut("tools").and_then(Value::as_array_mut).into_iter().flatten() {
        for declaration in tool.get_mut("functionDeclarations").and_then(Value::as_array_mut).into_iter().flatten() {
            if let Some(parameters) = declaration.get_mut("parameters") {
                if inclusive_bounds(parameters) {
                    gaps.push("exclusiveMinimum/exclusiveMaximum in tool parameters become inclusive minimum/maximum (Gemini rejects them; see this case's error.json)");
                }
            }
        }
    }
    for gap in gaps {
        report.not_handled.entry(gap.to_owned()).or_default().insert(label.to_owned());
    }
    expected
}

/// Replaces exclusive bounds by inclusive ones, as the codec's schema conversion does.
fn inclusive_bounds(schema: &mut Value) -> bool {
    let mut changed = false;
    if let Some(fields) = schema.as_object_mut() {
        for (exclusive, inclusive) in [("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")] {
            if let Some(bound) = fields.remove(exclusive) {
                fields.entry(inclusive).or_insert(bound);
                changed = true;
            }
        }
        for value in fields.values_mut() {
            changed |= inclusive_bounds(value);
        }
    } else if let Some(items) = schema.as_array_mut() {
        for item in items {
            changed |= inclusive_bounds(item);
        }
    }
    changed
}

/// Where two JSON values first differ (numbers compare by value: `0` and `0.0` are the same).
fn difference(got: &Value, want: &Value, path: &str) -> Option<String> {
    match (got, want) {
        (Value::Number(a), Value::Number(b)) if a.as_f64() == b.as_f64() => None,
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            keys.into_iter().find_map(|k| match (a.get(k), b.get(k)) {
                (Some(x), Some(y)) => difference(x, y, &format!("{path}.{k}")),
                (x, y) => Some(format!("{path}.{k}: ours {x:?}, captured {y:?}")),
            })
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            a.iter().zip(b).enumerate().find_map(|(i, (x, y))| difference(x, y, &format!("{path}[{i}]")))
        }
        _ if got == want => None,
        _ => Some(format!("{path}: ours {got}, captured {want}")),
    }
}

fn check_request(captured: &Value, label: &str, report: &mut Report) -> Check {
    let (request, passed_through) = match to_unified(captured)? {
        Unified::Request(request, passed_through) => (request, passed_through),
        Unified::Unsupported(reason) => return Ok(Verdict::Skip(reason)),
    };
    for path in passed_through {
        report.passed_through.entry(path).or_default().insert(label.to_owned());
    }
    let codec = codec();
    let http = codec.build_request(&request, false).map_err(|e| format!("build_request failed: {e}"))?;
    let streamed = codec.build_request(&request, true).map_err(|e| format!("build_request (stream) failed: {e}"))?;
    same("url", http.url.as_str(), format!("{BASE}/v1beta/models/{}:generateContent", request.model).as_str())?;
    same(
        "stream url",
        streamed.url.as_str(),
        format!("{BASE}/v1beta/models/{}:streamGenerateContent?alt=sse", request.model).as_str(),
    )?;
    same("api key header", http.header("x-goog-api-key"), Some(KEY))?;
    same("content type", http.header("content-type"), Some("application/json"))?;
    let body_text = String::from_utf8(http.body.to_vec()).map_err(|e| e.to_string())?;
    if http.url.contains(KEY) || body_text.contains(KEY) || format!("{http:?}").contains(KEY) {
        return Err("the API key appears outside its header".into());
    }
    same("stream body", &streamed.body, &http.body)?;
    let ours: Value = serde_json::from_str(&body_text).map_err(|e| e.to_string())?;
    let expected = expected_body(captured, label, report);
    match difference(&ours, &expected, "body") {
        None => Ok(Verdict::Pass),
        Some(difference) => Err(difference),
    }
}
