//! The Anthropic Messages codec against real captured payloads
//! (`shared/fixtures/provider_payloads/anthropic/<case>/<kind>.json`, see their README).
//!
//! Every expectation is derived from the captured JSON itself:
//! - `response.json`, `followup-response.json`: parsed, they give the captured text, tool calls,
//!   reasoning, usage and finish reason.
//! - `response-streaming.json`, `followup-response-streaming.json`: re-framed as the SSE the API
//!   sends (`event:` named after the type, a `ping` after `message_start`), decoded whole, byte by
//!   byte and in 7-byte chunks, and once through `HttpLlmClient`, they give the same facts as the
//!   events, and agree with the non-streamed capture of the same case where both exist (model,
//!   finish reason, tool names, reasoning; the text differs, they are separate generations).
//! - `error.json`: the kind its status and error type call for.
//! - `request.json`, `followup-request.json`: mapped back to a unified `Request` (below), built
//!   with the codec, and compared with the captured body after the normalisations the codec makes
//!   on purpose (`NORMALISED`). What the unified model does not carry goes through
//!   `provider_options.anthropic` and must come out unchanged.
//!
//! The fixtures are found at `$OPENAGENT_FIXTURES/provider_payloads` (default
//! `../../../shared/fixtures` from this crate); without them the test says so and passes.
#![cfg(not(target_arch = "wasm32"))]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;
use futures::stream;
use openagent_llm::anthropic_messages::AnthropicMessages;
use openagent_llm::http::{HttpClient, HttpError, HttpRequest, HttpResponse};
use openagent_llm::{
    base64, collect_stream, ApiKey, Codec, ContentPart, ErrorKind, HttpLlmClient, LlmClient, MediaData, Message, ProviderConfig,
    Reason, Request, Response, ResponseFormat, Role, StreamAccumulator, StreamEvent, ThinkingData, ToolCall, ToolChoice,
    ToolDefinition, ToolResult,
};
use serde_json::{json, Map, Value};

const KEY: &str = "sk-ant-fixture-test-key";

/// Request captures that need what the unified model deliberately leaves out; listed, not hidden.
const UNSUPPORTED_REQUESTS: &[(&str, &str)] = &[
    ("codeInterpreterToolParam", "Anthropic-defined tool type `bash_20250124` (a typed tool without input_schema)"),
    ("responsesToolSearchInputParam", "server tool `tool_search_tool_regex_20251119`, `defer_loading`, server_tool_use history"),
    ("webSearchToolAdvancedParam", "server tool `web_search_20250305` and its server_tool_use / web_search_tool_result history"),
];

/// Differences between a captured body and ours that the codec makes on purpose.
const NORMALISED: &[&str] = &[
    "string `content`/`system` is sent as a list of text blocks",
    "`role: system` messages inside `messages` are hoisted into `system` (some models refuse them: see anthropicMidConversationSystemMessage/error.json)",
    "consecutive messages of one role are merged into one",
    "`output_format` (beta) is sent as `output_config.format` (GA)",
    "`cache_control` breakpoints are placed by the codec's heuristic, not where the capture had them (checked apart)",
];

#[derive(Default)]
struct Tally {
    passed: usize,
    skipped: usize,
    failed: usize,
}

enum Outcome {
    Pass,
    Skip(String),
}

