//! OpenAI Chat Completions (`POST /v1/chat/completions`), the dialect of OpenAI-compatible
//! servers: a `chat.completion` with one choice, or `chat.completion.chunk`s ending in
//! `data: [DONE]`. Reasoning goes in `reasoning_content`, as llama.cpp, vLLM and DeepSeek send it.
//! Errors have the OpenAI shape ([`crate::openai_responses::error`]).

use serde_json::{json, Value};

use crate::ids::Ids;
use crate::script::Reply;
use crate::wire::{thirds, unix_now, words, Call, WireBody};

/// The non-streamed answer.
pub fn completion(reply: &Reply, call: &Call, ids: &mut Ids) -> Value {
    let mut message = json!({"role": "assistant", "content": reply.text, "refusal": null, "annotations": []});
    if let Some(reasoning) = &reply.reasoning {
        message["reasoning_content"] = reasoning.as_str().into();
    }
    let calls = tool_calls(reply, ids);
    if !calls.is_empty() {
        let calls = calls
            .iter()
            .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}));
        message["tool_calls"] = calls.collect();
    }
    let mut completion = envelope("chat.completion", call, ids);
    completion["choices"] = json!([{"index": 0, "message": message, "logprobs": null, "finish_reason": finish_reason(reply)}]);
    completion["usage"] = usage(reply);
    completion
}

/// The streamed chunks, in order (`data: [DONE]` is added by [`stream`]). The usage chunk comes
/// only when the request asked for it with `stream_options.include_usage`, as OpenAI does.
pub fn chunks(reply: &Reply, call: &Call, ids: &mut Ids) -> Vec<Value> {
    let base = envelope("chat.completion.chunk", call, ids);
    let chunk = |delta: Value, finish_reason: Value| {
        let mut chunk = base.clone();
        chunk["choices"] = json!([{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}]);
        chunk
    };
    let mut chunks = vec![chunk(json!({"role": "assistant", "content": "", "refusal": null}), Value::Null)];
    let reasoning = reply.reasoning.iter().flat_map(|r| words(r));
    chunks.extend(reasoning.map(|w| chunk(json!({"reasoning_content": w}), Value::Null)));
    let text = reply.text.iter().flat_map(|t| words(t));
    chunks.extend(text.map(|w| chunk(json!({"content": w}), Value::Null)));
    for (index, (id, name, args)) in tool_calls(reply, ids).into_iter().enumerate() {
        let opening = json!({"index": index, "id": id, "type": "function", "function": {"name": name, "arguments": ""}});
        chunks.push(chunk(json!({"tool_calls": [opening]}), Value::Null));
        for piece in thirds(&args) {
            chunks.push(chunk(json!({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}), Value::Null));
        }
    }
    chunks.push(chunk(json!({}), finish_reason(reply).into()));
    if call.body["stream_options"]["include_usage"] == true {
        let mut last = base.clone();
        last["choices"] = json!([]);
        last["usage"] = usage(reply);
        chunks.push(last);
    }
    chunks
}

/// The chunks framed as SSE, ending in `data: [DONE]`.
pub fn stream(reply: &Reply, call: &Call, ids: &mut Ids) -> WireBody {
    let mut body = WireBody::sse_data(&chunks(reply, call, ids), "\n");
    body.frames.push(b"data: [DONE]\n\n".to_vec());
    body
}

/// (call id, name, arguments as a JSON string) per tool call.
fn tool_calls(reply: &Reply, ids: &mut Ids) -> Vec<(String, String, String)> {
    let call = |c: &crate::script::ToolCall| {
        let id = c.id.clone().unwrap_or_else(|| format!("call_{}", ids.base62(24)));
        (id, c.name.clone(), c.arguments.to_string())
    };
    reply.tool_calls.iter().map(call).collect()
}

fn envelope(object: &str, call: &Call, ids: &mut Ids) -> Value {
    json!({
        "id": format!("chatcmpl-{}", ids.base62(29)),
        "object": object,
        "created": unix_now(),
        "model": call.model,
        "system_fingerprint": null,
    })
}

fn finish_reason(reply: &Reply) -> &'static str {
    if reply.cut_off {
        "length"
    } else if reply.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    }
}

fn usage(reply: &Reply) -> Value {
    let u = reply.usage;
    json!({
        "prompt_tokens": u.input_tokens,
        "completion_tokens": u.output_tokens,
        "total_tokens": u.input_tokens + u.output_tokens,
        "prompt_tokens_details": {"cached_tokens": u.cache_read_tokens},
        "completion_tokens_details": {"reasoning_tokens": u.reasoning_tokens},
    })
}
