//! Chat Completions body -> unified [`Response`] (spec 7.5), and the field readers the stream
//! decoder shares: usage, finish reason, reasoning text.

use serde_json::Value;

use super::error::{embedded_error, is_error};
use crate::error::{rate_limit_info, ErrorKind, LlmError};
use crate::types::{ContentPart, FinishReason, Message, Reason, Response, Role, ThinkingData, ToolCall, Usage, Warning};

/// The warning given when a server reports no token counts (spec 3.11): usage is then zero.
pub(super) fn usage_missing() -> Warning {
    Warning { message: "the server reported no token usage; usage is counted as zero".into(), code: Some("usage_missing".into()) }
}

pub(super) fn parse(provider: &str, body: &[u8], headers: &[(String, String)]) -> Result<Response, LlmError> {
    let value: Value = serde_json::from_slice(body).map_err(|e| {
        LlmError::new(ErrorKind::Server, format!("{provider} answered with a body that is not valid JSON: {e}"))
            .with_provider(provider)
    })?;
    // Some proxies answer 200 with an error object.
    if is_error(&value) {
        return Err(embedded_error(provider, value));
    }
    let Some(choice) = value.get("choices").and_then(Value::as_array).and_then(|c| c.first()) else {
        return Err(LlmError::new(ErrorKind::Server, format!("{provider} answered without any choice")).with_provider(provider));
    };
    let message = choice.get("message").unwrap_or(&Value::Null);
    let id = text(value.get("id")).unwrap_or_default();
    let mut content = Vec::new();
    if let Some(reasoning) = reasoning_text(message) {
        content.push(ContentPart::Thinking { thinking: ThinkingData { text: reasoning.to_owned(), ..ThinkingData::default() } });
    }
    let answer = message_text(message);
    if !answer.is_empty() {
        content.push(ContentPart::text(answer));
    }
    let calls = message.get("tool_calls").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    for (n, call) in calls.iter().enumerate() {
        let function = call.get("function").unwrap_or(&Value::Null);
        let call_id = text(call.get("id")).unwrap_or_else(|| synthetic_call_id(&id, n));
        let name = text(function.get("name")).unwrap_or_default();
        let tool_call = ToolCall::from_raw(call_id, name, arguments_text(function.get("arguments")));
        content.push(ContentPart::ToolCall { tool_call });
    }
    let raw_reason = choice.get("finish_reason").and_then(Value::as_str);
    let finish_reason = FinishReason::new(unified_reason(raw_reason, !calls.is_empty()), raw_reason);
    let mut warnings = Vec::new();
    let usage = match value.get("usage").filter(|u| u.is_object()) {
        Some(raw) => usage_from(raw),
        None => {
            warnings.push(usage_missing());
            Usage::default()
        }
    };
    Ok(Response {
        id,
        model: text(value.get("model")).unwrap_or_default(),
        provider: provider.to_owned(),
        message: Message::new(Role::Assistant, content),
        finish_reason,
        usage,
        rate_limit: rate_limit_info(headers),
        raw: Some(value),
        warnings,
    })
}

/// Spec 3.9 for Chat Completions. `prompt_tokens_details.cache_write_tokens` is sent by OpenAI
/// for some models; DeepSeek counts cache hits as `prompt_cache_hit_tokens`.
pub(super) fn usage_from(raw: &Value) -> Usage {
    let count = |v: Option<&Value>| v.and_then(Value::as_u64);
    let detail = |group: &str, field: &str| count(raw.get(group).and_then(|g| g.get(field)));
    let input_tokens = count(raw.get("prompt_tokens")).unwrap_or(0);
    let output_tokens = count(raw.get("completion_tokens")).unwrap_or(0);
    Usage {
        input_tokens,
        output_tokens,
        total_tokens: count(raw.get("total_tokens")).unwrap_or(input_tokens.saturating_add(output_tokens)),
        reasoning_tokens: detail("completion_tokens_details", "reasoning_tokens"),
        cache_read_tokens: detail("prompt_tokens_details", "cached_tokens").or_else(|| count(raw.get("prompt_cache_hit_tokens"))),
        cache_write_tokens: detail("prompt_tokens_details", "cache_write_tokens"),
        cost_usd: None,
        raw: Some(raw.clone()),
    }
}