#[test]
fn anthropic_messages_codec_against_captured_payloads() {
    let root = std::env::var_os("OPENAGENT_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures"));
    let dir = root.join("provider_payloads/anthropic");
    if !dir.is_dir() {
        println!("skipped: fixtures not found at {}", dir.display());
        return;
    }
    let mut cases: Vec<PathBuf> =
        std::fs::read_dir(&dir).expect("fixture directory is readable").map(|e| e.expect("directory entry").path()).collect();
    cases.sort();

    let kinds = [
        "request",
        "followup-request",
        "response",
        "followup-response",
        "response-streaming",
        "followup-response-streaming",
        "error",
    ];
    let mut tally: BTreeMap<&str, Tally> = kinds.iter().map(|k| (*k, Tally::default())).collect();
    let (mut failures, mut skips, mut passthrough) = (Vec::new(), Vec::new(), BTreeMap::<String, Vec<String>>::new());
    let mut text_identical = (0, 0);
    for case_dir in &cases {
        let case = case_dir.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        for kind in kinds {
            let path = case_dir.join(format!("{kind}.json"));
            let Ok(text) = std::fs::read_to_string(&path) else { continue };
            let result =
                serde_json::from_str::<Value>(&text).map_err(|e| format!("fixture is not JSON: {e}")).and_then(|captured| {
                    match kind {
                        "request" | "followup-request" => check_request(&case, &captured, &mut passthrough),
                        "response" | "followup-response" => check_response(&captured),
                        "error" => check_error(&captured),
                        _ => {
                            let whole = kind.strip_suffix("-streaming").map(|k| case_dir.join(format!("{k}.json")));
                            let whole =
                                whole.and_then(|p| std::fs::read_to_string(p).ok()).and_then(|t| serde_json::from_str(&t).ok());
                            check_stream(&captured, whole.as_ref(), &mut text_identical)
                        }
                    }
                });
            let entry = tally.get_mut(kind).expect("every kind is tallied");
            match result {
                Ok(Outcome::Pass) => entry.passed += 1,
                Ok(Outcome::Skip(why)) => {
                    entry.skipped += 1;
                    skips.push(format!("{case}/{kind}: {why}"));
                }
                Err(why) => {
                    entry.failed += 1;
                    failures.push(format!("{case}/{kind}: {why}"));
                }
            }
        }
    }

    println!("\nAnthropic Messages codec vs captured payloads ({} cases)\n", cases.len());
    println!("{:<30} {:>6} {:>7} {:>6}", "fixture kind", "passed", "skipped", "failed");
    for (kind, t) in &tally {
        println!("{kind:<30} {:>6} {:>7} {:>6}", t.passed, t.skipped, t.failed);
    }
    println!("\nskipped (not handled, by design):");
    skips.iter().for_each(|s| println!("  - {s}"));
    println!("\nnot carried by the unified model, passed through provider_options.anthropic and checked unchanged:");
    passthrough.iter().for_each(|(key, cases)| println!("  - {key}: {}", cases.join(", ")));
    println!("\nnormalised on purpose when comparing request bodies:");
    NORMALISED.iter().for_each(|n| println!("  - {n}"));
    println!(
        "\nstreamed and whole captures with identical text: {} of {} (separate generations)",
        text_identical.0, text_identical.1
    );
    assert!(failures.is_empty(), "{} mismatches:\n{}", failures.len(), failures.join("\n"));
    let expected_skips = UNSUPPORTED_REQUESTS.iter().filter(|(case, _)| skips.iter().any(|s| s.starts_with(&format!("{case}/"))));
    assert_eq!(expected_skips.count(), UNSUPPORTED_REQUESTS.len(), "a listed unsupported case was not met: {skips:?}");
}

// ----------------------------------------------------------------------------------------------
// Responses
// ----------------------------------------------------------------------------------------------

/// What a response says, as the tests compare it.
#[derive(Debug, PartialEq)]
struct Facts {
    id: String,
    model: String,
    text: String,
    /// id, name, arguments, and the argument text when it is known exactly (streams).
    tool_calls: Vec<(String, String, Value, Option<String>)>,
    /// Each thinking block: text and signature.
    thinking: Vec<(String, Option<String>)>,
    redacted: Vec<String>,
    finish: (Reason, Option<String>),
    usage: [Option<u64>; 6],
    raw_usage: Value,
}

fn codec() -> AnthropicMessages {
    AnthropicMessages::new(ProviderConfig {
        api_key: ApiKey::new(KEY),
        base_url: "https://api.anthropic.com".into(),
        ..Default::default()
    })
}

fn check_response(body: &Value) -> Result<Outcome, String> {
    let response = codec().parse_response(body.to_string().as_bytes(), &[]).map_err(|e| format!("parse failed: {e}"))?;
    let blocks = body["content"].as_array().ok_or("capture has no content")?;
    let text = blocks.iter().filter(|b| b["type"] == "text").filter_map(|b| b["text"].as_str()).collect::<String>();
    let tool_calls = blocks
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| (str_of(&b["id"]), str_of(&b["name"]), b["input"].clone(), Some(b["input"].to_string())))
        .collect();
    let thinking: Vec<_> = blocks.iter().filter(|b| b["type"] == "thinking").map(thinking_of).collect();
    let redacted = blocks.iter().filter(|b| b["type"] == "redacted_thinking").map(|b| str_of(&b["data"])).collect();
    let thinking_chars = (!thinking.is_empty()).then(|| thinking.iter().map(|(t, _)| t.chars().count()).sum());
    let expected = Facts {
        id: str_of(&body["id"]),
        model: str_of(&body["model"]),
        text,
        tool_calls,
        thinking,
        redacted,
        finish: expected_finish(body["stop_reason"].as_str()),
        usage: expected_usage(&body["usage"], thinking_chars),
        raw_usage: body["usage"].clone(),
    };
    same("parsed response", &facts_of(&response), &expected)?;
    let builtin = blocks
        .iter()
        .filter(|b| !["text", "tool_use", "thinking", "redacted_thinking"].contains(&b["type"].as_str().unwrap_or("")))
        .count();
    if response.warnings.len() != builtin {
        return Err(format!("{} server-tool blocks but {} warnings", builtin, response.warnings.len()));
    }
    if response.raw.as_ref() != Some(body) {
        return Err("Response.raw is not the provider body".into());
    }
    Ok(Outcome::Pass)
}

