//! A Responses API response object (`{id, model, status, output: [items], usage, ...}`) read into
//! the unified [`Response`] (spec 7.5). The item and usage readers are shared with the stream
//! decoder, whose terminal event carries the same object.

use serde_json::Value;

use super::error::{reported, unreadable};
use super::PROVIDER;
use crate::error::{rate_limit_info, snippet, ErrorKind, LlmError};
use crate::json::join;
use crate::types::{ContentPart, FinishReason, Message, Reason, Response, Role, ThinkingData, ToolCall, Usage, Warning};

/// How the summary parts of one reasoning item are joined into [`ThinkingData::text`].
pub(super) const SUMMARY_SEPARATOR: &str = "\n\n";

pub(super) fn parse(body: &[u8], headers: &[(String, String)]) -> Result<Response, LlmError> {
    let value: Value =
        serde_json::from_slice(body).map_err(|e| unreadable(ErrorKind::Server, "a response body that is not JSON", e))?;
    if !value.is_object() {
        return Err(unreadable(
            ErrorKind::Server,
            "a response body that is not an object",
            snippet(&crate::json_text::to_string(&value)),
        ));
    }
    // A failed response, or a proxy's error object sent with a 200 (a response's own `error`
    // is null).
    if str_of(&value, "status") == Some("failed") || value.get("error").is_some_and(|e| !e.is_null()) {
        return Err(reported(value.get("error"), "the response failed"));
    }
    let mut warnings = Vec::new();
    let mut content = Vec::new();
    for item in value.get("output").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
        match item_type(item) {
            "message" => content.extend(message_texts(item).into_iter().map(ContentPart::text)),
            "reasoning" => content.push(ContentPart::Thinking { thinking: thinking(item) }),
            "function_call" | "custom_tool_call" => content.push(ContentPart::ToolCall { tool_call: tool_call(item)? }),
            other => warnings.push(unsupported_item(other)),
        }
    }
    let has_tool_calls = content.iter().any(|p| matches!(p, ContentPart::ToolCall { .. }));
    Ok(Response {
        id: str_of(&value, "id").unwrap_or_default().to_owned(),
        model: str_of(&value, "model").unwrap_or_default().to_owned(),
        provider: PROVIDER.to_owned(),
        message: Message::new(Role::Assistant, content),
        finish_reason: finish_reason(&value, has_tool_calls),
        usage: usage(value.get("usage")),
        warnings,
        rate_limit: rate_limit_info(headers),
        raw: Some(value),
    })
}

pub(super) fn str_of<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key).and_then(Value::as_str)
}

pub(super) fn item_type(item: &Value) -> &str {
    str_of(item, "type").unwrap_or_default()
}

