//! A whole (non-streamed) Messages response -> `Response` (spec 7.5), and the usage (spec 3.9)
//! and finish reasons (spec 3.8) the stream decoder reads the same way.

use serde_json::Value;

use super::PROVIDER;
use crate::error::{rate_limit_info, ErrorKind, LlmError};
use crate::types::{ContentPart, FinishReason, Message, Reason, Response, Role, ThinkingData, ToolCall, Usage, Warning};

pub(super) fn parse(body: &[u8], headers: &[(String, String)]) -> Result<Response, LlmError> {
    let raw: Value = serde_json::from_slice(body).map_err(|e| malformed(&format!("its body is not JSON ({e})")))?;
    let blocks = raw.get("content").and_then(Value::as_array).ok_or_else(|| malformed("it has no `content` list"))?;
    let mut content = Vec::with_capacity(blocks.len());
    let mut warnings = Vec::new();
    let mut thinking_chars: Option<usize> = None;
    for block in blocks {
        let text = |key| block.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        match block.get("type").and_then(Value::as_str).unwrap_or_default() {
            "text" => content.push(ContentPart::Text { text: text("text") }),
            "tool_use" => {
                let (id, name) = (required(block, "id")?, required(block, "name")?);
                let input = block.get("input").map(crate::json_text::to_string).unwrap_or_default();
                content.push(ContentPart::ToolCall { tool_call: ToolCall::from_raw(id, name, input) });
            }
            "thinking" => {
                let thinking = text("thinking");
                *thinking_chars.get_or_insert(0) += thinking.chars().count();
                let signature = Some(text("signature")).filter(|s| !s.is_empty());
                content.push(ContentPart::Thinking {
                    thinking: ThinkingData { text: thinking, signature, ..ThinkingData::default() },
                });
            }
            "redacted_thinking" => content.push(ContentPart::RedactedThinking {
                thinking: ThinkingData { text: text("data"), redacted: true, ..ThinkingData::default() },
            }),
            // Server tools (web search, tool search, code execution) and their results.
            other => warnings.push(unsupported_block(other)),
        }
    }
    Ok(Response {
        id: raw.get("id").and_then(Value::as_str).unwrap_or_default().to_owned(),
        model: raw.get("model").and_then(Value::as_str).unwrap_or_default().to_owned(),
        provider: PROVIDER.to_owned(),
        message: Message::new(Role::Assistant, content),
        finish_reason: finish_reason(raw.get("stop_reason").and_then(Value::as_str)),
        usage: usage(raw.get("usage").unwrap_or(&Value::Null), thinking_chars),
        warnings,
        rate_limit: rate_limit_info(headers),
        raw: Some(raw),
    })
}

/// A content block the unified model has no place for; reported, not fatal.
fn unsupported_block(kind: &str) -> Warning {
    Warning {
        message: format!("a `{kind}` content block was left out: the unified model does not carry provider built-in tools"),
        code: Some("unsupported_content_block".into()),
    }
}

fn required<'a>(block: &'a Value, key: &str) -> Result<&'a str, LlmError> {
    block.get(key).and_then(Value::as_str).ok_or_else(|| malformed(&format!("a tool_use block has no `{key}`")))
}

/// A 2xx body we cannot read is the provider's fault, and may not recur: a retryable server error.
fn malformed(why: &str) -> LlmError {
    LlmError::new(ErrorKind::Server, format!("Anthropic sent a response that is not a Messages response: {why}"))
        .with_provider(PROVIDER)
}