fn check_stream(events: &Value, whole: Option<&Value>, text_identical: &mut (usize, usize)) -> Result<Outcome, String> {
    let events = events.as_array().ok_or("capture is not a list of events")?;
    let body = sse_body(events);
    let decoded: Vec<Vec<StreamEvent>> =
        [body.len(), 1, 7].iter().map(|&piece| decode(&body, piece)).collect::<Result<_, _>>()?;
    if decoded.iter().any(|d| d != &decoded[0]) {
        return Err("the chunkings decode to different events".into());
    }
    let out = &decoded[0];
    let finishes = out.iter().filter(|e| matches!(e, StreamEvent::Finish { .. })).count();
    if finishes != 1 || !matches!(out.last(), Some(StreamEvent::Finish { .. })) {
        return Err(format!("{finishes} Finish events, or Finish is not last"));
    }
    let mut acc = StreamAccumulator::new();
    out.iter().for_each(|e| acc.push(e.clone()));
    let response = acc.finish("anthropic").map_err(|e| format!("accumulated stream failed: {e}"))?;
    let expected = stream_facts(events);
    same("streamed response", &facts_of(&response), &expected)?;

    // The same bytes through the client, as a host would run them.
    let client = HttpLlmClient::new(codec(), Rc::new(FakeHttp { status: 200, body: body.clone(), chunk: 7 }));
    let request = Request { model: expected.model.clone(), messages: vec![Message::user("hi")], ..Request::default() };
    let stream = block_on(client.stream(&request)).map_err(|e| format!("client stream failed: {e}"))?;
    let via_client = block_on(collect_stream("anthropic", stream)).map_err(|e| format!("client stream failed: {e}"))?;
    same("streamed through HttpLlmClient", &facts_of(&via_client), &expected)?;

    if let Some(whole) = whole {
        let parsed = codec().parse_response(whole.to_string().as_bytes(), &[]).map_err(|e| format!("parse failed: {e}"))?;
        let agree = |r: &Response| {
            let names: Vec<String> = r.tool_calls().into_iter().map(|c| c.name).collect();
            (r.model.clone(), r.finish_reason.clone(), names, r.reasoning().is_some())
        };
        same("streamed vs whole capture", &agree(&response), &agree(&parsed))?;
        text_identical.1 += 1;
        text_identical.0 += usize::from(response.text() == parsed.text());
    }
    Ok(Outcome::Pass)
}