/// The texts of a `message` item, one per non-empty part. A refusal is kept as text: it is what
/// the model said, and dropping it would leave an empty answer.
pub(super) fn message_texts(item: &Value) -> Vec<String> {
    let parts = item.get("content").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    parts
        .iter()
        .filter_map(|part| match item_type(part) {
            "output_text" => str_of(part, "text"),
            "refusal" => str_of(part, "refusal"),
            _ => None,
        })
        .filter(|text| !text.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A `reasoning` item: the summary is the readable part, `encrypted_content` the part to replay.
pub(super) fn thinking(item: &Value) -> ThinkingData {
    let summary = item.get("summary").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
    ThinkingData {
        text: join(&mut summary.iter().filter_map(|part| str_of(part, "text")), SUMMARY_SEPARATOR),
        signature: str_of(item, "encrypted_content").map(str::to_owned),
        redacted: false,
        id: str_of(item, "id").map(str::to_owned),
    }
}

/// A `function_call` or `custom_tool_call` item, complete. The call id is what the result must
/// answer, so an item without one is unusable.
pub(super) fn tool_call(item: &Value) -> Result<ToolCall, LlmError> {
    let kind = item_type(item);
    let call_id = str_of(item, "call_id").ok_or_else(|| unreadable(ErrorKind::Server, "a tool call without a call_id", kind))?;
    let name = str_of(item, "name").unwrap_or_default();
    let mut call = if kind == "custom_tool_call" {
        // A custom tool takes free text, not JSON: the text is the argument.
        let input = str_of(item, "input").unwrap_or_default();
        let mut call = ToolCall::new(call_id, name, Value::String(input.to_owned()));
        call.raw_arguments = Some(input.to_owned());
        call.call_type = "custom".into();
        call
    } else {
        ToolCall::from_raw(call_id, name, str_of(item, "arguments").unwrap_or_default())
    };
    call.signature = str_of(item, "id").map(str::to_owned);
    Ok(call)
}

pub(super) fn unsupported_item(kind: &str) -> Warning {
    Warning {
        message: format!("the response has a `{kind}` output item, which the unified model does not represent; it was left out"),
        code: Some("unsupported_output_item".to_owned()),
    }
}

/// Spec 3.8 for the Responses API: `completed` is a stop, or a tool-call stop when the output
/// asks for tools; `incomplete` says why in `incomplete_details.reason`. `raw` is that reason when
/// there is one, else the status.
pub(super) fn finish_reason(response: &Value, has_tool_calls: bool) -> FinishReason {
    let status = str_of(response, "status");
    let incomplete = response.get("incomplete_details").and_then(|d| str_of(d, "reason"));
    let reason = match (status, incomplete) {
        (Some("completed") | None, _) if has_tool_calls => Reason::ToolCalls,
        (Some("completed") | None, _) => Reason::Stop,
        (Some("incomplete"), Some("max_output_tokens")) => Reason::Length,
        (Some("incomplete"), Some("content_filter")) => Reason::ContentFilter,
        (Some("failed"), _) => Reason::Error,
        _ => Reason::Other,
    };
    FinishReason::new(reason, incomplete.or(status))
}

/// Spec 3.9. `input_tokens_details.cache_write_tokens` is not in the spec's table but newer
/// responses carry it, so it is read when present.
pub(super) fn usage(usage: Option<&Value>) -> Usage {
    let Some(raw) = usage.filter(|u| u.is_object()) else {
        return Usage::default();
    };
    let count = |path: &[&str]| path.iter().try_fold(raw, |v, key| v.get(key)).and_then(Value::as_u64);
    let input_tokens = count(&["input_tokens"]).unwrap_or(0);
    let output_tokens = count(&["output_tokens"]).unwrap_or(0);
    Usage {
        input_tokens,
        output_tokens,
        total_tokens: count(&["total_tokens"]).unwrap_or(input_tokens + output_tokens),
        reasoning_tokens: count(&["output_tokens_details", "reasoning_tokens"]),
        cache_read_tokens: count(&["input_tokens_details", "cached_tokens"]),
        cache_write_tokens: count(&["input_tokens_details", "cache_write_tokens"]),
        cost_usd: None,
        raw: Some(raw.clone()),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use serde_json::json;

    fn parsed(body: Value) -> Response {
        parse(body.to_string().as_bytes(), &[]).unwrap()
    }

    #[test]
    fn text_reasoning_usage_and_raw() {
        let body = json!({
            "id": "resp_1", "model": "gpt-5-nano-2025-08-07", "status": "completed",
            "output": [
                {"id": "rs_1", "type": "reasoning", "encrypted_content": "enc",
                 "summary": [{"type": "summary_text", "text": "First."}, {"type": "summary_text", "text": "Second."}]},
                {"id": "msg_1", "type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": "Paris.", "annotations": []}]}
            ],
            "usage": {"input_tokens": 13, "input_tokens_details": {"cached_tokens": 4, "cache_write_tokens": 2},
                      "output_tokens": 8, "output_tokens_details": {"reasoning_tokens": 5}, "total_tokens": 21}
        });
        let r = parsed(body.clone());
        assert_eq!((r.id.as_str(), r.model.as_str(), r.provider.as_str()), ("resp_1", "gpt-5-nano-2025-08-07", "openai"));
        assert_eq!(r.text(), "Paris.");
        let ContentPart::Thinking { thinking } = &r.message.content[0] else { panic!("{:?}", r.message.content) };
        assert_eq!(
            thinking,
            &ThinkingData {
                text: "First.\n\nSecond.".into(),
                signature: Some("enc".into()),
                redacted: false,
                id: Some("rs_1".into())
            }
        );
        assert_eq!(r.finish_reason, FinishReason::new(Reason::Stop, Some("completed")));
        let u = &r.usage;
        assert_eq!((u.input_tokens, u.output_tokens, u.total_tokens), (13, 8, 21));
        assert_eq!((u.reasoning_tokens, u.cache_read_tokens, u.cache_write_tokens), (Some(5), Some(4), Some(2)));
        assert_eq!(u.raw.as_ref(), Some(&body["usage"]));
        assert_eq!(r.raw, Some(body));
    }

    #[test]
    fn function_calls_keep_call_id_raw_arguments_and_item_id() {
        let r = parsed(json!({"status": "completed", "output": [
            {"id": "fc_1", "type": "function_call", "call_id": "call_a", "name": "get_weather", "arguments": "{\"location\":\"SF\"}"},
            {"id": "fc_2", "type": "function_call", "call_id": "call_b", "name": "get_weather", "arguments": "{\"location\": \"NY\"}"}
        ]}));
        let calls = r.tool_calls();
        assert_eq!(calls.len(), 2);
        assert_eq!((calls[0].id.as_str(), calls[0].signature.as_deref()), ("call_a", Some("fc_1")));
        assert_eq!(calls[1].arguments, json!({"location": "NY"}));
        assert_eq!(calls[1].raw_arguments.as_deref(), Some("{\"location\": \"NY\"}"));
        assert_eq!(r.finish_reason, FinishReason::new(Reason::ToolCalls, Some("completed")));
    }

    #[test]
    fn custom_tool_calls_carry_their_text_input() {
        let r = parsed(json!({"status": "completed", "output": [
            {"id": "ctc_1", "type": "custom_tool_call", "call_id": "call_c", "name": "note", "input": "plain text"}
        ]}));
        let call = &r.tool_calls()[0];
        assert_eq!((&*call.call_type, &call.arguments), ("custom", &json!("plain text")));
        assert_eq!(call.raw_arguments.as_deref(), Some("plain text"));
    }

    #[test]
    fn incomplete_responses_say_why() {
        let incomplete = |reason: &str| json!({"status": "incomplete", "incomplete_details": {"reason": reason}, "output": []});
        assert_eq!(
            parsed(incomplete("max_output_tokens")).finish_reason,
            FinishReason::new(Reason::Length, Some("max_output_tokens"))
        );
        assert_eq!(
            parsed(incomplete("content_filter")).finish_reason,
            FinishReason::new(Reason::ContentFilter, Some("content_filter"))
        );
        assert_eq!(parsed(json!({"status": "cancelled"})).finish_reason, FinishReason::new(Reason::Other, Some("cancelled")));
    }

    #[test]
    fn refusals_are_text_and_built_in_tool_items_are_warnings() {
        let r = parsed(json!({"status": "completed", "output": [
            {"id": "ci_1", "type": "code_interpreter_call", "code": "1+1"},
            {"type": "message", "content": [{"type": "refusal", "refusal": "I can't help with that."}, {"type": "output_text", "text": ""}]}
        ]}));
        assert_eq!(r.text(), "I can't help with that.");
        assert_eq!(r.message.content.len(), 1);
        assert_eq!(r.warnings[0].code.as_deref(), Some("unsupported_output_item"));
        assert!(r.warnings[0].message.contains("code_interpreter_call"));
    }

    #[test]
    fn a_failed_response_is_an_error() {
        let body = json!({"status": "failed", "error": {"code": "server_error", "message": "boom"}});
        let e = parse(body.to_string().as_bytes(), &[]).unwrap_err();
        assert_eq!((e.kind, e.message.as_str()), (ErrorKind::Server, "boom"));
    }

    #[test]
    fn unreadable_bodies_are_server_errors() {
        for body in [&b"{\"id\": "[..], b"[1,2]", b"\xff\xfe"] {
            let e = parse(body, &[]).unwrap_err();
            assert_eq!((e.kind, e.retryable), (ErrorKind::Server, true), "{e}");
        }
        let e = parse(br#"{"status":"completed","output":[{"type":"function_call","name":"f"}]}"#, &[]).unwrap_err();
        assert!(e.message.contains("call_id"), "{e}");
    }

    #[test]
    fn missing_usage_is_zero_and_total_defaults_to_the_sum() {
        assert_eq!(usage(None), Usage::default());
        assert_eq!(usage(Some(&Value::Null)), Usage::default());
        let u = usage(Some(&json!({"input_tokens": 3, "output_tokens": 4})));
        assert_eq!((u.total_tokens, u.reasoning_tokens, u.cache_read_tokens), (7, None, None));
    }

    #[test]
    fn rate_limit_headers_are_kept() {
        let headers = [("x-ratelimit-remaining-requests".to_owned(), "9".to_owned())];
        let r = parse(br#"{"status":"completed","output":[]}"#, &headers).unwrap();
        assert_eq!(r.rate_limit.and_then(|l| l.requests_remaining), Some(9));
    }
}
