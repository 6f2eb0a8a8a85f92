//! Gemini's answer on the wire (a `GenerateContentResponse`, whole or one stream chunk), and the
//! translations the whole-body parser and the stream decoder share, so both read a part, a finish
//! reason and usage the same way.
//!
//! The body is read as a `serde_json::Value` through small accessors rather than derived serde
//! structs: derived deserializers cost several times more in the browser bundle (DESIGN.md).

use serde_json::Value;

use super::{is_synthetic_call_id, synthetic_call_id};
use crate::llm::base64;
use crate::llm::types::{ContentPart, FinishReason, MediaData, Reason, ToolCall, Usage};

/// A string field: absent is `None`, another type is an error.
pub(super) fn text<'a>(value: &'a Value, key: &str) -> Result<Option<&'a str>, String> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(format!("`{key}` should be a string, not {other}")),
    }
}

/// One chunk (or whole body) of an answer.
pub(super) struct Answer<'a>(pub &'a Value);

impl<'a> Answer<'a> {
    pub fn check(&self) -> Result<(), String> {
        if !self.0.is_object() {
            return Err(format!("expected an object, got {}", self.0));
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
        let reason = self.0.pointer("/promptFeedback/blockReason").and_then(Value::as_str)?;
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
    candidate.and_then(|c| c.pointer("/content/parts")).and_then(Value::as_array).map_or(&[], Vec::as_slice)
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
        return Err(format!("a response part should be an object, not {part}"));
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
    let raw = args.filter(|a| !a.is_null()).map_or_else(|| "{}".to_owned(), Value::to_string);
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
        raw: Some(metadata.clone()),
    }
}
#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use serde_json::json;

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