/// The facts the raw events state, read without the codec.
fn stream_facts(events: &[Value]) -> Facts {
    let start = events.iter().find(|e| e["type"] == "message_start").map(|e| &e["message"]).unwrap_or(&Value::Null);
    let mut usage = start["usage"].as_object().cloned().unwrap_or_default();
    let mut blocks: BTreeMap<u64, (Value, String, String)> = BTreeMap::new(); // start, text, signature
    let mut order = Vec::new();
    let mut stop_reason = None;
    for e in events {
        let index = e["index"].as_u64().unwrap_or(u64::MAX);
        match e["type"].as_str().unwrap_or("") {
            "content_block_start" => {
                let b = &e["content_block"];
                let initial = b["text"].as_str().or(b["thinking"].as_str()).unwrap_or("").to_owned();
                blocks.insert(index, (b.clone(), initial, str_of(&b["signature"])));
                order.push(index);
            }
            "content_block_delta" => {
                if let Some((_, text, signature)) = blocks.get_mut(&index) {
                    let d = &e["delta"];
                    text.push_str(d["text"].as_str().or(d["thinking"].as_str()).or(d["partial_json"].as_str()).unwrap_or(""));
                    signature.push_str(d["signature"].as_str().unwrap_or(""));
                }
            }
            "message_delta" => {
                stop_reason = e["delta"]["stop_reason"].as_str().map(str::to_owned).or(stop_reason);
                usage.extend(e["usage"].as_object().cloned().unwrap_or_default());
            }
            _ => {}
        }
    }
    let of_type = |t: &'static str| order.iter().filter_map(|i| blocks.get(i)).filter(move |(b, _, _)| b["type"] == t);
    let thinking: Vec<_> = of_type("thinking").map(|(_, t, s)| (t.clone(), Some(s.clone()).filter(|s| !s.is_empty()))).collect();
    let thinking_chars = (!thinking.is_empty()).then(|| thinking.iter().map(|(t, _)| t.chars().count()).sum());
    let usage = Value::Object(usage);
    Facts {
        id: str_of(&start["id"]),
        model: str_of(&start["model"]),
        text: of_type("text").map(|(_, t, _)| t.as_str()).collect(),
        tool_calls: of_type("tool_use")
            .map(|(b, json, _)| {
                let args = if json.trim().is_empty() { json!({}) } else { serde_json::from_str(json).unwrap_or(Value::Null) };
                (str_of(&b["id"]), str_of(&b["name"]), args, Some(json.clone()))
            })
            .collect(),
        thinking,
        redacted: of_type("redacted_thinking").map(|(b, _, _)| str_of(&b["data"])).collect(),
        finish: expected_finish(stop_reason.as_deref()),
        usage: expected_usage(&usage, thinking_chars),
        raw_usage: usage,
    }
}

fn facts_of(r: &Response) -> Facts {
    let parts = &r.message.content;
    let u = &r.usage;
    Facts {
        id: r.id.clone(),
        model: r.model.clone(),
        text: r.text(),
        tool_calls: r.tool_calls().into_iter().map(|c| (c.id, c.name, c.arguments, c.raw_arguments)).collect(),
        thinking: parts
            .iter()
            .filter_map(|p| match p {
                ContentPart::Thinking { thinking } => Some((thinking.text.clone(), thinking.signature.clone())),
                _ => None,
            })
            .collect(),
        redacted: parts
            .iter()
            .filter_map(|p| match p {
                ContentPart::RedactedThinking { thinking } => Some(thinking.text.clone()),
                _ => None,
            })
            .collect(),
        finish: (r.finish_reason.reason, r.finish_reason.raw.clone()),
        usage: [
            Some(u.input_tokens),
            Some(u.output_tokens),
            Some(u.total_tokens),
            u.reasoning_tokens,
            u.cache_read_tokens,
            u.cache_write_tokens,
        ],
        raw_usage: u.raw.clone().unwrap_or(Value::Null),
    }
}

/// Spec 3.9 as the codec documents it: input is the whole prompt (uncached + cache read + cache
/// write); reasoning is reported `thinking_tokens`, else a quarter of the thinking characters.
fn expected_usage(usage: &Value, thinking_chars: Option<usize>) -> [Option<u64>; 6] {
    let n = |k: &str| usage[k].as_u64();
    let input = n("input_tokens").unwrap_or(0)
        + n("cache_read_input_tokens").unwrap_or(0)
        + n("cache_creation_input_tokens").unwrap_or(0);
    let output = n("output_tokens").unwrap_or(0);
    let reasoning = usage["output_tokens_details"]["thinking_tokens"].as_u64().or(thinking_chars.map(|c| c.div_ceil(4) as u64));
    [Some(input), Some(output), Some(input + output), reasoning, n("cache_read_input_tokens"), n("cache_creation_input_tokens")]
}

/// Spec 3.8's table for Anthropic, plus `refusal` and `pause_turn`.
fn expected_finish(stop_reason: Option<&str>) -> (Reason, Option<String>) {
    let reason = match stop_reason {
        Some("end_turn" | "stop_sequence") => Reason::Stop,
        Some("max_tokens") => Reason::Length,
        Some("tool_use") => Reason::ToolCalls,
        Some("refusal") => Reason::ContentFilter,
        _ => Reason::Other,
    };
    (reason, stop_reason.map(str::to_owned))
}

fn thinking_of(block: &Value) -> (String, Option<String>) {
    (str_of(&block["thinking"]), block["signature"].as_str().filter(|s| !s.is_empty()).map(str::to_owned))
}