/// `usage` from the provider's usage object. `thinking_chars` is the length of the readable
/// thinking, `None` when the response had no thinking block.
///
/// `input_tokens` is the whole prompt: Anthropic's `input_tokens` counts only what was neither
/// read from nor written to the cache, so it alone would make a cached 100k-token prompt look
/// like a few tokens, unlike every other provider, and hide how full the context window is.
/// Reasoning tokens: newer responses report `output_tokens_details.thinking_tokens`; otherwise
/// they are estimated as one token per four characters of thinking text (spec 3.9 note), and
/// redacted thinking is not counted.
pub(super) fn usage(raw: &Value, thinking_chars: Option<usize>) -> Usage {
    let count = |key: &str| raw.get(key).and_then(Value::as_u64);
    let cache_read = count("cache_read_input_tokens");
    let cache_write = count("cache_creation_input_tokens");
    let input =
        count("input_tokens").unwrap_or(0).saturating_add(cache_read.unwrap_or(0)).saturating_add(cache_write.unwrap_or(0));
    let output = count("output_tokens").unwrap_or(0);
    let reported = raw["output_tokens_details"]["thinking_tokens"].as_u64();
    let estimated = thinking_chars.map(|chars| chars.div_ceil(4) as u64);
    Usage {
        input_tokens: input,
        output_tokens: output,
        total_tokens: input.saturating_add(output),
        reasoning_tokens: reported.or(estimated),
        cache_read_tokens: cache_read,
        cache_write_tokens: cache_write,
        cost_usd: None,
        raw: Some(raw.clone()),
    }
}

