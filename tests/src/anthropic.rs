//! Anthropic Messages (`POST /v1/messages`): a `message` object with content blocks, or its SSE
//! stream (message_start, ping, content_block_start/delta/stop per block, message_delta,
//! message_stop); errors as `{"type": "error", "error": {"type", "message"}}`.

use serde_json::{json, Value};

use crate::ids::Ids;
use crate::script::Reply;
use crate::wire::{thirds, words, Call};

/// The non-streamed answer.
pub fn message(reply: &Reply, call: &Call, ids: &mut Ids) -> Value {
    let blocks = blocks(reply, ids);
    let content: Vec<Value> = blocks
        .iter()
        .map(|block| match block {
            Block::Thinking { text, signature } => json!({"type": "thinking", "thinking": text, "signature": signature}),
            Block::Text(text) => json!({"type": "text", "text": text}),
            Block::ToolUse { id, name, input } => json!({"type": "tool_use", "id": id, "name": name, "input": input}),
        })
        .collect();
    let mut message = envelope(reply, call, ids);
    message["content"] = Value::Array(content);
    message["stop_reason"] = stop_reason(reply).into();
    message["usage"]["output_tokens"] = reply.usage.output_tokens.into();
    message
}

/// The streamed answer, one event per element (each carries its `type`, the SSE event name).
pub fn events(reply: &Reply, call: &Call, ids: &mut Ids) -> Vec<Value> {
    let mut start = envelope(reply, call, ids);
    start["usage"]["output_tokens"] = 1.into();
    let mut events = vec![json!({"type": "message_start", "message": start}), json!({"type": "ping"})];
    for (index, block) in blocks(reply, ids).into_iter().enumerate() {
        let (opening, deltas) = match block {
            Block::Thinking { text, signature } => (
                json!({"type": "thinking", "thinking": "", "signature": ""}),
                words(&text)
                    .map(|w| json!({"type": "thinking_delta", "thinking": w}))
                    .chain([json!({"type": "signature_delta", "signature": signature})])
                    .collect::<Vec<_>>(),
            ),
            Block::Text(text) => {
                (json!({"type": "text", "text": ""}), words(&text).map(|w| json!({"type": "text_delta", "text": w})).collect())
            }
            Block::ToolUse { id, name, input } => (
                json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                thirds(&input.to_string()).into_iter().map(|p| json!({"type": "input_json_delta", "partial_json": p})).collect(),
            ),
        };
        events.push(json!({"type": "content_block_start", "index": index, "content_block": opening}));
        events.extend(deltas.into_iter().map(|delta| json!({"type": "content_block_delta", "index": index, "delta": delta})));
        events.push(json!({"type": "content_block_stop", "index": index}));
    }
    events.push(json!({
        "type": "message_delta",
        "delta": {"stop_reason": stop_reason(reply), "stop_sequence": null},
        "usage": {"output_tokens": reply.usage.output_tokens},
    }));
    events.push(json!({"type": "message_stop"}));
    events
}

/// The error body for `status`.
pub fn error(status: u16, message: &str, ids: &mut Ids) -> Value {
    let kind = match status {
        400 | 422 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        503 | 529 => "overloaded_error",
        _ => "api_error",
    };
    json!({"type": "error", "error": {"type": kind, "message": message}, "request_id": request_id(ids)})
}

/// The `request-id` response header.
pub fn request_id(ids: &mut Ids) -> String {
    format!("req_011C{}", ids.base62(20))
}

enum Block {
    Thinking { text: String, signature: String },
    Text(String),
    ToolUse { id: String, name: String, input: Value },
}

/// Thinking first, then text, then tool calls: the order Claude produces them in.
fn blocks(reply: &Reply, ids: &mut Ids) -> Vec<Block> {
    let thinking = reply.reasoning.iter().map(|text| Block::Thinking { text: text.clone(), signature: ids.base64(96) });
    let mut blocks: Vec<Block> = thinking.collect();
    blocks.extend(reply.text.iter().map(|text| Block::Text(text.clone())));
    for call in &reply.tool_calls {
        let id = call.id.clone().unwrap_or_else(|| format!("toolu_01{}", ids.base62(22)));
        blocks.push(Block::ToolUse { id, name: call.name.clone(), input: call.arguments.clone() });
    }
    blocks
}

fn envelope(reply: &Reply, call: &Call, ids: &mut Ids) -> Value {
    json!({
        "id": format!("msg_01{}", ids.base62(22)),
        "type": "message",
        "role": "assistant",
        "model": call.model,
        "content": [],
        "stop_reason": null,
        "stop_sequence": null,
        "usage": {
            "input_tokens": reply.usage.input_tokens,
            "cache_creation_input_tokens": 0,
            "cache_read_input_tokens": reply.usage.cache_read_tokens,
            "output_tokens": 0,
            "service_tier": "standard",
        },
    })
}

fn stop_reason(reply: &Reply) -> &'static str {
    if reply.cut_off {
        "max_tokens"
    } else if reply.tool_calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    }
}
