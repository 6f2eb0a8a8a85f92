//! OpenAI Responses (`POST /v1/responses`): a `response` object whose `output` holds reasoning,
//! message and function_call items (each call with its `call_id`), or its SSE stream from
//! `response.created` to `response.completed`; errors as `{"error": {"message", "type", "param", "code"}}`.

use serde_json::{json, Value};

use crate::ids::Ids;
use crate::script::Reply;
use crate::wire::{thirds, unix_now, words, Call};

/// The non-streamed answer.
pub fn response(reply: &Reply, call: &Call, ids: &mut Ids) -> Value {
    let mut response = envelope(call, ids);
    finish(&mut response, reply);
    response["output"] = items(reply, call, ids).iter().map(Item::done).collect();
    response["usage"] = usage(reply);
    response
}

/// `completed`, or `incomplete` for an answer cut off at the output limit.
fn finish(response: &mut Value, reply: &Reply) -> &'static str {
    if reply.cut_off {
        response["status"] = "incomplete".into();
        response["incomplete_details"] = json!({"reason": "max_output_tokens"});
        "response.incomplete"
    } else {
        response["status"] = "completed".into();
        "response.completed"
    }
}

/// The streamed answer, one event per element (each carries its `type`, the SSE event name).
pub fn events(reply: &Reply, call: &Call, ids: &mut Ids) -> Vec<Value> {
    let mut response = envelope(call, ids);
    let mut events = vec![
        json!({"type": "response.created", "response": response}),
        json!({"type": "response.in_progress", "response": response}),
    ];
    let items = items(reply, call, ids);
    for (output_index, item) in items.iter().enumerate() {
        item.stream(output_index, &mut events);
    }
    let last = finish(&mut response, reply);
    response["output"] = items.iter().map(Item::done).collect();
    response["usage"] = usage(reply);
    events.push(json!({"type": last, "response": response}));
    for (sequence_number, event) in events.iter_mut().enumerate() {
        event["sequence_number"] = sequence_number.into();
    }
    events
}

/// The error body for `status` (Chat Completions uses the same shape).
pub fn error(status: u16, message: &str) -> Value {
    let (kind, code) = match status {
        401 => ("invalid_request_error", json!("invalid_api_key")),
        403 => ("invalid_request_error", json!("unsupported_country_region_territory")),
        404 => ("invalid_request_error", json!("model_not_found")),
        429 => ("requests", json!("rate_limit_exceeded")),
        400..=499 => ("invalid_request_error", Value::Null),
        _ => ("server_error", Value::Null),
    };
    json!({"error": {"message": message, "type": kind, "param": null, "code": code}})
}

/// The `x-request-id` response header.
pub fn request_id(ids: &mut Ids) -> String {
    format!("req_{}", ids.hex(32))
}

enum Item {
    Reasoning { id: String, summary: String, encrypted_content: Option<String> },
    Message { id: String, text: String },
    FunctionCall { id: String, call_id: String, name: String, arguments: String },
}

fn items(reply: &Reply, call: &Call, ids: &mut Ids) -> Vec<Item> {
    // Stateless clients (`store: false`) ask for reasoning back so they can replay it.
    let wants_encrypted = call.body["include"].as_array().is_some_and(|a| a.iter().any(|v| v == "reasoning.encrypted_content"));
    let mut items = Vec::new();
    if let Some(summary) = &reply.reasoning {
        let encrypted_content = wants_encrypted.then(|| format!("gAAAAA{}", ids.base64(120)));
        items.push(Item::Reasoning { id: format!("rs_{}", ids.hex(50)), summary: summary.clone(), encrypted_content });
    }
    if let Some(text) = &reply.text {
        items.push(Item::Message { id: format!("msg_{}", ids.hex(50)), text: text.clone() });
    }
    for tool_call in &reply.tool_calls {
        items.push(Item::FunctionCall {
            id: format!("fc_{}", ids.hex(50)),
            call_id: tool_call.id.clone().unwrap_or_else(|| format!("call_{}", ids.base62(24))),
            name: tool_call.name.clone(),
            arguments: tool_call.arguments.to_string(),
        });
    }
    items
}

