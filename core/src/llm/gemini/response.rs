//! A whole generateContent answer as a `Response` (spec 7.5).

use serde_json::Value;

use super::wire::{self, Answer, PartKind};
use super::{error, PROVIDER};
use crate::llm::error::{rate_limit_info, ErrorKind, LlmError};
use crate::llm::types::{ContentPart, Message, Response, Role, ThinkingData, Warning};

pub(super) fn parse(body: &[u8], headers: &[(String, String)]) -> Result<Response, LlmError> {
    let raw: Value =
        serde_json::from_slice(body).map_err(|e| error::malformed(ErrorKind::Server, format!("the body is not JSON: {e}")))?;
    let answer = Answer(&raw);
    answer.check().map_err(|e| error::malformed(ErrorKind::Server, e))?;
    if answer.is_error() {
        return Err(error::from_event(raw));
    }
    if let Some(reason) = answer.blocked_prompt() {
        return Err(error::prompt_blocked(reason));
    }
    let candidate = answer.candidate();
    let (content, warnings) = content(wire::parts(candidate))?;
    let has_tool_calls = content.iter().any(|p| matches!(p, ContentPart::ToolCall { .. }));
    Ok(Response {
        id: answer.id().unwrap_or_default(),
        model: answer.model().unwrap_or_default(),
        provider: PROVIDER.to_owned(),
        message: Message::new(Role::Assistant, content),
        finish_reason: wire::finish_reason(wire::finish_reason_of(candidate), has_tool_calls),
        usage: answer.usage().map(wire::usage).unwrap_or_default(),
        warnings,
        rate_limit: rate_limit_info(headers),
        raw: Some(raw),
    })
}

/// The parts in order. A text part's signature follows it as an empty `Thinking` (see the module
/// docs); parts the unified model cannot carry become warnings (`Response.raw` keeps them).
fn content(parts: &[Value]) -> Result<(Vec<ContentPart>, Vec<Warning>), LlmError> {
    let (mut content, mut warnings) = (Vec::new(), Vec::new());
    for part in parts {
        match wire::classify(part).map_err(|e| error::malformed(ErrorKind::Server, e))? {
            PartKind::Text { text, signature } => {
                if !text.is_empty() {
                    content.push(ContentPart::Text { text });
                }
                if let Some(signature) = signature {
                    content.push(signature_carrier(signature));
                }
            }
            PartKind::Thought { text, signature } => {
                content.push(ContentPart::Thinking { thinking: ThinkingData { text, signature, ..ThinkingData::default() } })
            }
            PartKind::Call(tool_call) => content.push(ContentPart::ToolCall { tool_call }),
            PartKind::Media(media) => content.push(media),
            PartKind::Other => warnings.push(Warning {
                message: format!(
                    "a Gemini `{}` part has no unified form and was left out (Response.raw keeps it)",
                    wire::part_name(part)
                ),
                code: Some("unsupported_part".into()),
            }),
        }
    }
    Ok((content, warnings))
}

pub(super) fn signature_carrier(signature: String) -> ContentPart {
    ContentPart::Thinking { thinking: ThinkingData { signature: Some(signature), ..ThinkingData::default() } }
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
    fn text_reasoning_usage_and_ids_are_read() {
        let body = json!({
            "candidates": [{"content": {"role": "model", "parts": [
                {"text": "thinking…", "thought": true},
                {"text": "Paris.", "thoughtSignature": "sig-1"}
            ]}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": 8, "candidatesTokenCount": 2, "totalTokenCount": 30, "thoughtsTokenCount": 20},
            "modelVersion": "gemini-3-flash-preview", "responseId": "r-1"
        });
        let response = parse_json(body.clone()).unwrap();
        assert_eq!(
            (response.id.as_str(), response.model.as_str(), response.provider.as_str()),
            ("r-1", "gemini-3-flash-preview", "gemini")
        );
        assert_eq!(response.text(), "Paris.");
        assert_eq!(response.reasoning().as_deref(), Some("thinking…"));
        assert_eq!(response.finish_reason.reason, Reason::Stop);
        assert_eq!(response.finish_reason.raw.as_deref(), Some("STOP"));
        assert_eq!(
            (response.usage.input_tokens, response.usage.output_tokens, response.usage.reasoning_tokens),
            (8, 22, Some(20))
        );
        assert_eq!(response.raw, Some(body));
        // The text part's signature follows the text, kept for the next turn.
        assert!(matches!(&response.message.content[2], ContentPart::Thinking { thinking }
            if thinking.text.is_empty() && thinking.signature.as_deref() == Some("sig-1")));
    }

    #[test]
    fn function_calls_make_a_stop_into_tool_calls() {
        let body = json!({"candidates": [{"content": {"parts": [
            {"functionCall": {"name": "get_weather", "args": {"location": "Tokyo"}}, "thoughtSignature": "sig"},
            {"functionCall": {"name": "get_weather", "args": {"location": "Paris"}}}
        ]}, "finishReason": "STOP"}]});
        let response = parse_json(body).unwrap();
        let calls = response.tool_calls();
        assert_eq!(calls.len(), 2);
        assert_ne!(calls[0].id, calls[1].id);
        assert_eq!(calls[0].arguments, json!({"location": "Tokyo"}));
        assert_eq!(calls[0].signature.as_deref(), Some("sig"));
        assert_eq!(response.finish_reason.reason, Reason::ToolCalls);
    }

    #[test]
    fn parts_without_a_unified_form_become_warnings() {
        let body = json!({"candidates": [{"content": {"parts": [
            {"executableCode": {"language": "PYTHON", "code": "print(1)"}}, {"text": "1"}
        ]}, "finishReason": "STOP"}]});
        let response = parse_json(body).unwrap();
        assert_eq!(response.text(), "1");
        assert_eq!(response.warnings.len(), 1);
        assert!(response.warnings[0].message.contains("executableCode"));
    }

    #[test]
    fn an_empty_candidate_and_other_candidates_are_handled() {
        let body = json!({"candidates": [
            {"content": {"parts": [{"text": "second"}]}, "index": 1},
            {"content": {"role": "model"}, "finishReason": "MAX_TOKENS", "index": 0}
        ], "usageMetadata": {"promptTokenCount": 10, "totalTokenCount": 10}});
        let response = parse_json(body).unwrap();
        assert!(response.message.content.is_empty());
        assert_eq!(response.finish_reason.reason, Reason::Length);
        assert_eq!(response.usage.total_tokens, 10);
    }

    #[test]
    fn blocked_prompts_errors_and_garbage_are_errors() {
        let blocked = parse_json(json!({"promptFeedback": {"blockReason": "SAFETY"}})).unwrap_err();
        assert_eq!(blocked.kind, ErrorKind::ContentFilter);
        let error = parse_json(json!({"error": {"code": 429, "message": "slow", "status": "RESOURCE_EXHAUSTED"}})).unwrap_err();
        assert_eq!(error.kind, ErrorKind::RateLimit);
        for garbage in [&b"{\"candidates\": ["[..], b"[1,2]", b"{\"candidates\": [{\"content\": {\"parts\": [{\"text\": 1}]}}]}"]
        {
            let error = parse(garbage, &[]).unwrap_err();
            assert_eq!(error.kind, ErrorKind::Server, "{}", String::from_utf8_lossy(garbage));
        }
    }
}
