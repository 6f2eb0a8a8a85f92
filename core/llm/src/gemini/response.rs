//! A whole generateContent answer as a `Response` (spec 7.5), and Gemini's answer on the wire (a
//! `GenerateContentResponse`, whole or one stream chunk) as the whole-body parser and the stream
//! decoder both read it: a part, a finish reason and usage the same way.
//!
//! The body is read as a `serde_json::Value` through small accessors rather than derived serde
//! structs: derived deserializers cost several times more in the browser bundle (DESIGN.md).

use serde_json::Value;

use super::{error, is_synthetic_call_id, synthetic_call_id, PROVIDER};
use crate::error::{rate_limit_info, ErrorKind, LlmError};
use crate::types::{
    ContentPart, FinishReason, MediaData, Message, Reason, Response, Role, ThinkingData, ToolCall, Usage, Warning,
};
use crate::{base64, json_text};

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
    let (content, warnings) = content(parts(candidate))?;
    let has_tool_calls = content.iter().any(|p| matches!(p, ContentPart::ToolCall { .. }));
    Ok(Response {
        id: answer.id().unwrap_or_default(),
        model: answer.model().unwrap_or_default(),
        provider: PROVIDER.to_owned(),
        message: Message::new(Role::Assistant, content),
        finish_reason: finish_reason(finish_reason_of(candidate), has_tool_calls),
        usage: answer.usage().map(usage).unwrap_or_default(),
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
        match classify(part).map_err(|e| error::malformed(ErrorKind::Server, e))? {
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
                    part_name(part)
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

/// A string field: absent is `None`, another type is an error.
pub(super) fn text<'a>(value: &'a Value, key: &str) -> Result<Option<&'a str>, String> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(format!("`{key}` should be a string, not {}", json_text::to_string(other))),
    }
}

/// One chunk (or whole body) of an answer.
pub(super) struct Answer<'a>(pub &'a Value);

impl<'a> Answer<'a> {
    pub fn check(&self) -> Result<(), String> {
        if !self.0.is_object() {
            return Err(format!("expected an object, got {}", json_text::to_string(self.0)));
        }
        if !matches!(self.0.get("candidates"), None | Some(Value::Array(_))) {
            return Err("`candidates` should be an array".into());
        }
        text(self.0, "responseId").and(text(self.0, "modelVersion")).map(drop)
    }

    pub fn id(&self) -> Option<String> {
        self.0.get("responseId").and_then(Value::as_str).map(str::to_owned)
    }

    pub fn model(&self) -> Option<String> {
        self.0.get("modelVersion").and_then(Value::as_str).map(str::to_owned)
    }

    pub fn usage(&self) -> Option<&'a Value> {
        self.0.get("usageMetadata").filter(|u| u.is_object())
    }

    /// Set when the body (or a stream chunk) is an error rather than an answer.
    pub fn is_error(&self) -> bool {
        self.0.get("error").is_some()
    }

    /// The block reason when the prompt itself was refused: no candidates, only feedback.
    pub fn blocked_prompt(&self) -> Option<&'a str> {
        let reason = self.0["promptFeedback"]["blockReason"].as_str()?;
        self.candidates().is_empty().then_some(reason)
    }

    fn candidates(&self) -> &'a [Value] {
        self.0.get("candidates").and_then(Value::as_array).map_or(&[], Vec::as_slice)
    }

    /// The candidate we answer with: index 0 (with `candidateCount` > 1 the others are ignored).
    pub fn candidate(&self) -> Option<&'a Value> {
        self.candidates().iter().find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
    }
}

/// A candidate's parts (none when the answer was cut off before any).
pub(super) fn parts(candidate: Option<&Value>) -> &[Value] {
    candidate.and_then(|c| c["content"]["parts"].as_array()).map_or(&[], Vec::as_slice)
}

pub(super) fn finish_reason_of(candidate: Option<&Value>) -> Option<&str> {
    candidate.and_then(|c| c.get("finishReason")).and_then(Value::as_str)
}

/// What one response part means to us.
#[derive(Debug)]
pub(super) enum PartKind {
    /// Visible text, and the signature that came on the part, if any.
    Text {
        text: String,
        signature: Option<String>,
    },
    /// A thought summary (`thought: true`).
    Thought {
        text: String,
        signature: Option<String>,
    },
    Call(ToolCall),
    /// Inline or referenced media (e.g. generated audio).
    Media(ContentPart),
    /// A part the unified model has no room for (`executableCode`, `codeExecutionResult`, …).
    Other,
}