/// The SSE bytes the API sends for these events.
fn sse_body(events: &[Value]) -> Vec<u8> {
    let mut body = String::new();
    for event in events {
        body.push_str(&format!("event: {}\ndata: {}\n\n", event["type"].as_str().unwrap_or(""), event));
        if event["type"] == "message_start" {
            body.push_str("event: ping\ndata: {\"type\": \"ping\"}\n\n");
        }
    }
    body.into_bytes()
}

fn decode(body: &[u8], piece: usize) -> Result<Vec<StreamEvent>, String> {
    let mut decoder = codec().stream_decoder();
    let mut out = Vec::new();
    for chunk in body.chunks(piece) {
        decoder.feed(chunk, &mut out).map_err(|e| format!("decoding in {piece}-byte chunks: {e}"))?;
    }
    decoder.end(&mut out).map_err(|e| format!("ending the stream: {e}"))?;
    Ok(out)
}

// ----------------------------------------------------------------------------------------------
// Errors
// ----------------------------------------------------------------------------------------------

/// `error.json` is `{"error": "Error: <status> <body>"}`.
fn check_error(captured: &Value) -> Result<Outcome, String> {
    let text = captured["error"].as_str().ok_or("no error text")?;
    let rest = text.strip_prefix("Error: ").ok_or("unexpected error text")?;
    let (status, body) = rest.split_once(' ').ok_or("no status")?;
    let status: u16 = status.parse().map_err(|_| format!("bad status {status}"))?;
    let wire: Value = serde_json::from_str(body).map_err(|e| format!("error body is not JSON: {e}"))?;
    let error = codec().parse_error(status, &[], body.as_bytes());
    let expected_kind = match wire["error"]["type"].as_str() {
        Some("invalid_request_error") => ErrorKind::InvalidRequest,
        Some("authentication_error") => ErrorKind::Authentication,
        Some("permission_error") => ErrorKind::AccessDenied,
        Some("not_found_error") => ErrorKind::NotFound,
        Some("rate_limit_error") => ErrorKind::RateLimit,
        _ => ErrorKind::Server,
    };
    let got = (error.kind, error.status_code, error.error_code.clone(), error.message.clone(), error.retryable);
    let want = (
        expected_kind,
        Some(status),
        wire["error"]["type"].as_str().map(str::to_owned),
        str_of(&wire["error"]["message"]),
        expected_kind.default_retryable(),
    );
    same("error", &got, &want)?;
    // And as a host meets it: through the client, which must not retry or lose the details.
    let client = HttpLlmClient::new(codec(), Rc::new(FakeHttp { status, body: body.as_bytes().to_vec(), chunk: 5 }));
    let request = Request { model: "m".into(), messages: vec![Message::user("hi")], ..Request::default() };
    let via_client = block_on(client.complete(&request)).err().ok_or("the client accepted an error answer")?;
    same("error through HttpLlmClient", &via_client, &error)?;
    Ok(Outcome::Pass)
}

// ----------------------------------------------------------------------------------------------
// Requests
// ----------------------------------------------------------------------------------------------

fn check_request(case: &str, captured: &Value, passthrough: &mut BTreeMap<String, Vec<String>>) -> Result<Outcome, String> {
    let (request, carried_by_options) = match unify(captured) {
        Ok(unified) => unified,
        Err(why) => {
            return match UNSUPPORTED_REQUESTS.iter().find(|(c, _)| *c == case) {
                Some((_, reason)) => Ok(Outcome::Skip(format!("{reason} [{why}]"))),
                None => Err(format!("cannot map to the unified model: {why}")),
            };
        }
    };
    if UNSUPPORTED_REQUESTS.iter().any(|(c, _)| *c == case) {
        return Err("listed as unsupported but maps to the unified model".into());
    }
    for key in carried_by_options {
        let cases = passthrough.entry(key).or_default();
        if cases.last().map(String::as_str) != Some(case) {
            cases.push(case.to_owned());
        }
    }
    let stream = captured["stream"] == json!(true);
    let http = codec().build_request(&request, stream).map_err(|e| format!("build failed: {e}"))?;
    if http.url != "https://api.anthropic.com/v1/messages" || http.header("x-api-key") != Some(KEY) {
        return Err(format!("wrong url or key header: {http:?}"));
    }
    if http.header("anthropic-version") != Some("2023-06-01") || String::from_utf8_lossy(&http.body.to_vec()).contains(KEY) {
        return Err("missing version header, or the key is in the body".into());
    }
    let mut ours: Value = serde_json::from_slice(&http.body.to_vec()).map_err(|e| format!("our body is not JSON: {e}"))?;
    check_breakpoints(&ours, &request)?;
    strip_cache_control(&mut ours);
    let mut expected = normalise(captured);
    strip_cache_control(&mut expected);
    if let Some(path) = first_difference(&ours, &expected, String::new()) {
        return Err(format!("bodies differ at {path}:\n  ours     {}\n  captured {}", at(&ours, &path), at(&expected, &path)));
    }
    Ok(Outcome::Pass)
}