/// Spec 3.8. Servers that answer a tool call with `stop` (some llama.cpp and Ollama versions)
/// still asked for tools; a `length` stop is kept, since its calls may be cut short.
pub(super) fn unified_reason(raw: Option<&str>, has_tool_calls: bool) -> Reason {
    let reason = match raw {
        Some("stop") => Reason::Stop,
        Some("length") => Reason::Length,
        Some("tool_calls" | "function_call") => Reason::ToolCalls,
        Some("content_filter") => Reason::ContentFilter,
        _ => Reason::Other,
    };
    match reason {
        Reason::Stop | Reason::Other if has_tool_calls => Reason::ToolCalls,
        reason => reason,
    }
}

/// The reasoning text of a message or delta: `reasoning_content` (llama.cpp, DeepSeek, vLLM) or
/// `reasoning` (newer vLLM, OpenRouter). Servers in transition send both with the same text, so
/// only one is read.
pub(super) fn reasoning_text(value: &Value) -> Option<&str> {
    let field = |name| value.get(name).and_then(Value::as_str).filter(|s| !s.is_empty());
    field("reasoning_content").or_else(|| field("reasoning"))
}

/// Message or delta text: a string, or (from a few servers) a list of text parts. A refusal is
/// the model's visible answer too, so it is text.
pub(super) fn message_text(value: &Value) -> String {
    let mut out = match value.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect(),
        _ => String::new(),
    };
    if let Some(refusal) = value.get("refusal").and_then(Value::as_str) {
        out.push_str(refusal);
    }
    out
}

/// Argument text as sent: a string, or an object from servers that send one (older Ollama).
pub(super) fn arguments_text(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => crate::json_text::to_string(other),
    }
}

/// An id for a call the server gave none (some local servers), unique within the response.
pub(super) fn synthetic_call_id(response_id: &str, n: usize) -> String {
    if response_id.is_empty() {
        format!("call_{n}")
    } else {
        format!("call_{response_id}_{n}")
    }
}