/// Reads one part. `Err` says what was wrong with it.
pub(super) fn classify(part: &Value) -> Result<PartKind, String> {
    if !part.is_object() {
        return Err(format!("a response part should be an object, not {}", json_text::to_string(part)));
    }
    let signature = text(part, "thoughtSignature")?.map(str::to_owned);
    if let Some(call) = part.get("functionCall") {
        let name = text(call, "name")?.ok_or("a functionCall has no name")?;
        let id = text(call, "id")?;
        return Ok(PartKind::Call(tool_call(id, name, call.get("args"), signature)));
    }
    if let Some(blob) = part.get("inlineData") {
        let data = text(blob, "data")?.ok_or("inlineData has no data")?;
        let data = base64::decode(data).map_err(|e| format!("inlineData is not base64: {e}"))?;
        return Ok(PartKind::Media(media_part(MediaData { data: Some(data), media_type: mime(blob)?, ..MediaData::default() })));
    }
    if let Some(file) = part.get("fileData") {
        let url = text(file, "fileUri")?.ok_or("fileData has no fileUri")?.to_owned();
        return Ok(PartKind::Media(media_part(MediaData { url: Some(url), media_type: mime(file)?, ..MediaData::default() })));
    }
    let body = text(part, "text")?;
    if body.is_none() && signature.is_none() {
        return Ok(PartKind::Other);
    }
    let text = body.unwrap_or_default().to_owned();
    Ok(if part.get("thought") == Some(&Value::Bool(true)) {
        PartKind::Thought { text, signature }
    } else {
        PartKind::Text { text, signature }
    })
}

/// The name of a part's payload (`executableCode`), for reporting parts we do not translate.
pub(super) fn part_name(part: &Value) -> &str {
    part.as_object().and_then(|o| o.keys().find(|k| !k.starts_with("thought"))).map_or("unknown", String::as_str)
}

fn mime(media: &Value) -> Result<Option<String>, String> {
    Ok(text(media, "mimeType")?.map(str::to_owned))
}

fn tool_call(id: Option<&str>, name: &str, args: Option<&Value>, signature: Option<String>) -> ToolCall {
    // Gemini 3 assigns short ids; keep them (they are echoed back). Never adopt an id shaped like
    // our synthetic ones, or it would not be sent back.
    let id = id.filter(|id| !id.is_empty() && !is_synthetic_call_id(id)).map_or_else(synthetic_call_id, str::to_owned);
    let raw = args.filter(|a| !a.is_null()).map_or_else(|| "{}".to_owned(), json_text::to_string);
    let mut tool_call = ToolCall::from_raw(id, name, raw);
    tool_call.signature = signature;
    tool_call
}

fn media_part(media: MediaData) -> ContentPart {
    match media.media_type.as_deref().unwrap_or_default() {
        t if t.starts_with("image/") => ContentPart::Image { image: media },
        t if t.starts_with("audio/") => ContentPart::Audio { audio: media },
        _ => ContentPart::Document { document: media },
    }
}

/// Spec 3.8: Gemini's finish reason, and `tool_calls` when a `STOP` answer asked for functions.
pub(super) fn finish_reason(raw: Option<&str>, has_tool_calls: bool) -> FinishReason {
    let reason = match raw {
        Some("STOP") if has_tool_calls => Reason::ToolCalls,
        Some("STOP") => Reason::Stop,
        Some("MAX_TOKENS") => Reason::Length,
        Some("SAFETY" | "RECITATION" | "BLOCKLIST" | "PROHIBITED_CONTENT" | "SPII" | "IMAGE_SAFETY") => Reason::ContentFilter,
        _ => Reason::Other,
    };
    FinishReason::new(reason, raw)
}

