//! Gemini's answer on the wire (a `GenerateContentResponse`, whole or one stream chunk), and the
//! translations the whole-body parser and the stream decoder share, so both read a part, a finish
//! reason and usage the same way.

use serde::Deserialize;
use serde_json::Value;

use super::{is_synthetic_call_id, synthetic_call_id};
use crate::llm::base64;
use crate::llm::types::{ContentPart, FinishReason, MediaData, Reason, ToolCall, Usage};

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct GenerateContentResponse {
    #[serde(default)]
    pub candidates: Vec<Candidate>,
    pub usage_metadata: Option<Value>,
    pub model_version: Option<String>,
    pub response_id: Option<String>,
    pub prompt_feedback: Option<PromptFeedback>,
    /// Set when the body (or a stream chunk) is an error rather than an answer.
    pub error: Option<Value>,
}

impl GenerateContentResponse {
    /// The candidate we answer with: index 0 (with `candidateCount` > 1 the others are ignored).
    pub fn into_first_candidate(self) -> Option<Candidate> {
        self.candidates.into_iter().find(|c| c.index.unwrap_or(0) == 0)
    }

    /// The block reason when the prompt itself was refused: no candidates, only feedback.
    pub fn blocked_prompt(&self) -> Option<&str> {
        let reason = self.prompt_feedback.as_ref()?.block_reason.as_deref()?;
        self.candidates.is_empty().then_some(reason)
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Candidate {
    pub content: Option<Content>,
    pub finish_reason: Option<String>,
    pub index: Option<u32>,
}

impl Candidate {
    pub fn parts(&self) -> &[Value] {
        self.content.as_ref().map_or(&[], |c| c.parts.as_slice())
    }
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Content {
    /// Kept as JSON so a part we cannot translate can still be reported whole.
    #[serde(default)]
    pub parts: Vec<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct PromptFeedback {
    pub block_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Part {
    text: Option<String>,
    thought: Option<bool>,
    thought_signature: Option<String>,
    function_call: Option<FunctionCall>,
    inline_data: Option<Blob>,
    file_data: Option<FileData>,
}

#[derive(Debug, Deserialize)]
struct FunctionCall {
    name: String,
    args: Option<Value>,
    id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Blob {
    mime_type: Option<String>,
    data: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct FileData {
    mime_type: Option<String>,
    file_uri: String,
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

/// Reads one part. `Err` carries what was wrong with it.
pub(super) fn classify(part: &Value) -> Result<PartKind, String> {
    let part = Part::deserialize(part).map_err(|e| format!("a response part is malformed: {e}"))?;
    if let Some(call) = part.function_call {
        return Ok(PartKind::Call(tool_call(call, part.thought_signature)));
    }
    if let Some(blob) = part.inline_data {
        let data = base64::decode(&blob.data).map_err(|e| format!("inlineData is not base64: {e}"))?;
        return Ok(PartKind::Media(media_part(MediaData {
            data: Some(data),
            media_type: blob.mime_type,
            ..MediaData::default()
        })));
    }
    if let Some(file) = part.file_data {
        return Ok(PartKind::Media(media_part(MediaData {
            url: Some(file.file_uri),
            media_type: file.mime_type,
            ..MediaData::default()
        })));
    }
    if part.text.is_none() && part.thought_signature.is_none() {
        return Ok(PartKind::Other);
    }
    let (text, signature) = (part.text.unwrap_or_default(), part.thought_signature);
    Ok(if part.thought == Some(true) { PartKind::Thought { text, signature } } else { PartKind::Text { text, signature } })
}

/// The name of a part's payload (`executableCode`), for reporting parts we do not translate.
pub(super) fn part_name(part: &Value) -> &str {
    part.as_object().and_then(|o| o.keys().find(|k| !k.starts_with("thought"))).map_or("unknown", String::as_str)
}

fn tool_call(call: FunctionCall, signature: Option<String>) -> ToolCall {
    // Gemini 3 assigns short ids; keep them (they are echoed back). Never adopt an id shaped like
    // our synthetic ones, or it would not be sent back.
    let id = call.id.filter(|id| !id.is_empty() && !is_synthetic_call_id(id)).unwrap_or_else(synthetic_call_id);
    let args = call.args.unwrap_or_else(|| Value::Object(Default::default()));
    let mut tool_call = ToolCall::from_raw(id, call.name, args.to_string());
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
/// counts apart in `thoughtsTokenCount`; the total is Gemini's own (it also counts tool-use prompts).
pub(super) fn usage(metadata: &Value) -> Usage {
    let count = |name: &str| metadata.get(name).and_then(Value::as_u64);
    let (input, output, reasoning) =
        (count("promptTokenCount").unwrap_or(0), count("candidatesTokenCount").unwrap_or(0), count("thoughtsTokenCount"));
    Usage {
        input_tokens: input,
        output_tokens: output,
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
        assert_eq!((usage.input_tokens, usage.output_tokens, usage.total_tokens), (10, 5, 40));
        assert_eq!((usage.reasoning_tokens, usage.cache_read_tokens, usage.cache_write_tokens), (Some(25), Some(4), None));
        assert_eq!(usage.raw, Some(metadata));
        let sparse = super::usage(&json!({"promptTokenCount": 10}));
        assert_eq!((sparse.output_tokens, sparse.total_tokens, sparse.reasoning_tokens), (0, 10, None));
    }
}