/// A captured body as a unified `Request`, and the provider-only keys that had to travel in
/// `provider_options.anthropic`. `Err` names what the unified model does not carry.
fn unify(captured: &Value) -> Result<(Request, Vec<String>), String> {
    let body = captured.as_object().ok_or("body is not an object")?;
    let mut request = Request { model: str_of(&body["model"]), ..Request::default() };
    let mut options = Map::new();
    for (key, value) in body {
        match key.as_str() {
            "model" | "stream" => {}
            "max_tokens" => request.max_tokens = value.as_u64(),
            "temperature" => request.temperature = value.as_f64(),
            "top_p" => request.top_p = value.as_f64(),
            "stop_sequences" => request.stop_sequences = value.as_array().into_iter().flatten().map(str_of).collect(),
            "system" => request.messages.insert(0, Message::new(Role::System, text_parts(value)?)),
            "messages" => {
                for message in value.as_array().ok_or("messages is not a list")? {
                    request.messages.extend(unify_message(message)?);
                }
            }
            "tools" => {
                request.tools = value.as_array().ok_or("tools is not a list")?.iter().map(unify_tool).collect::<Result<_, _>>()?
            }
            "tool_choice" => {
                let mut extra = value.as_object().cloned().ok_or("tool_choice is not an object")?;
                request.tool_choice = Some(match extra.remove("type").as_ref().and_then(Value::as_str) {
                    Some("auto") => ToolChoice::Auto,
                    Some("any") => ToolChoice::Required,
                    Some("none") => ToolChoice::None,
                    Some("tool") => {
                        ToolChoice::Named { tool_name: extra.remove("name").as_ref().map(str_of).unwrap_or_default() }
                    }
                    other => return Err(format!("tool_choice type {other:?}")),
                });
                if !extra.is_empty() {
                    options.insert("tool_choice".into(), Value::Object(extra));
                }
            }
            "metadata" => {
                for (k, v) in value.as_object().ok_or("metadata is not an object")? {
                    request.metadata.insert(k.clone(), str_of(v));
                }
            }
            "output_format" => request.response_format = Some(response_format(value)?),
            "output_config" => {
                let mut rest = value.as_object().cloned().ok_or("output_config is not an object")?;
                if let Some(format) = rest.remove("format") {
                    request.response_format = Some(response_format(&format)?);
                }
                if !rest.is_empty() {
                    options.insert("output_config".into(), Value::Object(rest));
                }
            }
            // `thinking`, `top_k`, `service_tier`, ...: provider-only, by design.
            _ => {
                options.insert(key.clone(), value.clone());
            }
        }
    }
    let mut carried: Vec<String> = options
        .iter()
        .flat_map(|(k, v)| match v {
            Value::Object(inner) if k != "thinking" => inner.keys().map(|i| format!("{k}.{i}")).collect(),
            _ => vec![k.clone()],
        })
        .collect();
    // A TTL on the captured breakpoints travels as the codec's cache marker.
    if let Some(marker) = find_cache_control(captured).filter(|m| m.get("ttl").is_some()) {
        carried.push(format!("cache_control ttl {}", marker["ttl"]));
        options.insert("cache_control".into(), marker);
    }
    if !options.is_empty() {
        request.provider_options = Some(json!({ "anthropic": options }));
    }
    Ok((request, carried))
}

