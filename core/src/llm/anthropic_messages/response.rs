//! A whole (non-streamed) Messages response -> `Response` (spec 7.5).

use serde_json::Value;

use super::usage::{finish_reason, usage};
use super::PROVIDER;
use crate::llm::error::{rate_limit_info, ErrorKind, LlmError};
use crate::llm::types::{ContentPart, Message, Response, Role, ThinkingData, ToolCall, Warning};

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
                let input = block.get("input").map(Value::to_string).unwrap_or_default();
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

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::llm::types::Reason;
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
        assert_eq!(response.finish_reason, crate::llm::FinishReason { reason: Reason::ToolCalls, raw: Some("tool_use".into()) });
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
}