/// Spec 3.9: `usageMetadata` as `Usage`. `candidatesTokenCount` excludes thoughts, which Gemini
/// counts apart in `thoughtsTokenCount`; output counts both, as the other providers report it
/// (reasoning is billed as output), so output means the same whichever model answered. The
/// total is Gemini's own (it also counts tool-use prompts).
pub(super) fn usage(metadata: &Value) -> Usage {
    let count = |name: &str| metadata.get(name).and_then(Value::as_u64);
    let (input, output, reasoning) =
        (count("promptTokenCount").unwrap_or(0), count("candidatesTokenCount").unwrap_or(0), count("thoughtsTokenCount"));
    Usage {
        input_tokens: input,
        output_tokens: output + reasoning.unwrap_or(0),
        total_tokens: count("totalTokenCount").unwrap_or(input + output + reasoning.unwrap_or(0)),
        reasoning_tokens: reasoning,
        cache_read_tokens: count("cachedContentTokenCount"),
        cache_write_tokens: None,
        cost_usd: None,
        raw: Some(metadata.clone()),
    }
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

    #[test]
    fn parts_are_classified() {
        assert!(matches!(classify(&json!({"text": "hi"})).unwrap(), PartKind::Text { text, signature: None } if text == "hi"));
        assert!(matches!(
            classify(&json!({"text": "hm", "thought": true, "thoughtSignature": "s"})).unwrap(),
            PartKind::Thought { text, signature: Some(s) } if text == "hm" && s == "s"
        ));
        assert!(matches!(
            classify(&json!({"text": "", "thoughtSignature": "s"})).unwrap(),
            PartKind::Text { text, signature: Some(_) } if text.is_empty()
        ));
        assert!(matches!(classify(&json!({"executableCode": {"code": "1"}})).unwrap(), PartKind::Other));
        assert!(classify(&json!({"text": 5})).is_err());
        assert!(classify(&json!({"inlineData": {"mimeType": "image/png", "data": "**"}})).is_err());
    }

    #[test]
    fn function_calls_keep_provider_ids_and_signatures_and_get_synthetic_ids_otherwise() {
        let PartKind::Call(call) = classify(
            &json!({"functionCall": {"name": "f", "args": {"b": 1, "a": "x"}, "id": "s3qm"}, "thoughtSignature": "sig"}),
        )
        .unwrap() else {
            panic!("not a call")
        };
        assert_eq!((call.id.as_str(), call.name.as_str(), call.signature.as_deref()), ("s3qm", "f", Some("sig")));
        assert_eq!(call.arguments, json!({"a": "x", "b": 1}));
        assert_eq!(serde_json::from_str::<Value>(call.raw_arguments.as_deref().unwrap()).unwrap(), call.arguments);
        let PartKind::Call(call) = classify(&json!({"functionCall": {"name": "g"}})).unwrap() else { panic!("not a call") };
        assert!(is_synthetic_call_id(&call.id));
        assert_eq!(call.arguments, json!({}));
    }

    #[test]
    fn media_parts_are_typed_by_mime_type() {
        let audio = classify(&json!({"inlineData": {"mimeType": "audio/L16;rate=24000", "data": "AAE="}})).unwrap();
        assert!(matches!(audio, PartKind::Media(ContentPart::Audio { audio }) if audio.data.as_deref() == Some(&[0u8, 1][..])));
        let image = classify(&json!({"fileData": {"mimeType": "image/png", "fileUri": "gs://b/x.png"}})).unwrap();
        assert!(matches!(image, PartKind::Media(ContentPart::Image { image }) if image.url.as_deref() == Some("gs://b/x.png")));
    }

    #[test]
    fn finish_reasons_map_as_spec_3_8_says() {
        let cases = [
            ("STOP", false, Reason::Stop),
            ("STOP", true, Reason::ToolCalls),
            ("MAX_TOKENS", false, Reason::Length),
            ("SAFETY", false, Reason::ContentFilter),
            ("RECITATION", false, Reason::ContentFilter),
            ("BLOCKLIST", false, Reason::ContentFilter),
            ("PROHIBITED_CONTENT", false, Reason::ContentFilter),
            ("SPII", false, Reason::ContentFilter),
            ("MALFORMED_FUNCTION_CALL", true, Reason::Other),
            ("OTHER", false, Reason::Other),
        ];
        for (raw, calls, reason) in cases {
            assert_eq!(finish_reason(Some(raw), calls), FinishReason::new(reason, Some(raw)), "{raw}");
        }
    }

    #[test]
    fn usage_maps_as_spec_3_9_says() {
        let metadata = json!({"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 40,
            "thoughtsTokenCount": 25, "cachedContentTokenCount": 4});
        let usage = usage(&metadata);
        assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (10, 30, 40));
        assert_eq!((usage.reasoning_tokens, usage.cache_read_tokens, usage.cache_write_tokens), (Some(25), Some(4), None));
        assert_eq!(usage.raw, Some(metadata));
        let sparse = super::usage(&json!({"promptTokenCount": 10}));
        assert_eq!((sparse.output_tokens, sparse.total_tokens, sparse.reasoning_tokens), (0, 10, None));
    }
}