impl Item {
    /// The finished item, as in `output` and `response.output_item.done`.
    fn done(&self) -> Value {
        match self {
            Item::Reasoning { id, summary, encrypted_content } => {
                let mut item = json!({"id": id, "type": "reasoning", "summary": [{"type": "summary_text", "text": summary}]});
                if let Some(encrypted) = encrypted_content {
                    item["encrypted_content"] = encrypted.as_str().into();
                }
                item
            }
            Item::Message { id, text } => json!({
                "id": id, "type": "message", "status": "completed", "role": "assistant",
                "content": [output_text(text)],
            }),
            Item::FunctionCall { id, call_id, name, arguments } => json!({
                "id": id, "type": "function_call", "status": "completed", "arguments": arguments, "call_id": call_id, "name": name,
            }),
        }
    }

    /// The events that build the item at `output_index`, from `output_item.added` to `output_item.done`.
    fn stream(&self, output_index: usize, events: &mut Vec<Value>) {
        let at = |mut event: Value, item_id: &str| {
            event["item_id"] = item_id.into();
            event["output_index"] = output_index.into();
            event
        };
        match self {
            Item::Reasoning { id, summary, .. } => {
                events.push(added(output_index, json!({"id": id, "type": "reasoning", "summary": []})));
                let part = |text: &str| json!({"type": "summary_text", "text": text});
                events
                    .push(at(json!({"type": "response.reasoning_summary_part.added", "summary_index": 0, "part": part("")}), id));
                for delta in words(summary) {
                    events.push(at(
                        json!({"type": "response.reasoning_summary_text.delta", "summary_index": 0, "delta": delta}),
                        id,
                    ));
                }
                events.push(at(json!({"type": "response.reasoning_summary_text.done", "summary_index": 0, "text": summary}), id));
                events.push(at(
                    json!({"type": "response.reasoning_summary_part.done", "summary_index": 0, "part": part(summary)}),
                    id,
                ));
            }
            Item::Message { id, text } => {
                let item = json!({"id": id, "type": "message", "status": "in_progress", "role": "assistant", "content": []});
                events.push(added(output_index, item));
                events.push(at(json!({"type": "response.content_part.added", "content_index": 0, "part": output_text("")}), id));
                for delta in words(text) {
                    let event = json!({"type": "response.output_text.delta", "content_index": 0, "delta": delta, "logprobs": []});
                    events.push(at(event, id));
                }
                events
                    .push(at(json!({"type": "response.output_text.done", "content_index": 0, "text": text, "logprobs": []}), id));
                events.push(at(json!({"type": "response.content_part.done", "content_index": 0, "part": output_text(text)}), id));
            }
            Item::FunctionCall { id, call_id, name, arguments } => {
                let item = json!({"id": id, "type": "function_call", "status": "in_progress", "arguments": "", "call_id": call_id, "name": name});
                events.push(added(output_index, item));
                for delta in thirds(arguments) {
                    events.push(at(json!({"type": "response.function_call_arguments.delta", "delta": delta}), id));
                }
                events.push(at(json!({"type": "response.function_call_arguments.done", "arguments": arguments}), id));
            }
        }
        events.push(json!({"type": "response.output_item.done", "output_index": output_index, "item": self.done()}));
    }
}

fn added(output_index: usize, item: Value) -> Value {
    json!({"type": "response.output_item.added", "output_index": output_index, "item": item})
}

fn output_text(text: &str) -> Value {
    json!({"type": "output_text", "annotations": [], "logprobs": [], "text": text})
}

fn envelope(call: &Call, ids: &mut Ids) -> Value {
    json!({
        "id": format!("resp_{}", ids.hex(50)),
        "object": "response",
        "created_at": unix_now(),
        "status": "in_progress",
        "error": null,
        "incomplete_details": null,
        "model": call.model,
        "output": [],
        "parallel_tool_calls": true,
        "store": call.body["store"].as_bool().unwrap_or(true),
        "usage": null,
    })
}

fn usage(reply: &Reply) -> Value {
    let u = reply.usage;
    json!({
        "input_tokens": u.input_tokens,
        "input_tokens_details": {"cached_tokens": u.cache_read_tokens},
        "output_tokens": u.output_tokens,
        "output_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
        "total_tokens": u.input_tokens + u.output_tokens,
    })
}