fn unify_message(message: &Value) -> Result<Vec<Message>, String> {
    let role = message["role"].as_str().ok_or("message without role")?;
    let blocks = match &message["content"] {
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        Value::Array(blocks) => blocks.clone(),
        other => return Err(format!("content {other}")),
    };
    let role = match role {
        "system" => return Ok(vec![Message::new(Role::System, text_parts(&Value::Array(blocks))?)]),
        "user" => Role::User,
        "assistant" => Role::Assistant,
        other => return Err(format!("role {other}")),
    };
    let mut out = Vec::new();
    let mut parts = Vec::new();
    for block in &blocks {
        let part = match block["type"].as_str().unwrap_or("") {
            "text" => ContentPart::text(str_of(&block["text"])),
            "image" => ContentPart::Image { image: media(&block["source"])? },
            "document" => {
                let mut document = media(&block["source"])?;
                document.file_name = block["title"].as_str().map(str::to_owned);
                ContentPart::Document { document }
            }
            "tool_use" => ContentPart::ToolCall {
                tool_call: ToolCall::new(str_of(&block["id"]), str_of(&block["name"]), block["input"].clone()),
            },
            "thinking" => {
                let (text, signature) = thinking_of(block);
                ContentPart::Thinking { thinking: ThinkingData { text, signature, ..ThinkingData::default() } }
            }
            "redacted_thinking" => ContentPart::RedactedThinking {
                thinking: ThinkingData { text: str_of(&block["data"]), redacted: true, ..ThinkingData::default() },
            },
            "tool_result" => {
                let content = block["content"].as_str().ok_or("tool_result content that is not a string")?;
                let result = ToolResult::new(str_of(&block["tool_use_id"]), content, block["is_error"] == json!(true));
                out.push(Message::tool_result(result));
                continue;
            }
            other => return Err(format!("content block `{other}`")),
        };
        parts.push(part);
    }
    if !parts.is_empty() {
        out.push(Message::new(role, parts));
    }
    Ok(out)
}

fn media(source: &Value) -> Result<MediaData, String> {
    let media_type = source["media_type"].as_str().map(str::to_owned);
    match source["type"].as_str() {
        Some("base64") => {
            Ok(MediaData { data: Some(base64::decode(&str_of(&source["data"]))?), media_type, ..MediaData::default() })
        }
        Some("text") => Ok(MediaData { data: Some(str_of(&source["data"]).into_bytes()), media_type, ..MediaData::default() }),
        Some("url") => Ok(MediaData { url: Some(str_of(&source["url"])), ..MediaData::default() }),
        other => Err(format!("media source {other:?}")),
    }
}

fn unify_tool(tool: &Value) -> Result<ToolDefinition, String> {
    let fields = tool.as_object().ok_or("tool is not an object")?;
    if let Some(extra) = fields.keys().find(|k| !["name", "description", "input_schema", "cache_control"].contains(&k.as_str())) {
        return Err(format!("tool field `{extra}` ({})", tool.get("type").unwrap_or(&Value::Null)));
    }
    Ok(ToolDefinition {
        name: str_of(&tool["name"]),
        description: str_of(&tool["description"]),
        parameters: tool["input_schema"].clone(),
    })
}

fn response_format(format: &Value) -> Result<ResponseFormat, String> {
    match format["type"].as_str() {
        Some("json_schema") => Ok(ResponseFormat::JsonSchema { json_schema: format["schema"].clone(), strict: false }),
        other => Err(format!("output format {other:?}")),
    }
}

fn text_parts(value: &Value) -> Result<Vec<ContentPart>, String> {
    match value {
        Value::String(text) => Ok(vec![ContentPart::text(text.clone())]),
        Value::Array(blocks) => blocks
            .iter()
            .map(|b| {
                if b["type"] == "text" {
                    Ok(ContentPart::text(str_of(&b["text"])))
                } else {
                    Err(format!("system block {}", b["type"]))
                }
            })
            .collect(),
        other => Err(format!("system {other}")),
    }
}

/// The captured body in the shape the codec sends on purpose (`NORMALISED`).
fn normalise(captured: &Value) -> Value {
    let mut body = captured.as_object().cloned().unwrap_or_default();
    let as_blocks = |content: &Value| match content {
        Value::String(text) => vec![json!({"type": "text", "text": text})],
        Value::Array(blocks) => blocks.clone(),
        _ => Vec::new(),
    };
    let mut system = body.get("system").map(as_blocks).unwrap_or_default();
    let mut messages: Vec<Value> = Vec::new();
    for message in body.get("messages").and_then(Value::as_array).into_iter().flatten() {
        let blocks = as_blocks(&message["content"]);
        match message["role"].as_str() {
            Some("system") => system.extend(blocks),
            role => match messages.last_mut().filter(|m| m["role"].as_str() == role) {
                Some(last) => last["content"].as_array_mut().into_iter().for_each(|c| c.extend(blocks.clone())),
                None => messages.push(json!({"role": role, "content": blocks})),
            },
        }
    }
    body.insert("messages".into(), Value::Array(messages));
    if !system.is_empty() {
        body.insert("system".into(), Value::Array(system));
    }
    if let Some(format) = body.remove("output_format") {
        let config = body.entry("output_config").or_insert_with(|| json!({}));
        if let Some(config) = config.as_object_mut() {
            config.insert("format".into(), format);
        }
    }
    Value::Object(body)
}