/// `stop_reason` to the unified reason, keeping the raw value.
pub(super) fn finish_reason(stop_reason: Option<&str>) -> FinishReason {
    let reason = match stop_reason {
        Some("end_turn" | "stop_sequence") => Reason::Stop,
        // The second: the model ran into the context window rather than `max_tokens`.
        Some("max_tokens" | "model_context_window_exceeded") => Reason::Length,
        Some("tool_use") => Reason::ToolCalls,
        Some("refusal") => Reason::ContentFilter,
        // `pause_turn` (a server tool paused a long turn) and anything newer.
        _ => Reason::Other,
    };
    FinishReason::new(reason, stop_reason)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::types::Reason;
    use serde_json::json;

    fn parse_json(body: Value) -> Result<Response, LlmError> {
        parse(body.to_string().as_bytes(), &[])
    }

    #[test]
    fn text_tool_calls_thinking_usage_and_finish() {
        let body = json!({
            "id": "msg_1", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
            "content": [
                {"type": "thinking", "thinking": "Let me look.", "signature": "sig=="},
                {"type": "redacted_thinking", "data": "opaque=="},
                {"type": "text", "text": "Checking."},
                {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"location": "Paris"}},
            ],
            "stop_reason": "tool_use", "stop_sequence": null,
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 90, "cache_creation_input_tokens": 0, "output_tokens": 30},
        });
        let headers = [("anthropic-ratelimit-requests-remaining".to_owned(), "49".to_owned())];
        let response = parse(body.to_string().as_bytes(), &headers).unwrap();
        assert_eq!(
            (response.id.as_str(), response.model.as_str(), response.provider.as_str()),
            ("msg_1", "claude-sonnet-4-5", "anthropic")
        );
        assert_eq!(response.text(), "Checking.");
        assert_eq!(response.reasoning().as_deref(), Some("Let me look."));
        let calls = response.tool_calls();
        assert_eq!((calls[0].id.as_str(), calls[0].name.as_str()), ("toolu_1", "get_weather"));
        assert_eq!(calls[0].arguments, json!({"location": "Paris"}));
        assert_eq!(calls[0].raw_arguments.as_deref(), Some(r#"{"location":"Paris"}"#));
        assert!(
            matches!(&response.message.content[0], ContentPart::Thinking { thinking } if thinking.signature.as_deref() == Some("sig=="))
        );
        assert!(
            matches!(&response.message.content[1], ContentPart::RedactedThinking { thinking } if thinking.text == "opaque==" && thinking.redacted)
        );
        assert_eq!(response.finish_reason, crate::FinishReason { reason: Reason::ToolCalls, raw: Some("tool_use".into()) });
        assert_eq!(
            (response.usage.input_tokens, response.usage.output_tokens, response.usage.reasoning_tokens),
            (100, 30, Some(3))
        );
        assert_eq!(response.usage.cache_read_tokens, Some(90));
        assert_eq!(response.raw, Some(body));
        assert_eq!(response.rate_limit.and_then(|r| r.requests_remaining), Some(49));
        assert!(response.warnings.is_empty());
    }

    #[test]
    fn server_tool_blocks_become_warnings() {
        let body = json!({
            "id": "m", "model": "x", "stop_reason": "end_turn", "usage": {"input_tokens": 1, "output_tokens": 1},
            "content": [
                {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
                {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
                {"type": "text", "text": "Found it."},
            ],
        });
        let response = parse_json(body).unwrap();
        assert_eq!(response.text(), "Found it.");
        assert!(response.tool_calls().is_empty());
        assert_eq!(response.warnings.len(), 2);
        assert!(response.warnings[0].message.contains("server_tool_use"));
    }

    #[test]
    fn malformed_bodies_are_errors_not_panics() {
        for body in [&b"not json"[..], b"{\"content\": 3}", b"[]", b"{\"content\": [{\"type\": \"tool_use\", \"name\": \"f\"}]}"]
        {
            let error = parse(body, &[]).unwrap_err();
            assert_eq!(error.kind, ErrorKind::Server, "{}", String::from_utf8_lossy(body));
            assert!(error.retryable);
        }
        let minimal = parse_json(json!({"content": [{"type": "text"}]})).unwrap();
        assert_eq!((minimal.text().as_str(), minimal.finish_reason.reason), ("", Reason::Other));
    }

    #[test]
    fn input_counts_the_whole_prompt_and_cache_counts_are_kept() {
        let raw =
            json!({"input_tokens": 8, "cache_creation_input_tokens": 5, "cache_read_input_tokens": 12963, "output_tokens": 208});
        let u = usage(&raw, None);
        assert_eq!((u.input_tokens, u.output_tokens, u.total_tokens), (12976, 208, 13184));
        assert_eq!((u.cache_read_tokens, u.cache_write_tokens, u.reasoning_tokens), (Some(12963), Some(5), None));
        assert_eq!(u.raw, Some(raw));
    }

    #[test]
    fn reasoning_tokens_are_reported_or_estimated() {
        let reported = json!({"input_tokens": 1, "output_tokens": 224, "output_tokens_details": {"thinking_tokens": 49}});
        assert_eq!(usage(&reported, Some(0)).reasoning_tokens, Some(49));
        let plain = json!({"input_tokens": 1, "output_tokens": 50});
        assert_eq!(usage(&plain, Some(9)).reasoning_tokens, Some(3));
        assert_eq!(usage(&plain, None).reasoning_tokens, None);
        assert_eq!(usage(&plain, None).cache_read_tokens, None);
    }

    #[test]
    fn malformed_counts_do_not_panic() {
        let u = usage(&json!({"input_tokens": u64::MAX, "cache_read_input_tokens": 5, "output_tokens": "many"}), None);
        assert_eq!((u.input_tokens, u.output_tokens, u.total_tokens), (u64::MAX, 0, u64::MAX));
        assert_eq!(usage(&json!(null), None).total_tokens, 0);
    }

    #[test]
    fn stop_reasons_map_as_the_spec_says() {
        let cases = [
            ("end_turn", Reason::Stop),
            ("stop_sequence", Reason::Stop),
            ("max_tokens", Reason::Length),
            ("model_context_window_exceeded", Reason::Length),
            ("tool_use", Reason::ToolCalls),
            ("refusal", Reason::ContentFilter),
            ("pause_turn", Reason::Other),
            ("something_new", Reason::Other),
        ];
        for (raw, reason) in cases {
            assert_eq!(finish_reason(Some(raw)), FinishReason { reason, raw: Some(raw.into()) });
        }
        assert_eq!(finish_reason(None), FinishReason { reason: Reason::Other, raw: None });
    }
}
