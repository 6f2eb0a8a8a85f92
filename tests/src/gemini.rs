//! Gemini (`POST /v1beta/models/{model}:generateContent` and `:streamGenerateContent`): a
//! `GenerateContentResponse` with one candidate whose parts hold `thought` text, text and
//! `functionCall`s (the first call carrying a `thoughtSignature` the client must echo back), or a
//! stream of such responses, each with a slice of the parts; errors as `{"error": {"code", "message", "status"}}`.

use serde_json::{json, Value};

use crate::ids::Ids;
use crate::script::Reply;
use crate::wire::{words, Call};

/// The non-streamed answer.
pub fn response(reply: &Reply, call: &Call, ids: &mut Ids) -> Value {
    let response_id = ids.base62(22);
    let mut parts: Vec<Value> = reply.reasoning.iter().map(|r| json!({"text": r, "thought": true})).collect();
    parts.extend(reply.text.iter().map(|t| json!({"text": t})));
    parts.extend(function_calls(reply, ids));
    chunk(parts, true, reply, call, &response_id)
}

/// The streamed answer: thought and text a word per chunk, the function calls together in one
/// chunk, and the finish reason and full usage on the last.
pub fn chunks(reply: &Reply, call: &Call, ids: &mut Ids) -> Vec<Value> {
    let response_id = ids.base62(22);
    let mut parts: Vec<Vec<Value>> = Vec::new();
    parts.extend(reply.reasoning.iter().flat_map(|r| words(r)).map(|w| vec![json!({"text": w, "thought": true})]));
    parts.extend(reply.text.iter().flat_map(|t| words(t)).map(|w| vec![json!({"text": w})]));
    let calls = function_calls(reply, ids);
    if !calls.is_empty() || parts.is_empty() {
        parts.push(calls);
    }
    let last = parts.len() - 1;
    parts.into_iter().enumerate().map(|(i, parts)| chunk(parts, i == last, reply, call, &response_id)).collect()
}

/// The error body for `status`, with the gRPC status name Google pairs with it.
pub fn error(status: u16, message: &str) -> Value {
    let name = match status {
        400 | 422 => "INVALID_ARGUMENT",
        401 => "UNAUTHENTICATED",
        403 => "PERMISSION_DENIED",
        404 => "NOT_FOUND",
        408 | 504 => "DEADLINE_EXCEEDED",
        429 => "RESOURCE_EXHAUSTED",
        503 => "UNAVAILABLE",
        400..=499 => "FAILED_PRECONDITION",
        _ => "INTERNAL",
    };
    json!({"error": {"code": status, "message": message, "status": name}})
}

fn function_calls(reply: &Reply, ids: &mut Ids) -> Vec<Value> {
    let mut calls: Vec<Value> =
        reply.tool_calls.iter().map(|c| json!({"functionCall": {"name": c.name, "args": c.arguments}})).collect();
    if let Some(first) = calls.first_mut() {
        first["thoughtSignature"] = ids.base64(128).into();
    }
    calls
}

/// One `GenerateContentResponse`. Every chunk reports usage, as Gemini does; the final one the
/// full counts (`candidatesTokenCount` excludes thoughts, which `thoughtsTokenCount` counts).
fn chunk(parts: Vec<Value>, last: bool, reply: &Reply, call: &Call, response_id: &str) -> Value {
    let u = reply.usage;
    let mut candidate = json!({"content": {"parts": parts, "role": "model"}, "index": 0});
    let mut usage = json!({"promptTokenCount": u.input_tokens, "totalTokenCount": u.input_tokens});
    if last {
        candidate["finishReason"] = if reply.cut_off { "MAX_TOKENS" } else { "STOP" }.into();
        usage["candidatesTokenCount"] = (u.output_tokens - u.reasoning_tokens.min(u.output_tokens)).into();
        usage["totalTokenCount"] = (u.input_tokens + u.output_tokens).into();
        if u.reasoning_tokens > 0 {
            usage["thoughtsTokenCount"] = u.reasoning_tokens.into();
        }
        if u.cache_read_tokens > 0 {
            usage["cachedContentTokenCount"] = u.cache_read_tokens.into();
        }
    }
    json!({"candidates": [candidate], "usageMetadata": usage, "modelVersion": call.model, "responseId": response_id})
}