pub(super) fn text(value: Option<&Value>) -> Option<String> {
    value.and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use serde_json::json;

    fn parse_json(body: Value) -> Result<Response, LlmError> {
        parse("p", body.to_string().as_bytes(), &[])
    }

    #[test]
    fn reads_text_usage_and_finish_reason() {
        let body = json!({
            "id": "chatcmpl-1", "model": "gpt-x",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "Paris.", "refusal": null}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 13, "completion_tokens": 16, "total_tokens": 29,
                "prompt_tokens_details": {"cached_tokens": 4, "cache_write_tokens": 2},
                "completion_tokens_details": {"reasoning_tokens": 8}}
        });
        let response = parse_json(body.clone()).unwrap();
        assert_eq!((response.id.as_str(), response.model.as_str(), response.text().as_str()), ("chatcmpl-1", "gpt-x", "Paris."));
        assert_eq!(response.finish_reason, FinishReason::new(Reason::Stop, Some("stop")));
        let usage = &response.usage;
        assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (13, 16, 29));
        assert_eq!((usage.reasoning_tokens, usage.cache_read_tokens, usage.cache_write_tokens), (Some(8), Some(4), Some(2)));
        assert_eq!(usage.raw.as_ref(), Some(&body["usage"]));
        assert_eq!(response.raw, Some(body));
        assert!(response.warnings.is_empty());
    }

    #[test]
    fn reads_tool_calls_with_their_exact_argument_text() {
        let body = json!({"id": "r", "choices": [{"message": {"content": null, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "get", "arguments": "{\"q\": 1}"}},
            {"type": "function", "function": {"name": "put", "arguments": {"v": true}}},
            {"id": "call_c", "type": "function", "function": {"name": "bad", "arguments": "{\"open"}}
        ]}, "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 1, "completion_tokens": 2}});
        let response = parse_json(body).unwrap();
        let calls = response.tool_calls();
        assert_eq!(calls[0], ToolCall::from_raw("call_a", "get", "{\"q\": 1}"));
        assert_eq!((calls[1].id.as_str(), &calls[1].arguments), ("call_r_1", &json!({"v": true})));
        assert_eq!((calls[2].arguments.clone(), calls[2].raw_arguments.as_deref()), (Value::Null, Some("{\"open")));
        assert_eq!(response.finish_reason.reason, Reason::ToolCalls);
        assert_eq!(response.usage.total_tokens, 3);
    }

    #[test]
    fn reads_reasoning_from_either_field_once() {
        for message in [
            json!({"content": "4", "reasoning_content": "2+2"}),
            json!({"content": "4", "reasoning": "2+2"}),
            json!({"content": "4", "reasoning_content": "2+2", "reasoning": "2+2"}),
        ] {
            let response = parse_json(json!({"choices": [{"message": message, "finish_reason": "stop"}], "usage": {}})).unwrap();
            assert_eq!((response.reasoning().as_deref(), response.text().as_str()), (Some("2+2"), "4"));
            assert!(matches!(response.message.content[0], ContentPart::Thinking { .. }));
        }
    }

    #[test]
    fn finish_reasons_map_to_the_unified_ones() {
        let cases = [
            (Some("stop"), false, Reason::Stop),
            (Some("length"), false, Reason::Length),
            (Some("tool_calls"), true, Reason::ToolCalls),
            (Some("function_call"), false, Reason::ToolCalls),
            (Some("content_filter"), false, Reason::ContentFilter),
            (Some("eos"), false, Reason::Other),
            (None, false, Reason::Other),
            (Some("stop"), true, Reason::ToolCalls),
            (Some("length"), true, Reason::Length),
        ];
        for (raw, calls, reason) in cases {
            assert_eq!(unified_reason(raw, calls), reason, "{raw:?} {calls}");
        }
    }

    #[test]
    fn missing_usage_is_zero_and_said() {
        let response = parse_json(json!({"choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}]})).unwrap();
        assert_eq!(response.usage, Usage::default());
        assert_eq!(response.warnings, vec![usage_missing()]);
    }

    #[test]
    fn content_parts_and_refusals_are_text() {
        let response = parse_json(
            json!({"choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}]}),
        )
        .unwrap();
        assert_eq!(response.text(), "ab");
        let response =
            parse_json(json!({"choices": [{"message": {"content": null, "refusal": "I can't help with that."}}]})).unwrap();
        assert_eq!(response.text(), "I can't help with that.");
    }

    #[test]
    fn malformed_bodies_are_clear_errors_not_panics() {
        let parse_bytes = |b: &[u8]| parse("p", b, &[]);
        assert_eq!(parse_bytes(b"{\"choices\": [").unwrap_err().kind, ErrorKind::Server);
        assert_eq!(parse_bytes(b"[]").unwrap_err().kind, ErrorKind::Server);
        assert_eq!(parse_bytes(b"{\"choices\": []}").unwrap_err().kind, ErrorKind::Server);
        let error = parse_bytes(br#"{"error": {"message": "model not loaded", "code": 503}}"#).unwrap_err();
        assert_eq!((error.kind, error.status_code), (ErrorKind::Server, Some(503)));
        let odd = parse_json(
            json!({"choices": [{"message": {"content": 5, "tool_calls": [{"function": 3}, 7]}, "finish_reason": 1}], "usage": {"prompt_tokens": u64::MAX, "completion_tokens": 9}}),
        );
        let odd = odd.unwrap();
        assert_eq!(odd.usage.total_tokens, u64::MAX);
        assert_eq!(odd.tool_calls().len(), 2);
    }
}