/// Our automatic breakpoints: at most four, on the last system block, the last tool and the last
/// block of the last user message, with the marker the request asked for.
fn check_breakpoints(ours: &Value, request: &Request) -> Result<(), String> {
    let marker = request
        .provider_options
        .as_ref()
        .and_then(|o| o["anthropic"].get("cache_control").cloned())
        .unwrap_or_else(|| json!({"type": "ephemeral"}));
    let mut count = 0;
    count_cache_control(ours, &mut count);
    if count > 4 {
        return Err(format!("{count} cache breakpoints; the API allows 4"));
    }
    let last_of = |key: &str| ours[key].as_array().and_then(|a| a.last()).cloned();
    let last_user = ours["messages"].as_array().and_then(|m| m.iter().rev().find(|m| m["role"] == "user"));
    let expected = [last_of("system"), last_of("tools"), last_user.and_then(|m| m["content"].as_array()?.last().cloned())];
    for block in expected.into_iter().flatten() {
        if block.get("cache_control") != Some(&marker) {
            return Err(format!("no {marker} breakpoint on {block}"));
        }
    }
    Ok(())
}

fn count_cache_control(value: &Value, count: &mut usize) {
    match value {
        Value::Object(map) => {
            *count += usize::from(map.contains_key("cache_control"));
            map.iter().filter(|(k, _)| *k != "input_schema").for_each(|(_, v)| count_cache_control(v, count));
        }
        Value::Array(items) => items.iter().for_each(|v| count_cache_control(v, count)),
        _ => {}
    }
}

fn find_cache_control(value: &Value) -> Option<Value> {
    match value {
        Value::Object(map) => map.get("cache_control").cloned().or_else(|| map.values().find_map(find_cache_control)),
        Value::Array(items) => items.iter().find_map(find_cache_control),
        _ => None,
    }
}

fn strip_cache_control(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("cache_control");
            map.values_mut().for_each(strip_cache_control);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_cache_control),
        _ => {}
    }
}

// ----------------------------------------------------------------------------------------------
// Helpers
// ----------------------------------------------------------------------------------------------

/// The first JSON pointer where two values differ.
fn first_difference(a: &Value, b: &Value, path: String) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                first_difference(
                    &x.get(k).cloned().unwrap_or(Value::Null),
                    &y.get(k).cloned().unwrap_or(Value::Null),
                    format!("{path}/{k}"),
                )
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            x.iter().zip(y).enumerate().find_map(|(i, (p, q))| first_difference(p, q, format!("{path}/{i}")))
        }
        (Value::Number(x), Value::Number(y)) if x.as_f64() == y.as_f64() => None,
        _ => (a != b).then_some(path),
    }
}

fn at(value: &Value, path: &str) -> String {
    let shown = value.pointer(path).map(Value::to_string).unwrap_or_else(|| "(absent)".into());
    shown.chars().take(300).collect()
}

fn same<T: PartialEq + std::fmt::Debug>(what: &str, got: &T, want: &T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        let show = |v: &T| format!("{v:?}").chars().take(1500).collect::<String>();
        Err(format!("{what} differs:\n  got  {}\n  want {}", show(got), show(want)))
    }
}

fn str_of(value: &Value) -> String {
    value.as_str().unwrap_or_default().to_owned()
}

/// An `HttpClient` that answers every request with one body, in chunks.
struct FakeHttp {
    status: u16,
    body: Vec<u8>,
    chunk: usize,
}

#[async_trait(?Send)]
impl HttpClient for FakeHttp {
    async fn send(&self, _request: HttpRequest) -> Result<HttpResponse, HttpError> {
        let chunks: Vec<Result<Vec<u8>, HttpError>> = self.body.chunks(self.chunk).map(|c| Ok(c.to_vec())).collect();
        Ok(HttpResponse { status: self.status, headers: Vec::new(), body: Box::pin(stream::iter(chunks)) })
    }
}
