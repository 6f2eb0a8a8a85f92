//! Streamed answers (spec 7.7): `streamGenerateContent` sends the same `GenerateContentResponse`
//! chunks either as SSE `data:` events (`?alt=sse`) or as one JSON array; the first non-blank byte
//! tells which. Gemini has no end event, so `Finish` goes out when the body ends, with the last
//! finish reason and usage seen.

use serde_json::Value;

use super::response::{self, Answer, PartKind};
use super::{error, PROVIDER};
use crate::codec::StreamDecoder;
use crate::error::{ErrorKind, LlmError};
use crate::json_text;
use crate::sse::SseDecoder;
use crate::stream::StreamEvent;

const BOM: &[u8] = b"\xEF\xBB\xBF";

#[derive(Debug, Default)]
pub(super) struct Decoder {
    framing: Framing,
    events: Translator,
}

#[derive(Debug)]
enum Framing {
    /// Nothing but blanks yet: the bytes so far.
    Undecided(Vec<u8>),
    Sse(SseDecoder),
    Json(JsonSplitter),
}

impl Default for Framing {
    fn default() -> Self {
        Self::Undecided(Vec::new())
    }
}

impl StreamDecoder for Decoder {
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        if self.events.over {
            return Ok(());
        }
        let mut chunks = Vec::new();
        let framed = self.framing.push(bytes, &mut chunks);
        self.translate(framed, chunks, out)
    }

    fn end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        if self.events.over {
            return Ok(());
        }
        let mut chunks = Vec::new();
        let framed = self.framing.finish(&mut chunks);
        self.translate(framed, chunks, out).and_then(|()| self.events.finish(out))
    }
}

impl Decoder {
    /// Translates the chunks framed so far, then reports a framing error, if there was one.
    fn translate(
        &mut self,
        framed: Result<(), String>,
        chunks: Vec<Vec<u8>>,
        out: &mut Vec<StreamEvent>,
    ) -> Result<(), LlmError> {
        let mut result = Ok(());
        for chunk in &chunks {
            if self.events.over {
                break;
            }
            result = self.events.chunk(chunk, out);
            if result.is_err() {
                break;
            }
        }
        let result = result.and(framed.map_err(|e| error::malformed(ErrorKind::Stream, e)));
        if result.is_err() {
            self.events.over = true;
        }
        result
    }
}

impl Framing {
    /// Frames `bytes` into whole chunks of JSON.
    fn push(&mut self, bytes: &[u8], chunks: &mut Vec<Vec<u8>>) -> Result<(), String> {
        match self {
            Self::Undecided(seen) => {
                seen.extend_from_slice(bytes);
                let start = if seen.starts_with(BOM) { BOM.len() } else { 0 };
                if BOM.starts_with(seen) {
                    return Ok(()); // maybe the start of a byte-order mark
                }
                let Some(&first) = seen[start..].iter().find(|b| !b.is_ascii_whitespace()) else { return Ok(()) };
                let seen = std::mem::take(seen);
                if matches!(first, b'[' | b'{') {
                    *self = Self::Json(JsonSplitter::default());
                    self.push(&seen[start..], chunks)
                } else {
                    *self = Self::Sse(SseDecoder::new());
                    self.push(&seen, chunks)
                }
            }
            Self::Sse(decoder) => {
                let mut events = Vec::new();
                decoder.push(bytes, &mut events);
                chunks.extend(events.into_iter().map(|e| e.data.into_bytes()).filter(|d| !d.is_empty()));
                Ok(())
            }
            Self::Json(splitter) => splitter.push(bytes, chunks),
        }
    }

    /// The body ended: whatever is still framed.
    fn finish(&mut self, chunks: &mut Vec<Vec<u8>>) -> Result<(), String> {
        match self {
            Self::Undecided(_) => Ok(()),
            Self::Sse(decoder) => {
                let mut events = Vec::new();
                decoder.finish(&mut events);
                chunks.extend(events.into_iter().map(|e| e.data.into_bytes()).filter(|d| !d.is_empty()));
                Ok(())
            }
            Self::Json(splitter) => splitter.finish(),
        }
    }
}

/// Splits a JSON array of objects (or objects one after another) into the objects' bytes as each
/// one completes, whatever the chunking. Bytes of multi-byte characters never look like the ASCII
/// structure it counts, so it works on raw bytes.
#[derive(Debug, Default)]
struct JsonSplitter {
    object: Vec<u8>,
    depth: usize,
    in_string: bool,
    escaped: bool,
}

impl JsonSplitter {
    fn push(&mut self, bytes: &[u8], chunks: &mut Vec<Vec<u8>>) -> Result<(), String> {
        for &b in bytes {
            if self.depth == 0 {
                match b {
                    b'{' => {
                        self.depth = 1;
                        self.object.push(b);
                    }
                    // The array around the objects, the commas between them, blanks.
                    b'[' | b']' | b',' => {}
                    b if b.is_ascii_whitespace() => {}
                    b => return Err(format!("unexpected {} between JSON chunks", json_text::quote(&char::from(b).to_string()))),
                }
                continue;
            }
            self.object.push(b);
            if self.in_string {
                match b {
                    _ if self.escaped => self.escaped = false,
                    b'\\' => self.escaped = true,
                    b'"' => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.depth += 1,
                b'}' | b']' => {
                    self.depth -= 1;
                    if self.depth == 0 {
                        chunks.push(std::mem::take(&mut self.object));
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn finish(&self) -> Result<(), String> {
        if self.depth > 0 {
            return Err("the body ended inside a JSON chunk".into());
        }
        Ok(())
    }
}

/// Turns chunks into unified events. Text and reasoning segments stay open across chunks until
/// another kind of part, a signature or the candidate's finish closes them.
#[derive(Debug, Default)]
struct Translator {
    started: bool,
    /// An error was reported (or the stream finished): nothing more is emitted.
    over: bool,
    open_text: Option<String>,
    open_reasoning: Option<String>,
    segments: usize,
    has_tool_calls: bool,
    finish_reason: Option<String>,
    usage: Option<Value>,
}

impl Translator {
    fn chunk(&mut self, bytes: &[u8], out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let malformed =
            |e: &dyn std::fmt::Display| error::malformed(ErrorKind::Stream, format!("a stream chunk is not valid: {e}"));
        let raw: Value = serde_json::from_slice(bytes).map_err(|e| malformed(&e))?;
        let chunk = Answer(&raw);
        chunk.check().map_err(|e| malformed(&e))?;
        if chunk.is_error() {
            return self.fail(error::from_event(raw.clone()), out);
        }
        if !self.started {
            self.started = true;
            out.push(StreamEvent::StreamStart { id: chunk.id(), model: chunk.model(), warnings: vec![] });
        }
        if let Some(reason) = chunk.blocked_prompt() {
            return self.fail(error::prompt_blocked(reason), out);
        }
        if let Some(usage) = chunk.usage() {
            self.usage = Some(usage.clone());
        }
        let candidate = chunk.candidate();
        for part in response::parts(candidate) {
            self.part(part, out).map_err(|e| malformed(&e))?;
        }
        if let Some(reason) = response::finish_reason_of(candidate) {
            self.close_text(out);
            self.close_reasoning(None, out);
            self.finish_reason = Some(reason.to_owned());
        }
        Ok(())
    }

    fn part(&mut self, part: &Value, out: &mut Vec<StreamEvent>) -> Result<(), String> {
        match response::classify(part)? {
            PartKind::Thought { text, signature } => {
                self.close_text(out);
                let id = self.open_reasoning(out);
                if !text.is_empty() {
                    out.push(StreamEvent::ReasoningDelta { id, delta: text });
                }
                // A signed thought ends its segment, so the signature stays with the text it signs.
                if signature.is_some() {
                    self.close_reasoning(signature, out);
                }
            }
            PartKind::Text { text, signature } => {
                self.close_reasoning(None, out);
                if !text.is_empty() {
                    let text_id = self.open_text(out);
                    out.push(StreamEvent::TextDelta { text_id, delta: text });
                }
                if let Some(signature) = signature {
                    // The same shape as a whole answer: the text, then an empty, signed reasoning
                    // segment (the signature carrier).
                    self.close_text(out);
                    let id = self.next_id("reasoning");
                    out.push(StreamEvent::ReasoningStart { id: id.clone() });
                    out.push(StreamEvent::ReasoningEnd { id, signature: Some(signature) });
                }
            }
            PartKind::Call(tool_call) => {
                self.close_text(out);
                self.close_reasoning(None, out);
                self.has_tool_calls = true;
                let (call_id, name) = (tool_call.id.clone(), tool_call.name.clone());
                out.push(StreamEvent::ToolCallStart { call_id: call_id.clone(), name });
                out.push(StreamEvent::ToolCallDelta { call_id, delta: tool_call.raw_arguments.clone().unwrap_or_default() });
                out.push(StreamEvent::ToolCallEnd { tool_call });
            }
            // Media and built-in tool parts have no unified stream event: pass them through.
            PartKind::Media(_) | PartKind::Other => out.push(StreamEvent::ProviderEvent { raw: part.clone() }),
        }
        Ok(())
    }

    fn next_id(&mut self, kind: &str) -> String {
        self.segments += 1;
        format!("{kind}_{}", self.segments)
    }

    fn open_text(&mut self, out: &mut Vec<StreamEvent>) -> String {
        if let Some(id) = &self.open_text {
            return id.clone();
        }
        let id = self.next_id("text");
        out.push(StreamEvent::TextStart { text_id: id.clone() });
        self.open_text = Some(id.clone());
        id
    }

    fn close_text(&mut self, out: &mut Vec<StreamEvent>) {
        if let Some(text_id) = self.open_text.take() {
            out.push(StreamEvent::TextEnd { text_id });
        }
    }

    fn open_reasoning(&mut self, out: &mut Vec<StreamEvent>) -> String {
        if let Some(id) = &self.open_reasoning {
            return id.clone();
        }
        let id = self.next_id("reasoning");
        out.push(StreamEvent::ReasoningStart { id: id.clone() });
        self.open_reasoning = Some(id.clone());
        id
    }

    fn close_reasoning(&mut self, signature: Option<String>, out: &mut Vec<StreamEvent>) {
        if let Some(id) = self.open_reasoning.take() {
            out.push(StreamEvent::ReasoningEnd { id, signature });
        }
    }

    /// Reports a provider error as the stream's last event; the stream itself decoded fine.
    fn fail(&mut self, error: LlmError, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        self.over = true;
        out.push(StreamEvent::Error { error });
        Ok(())
    }

    /// The body ended: close what is open and finish, or say the answer was cut short.
    fn finish(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        self.over = true;
        self.close_text(out);
        self.close_reasoning(None, out);
        let Some(raw) = self.finish_reason.take() else {
            return Err(LlmError::new(
                ErrorKind::Stream,
                "the Gemini stream ended before the answer finished (no finishReason arrived)",
            )
            .with_provider(PROVIDER));
        };
        let usage = self.usage.as_ref().map(response::usage).unwrap_or_default();
        out.push(StreamEvent::Finish { finish_reason: response::finish_reason(Some(&raw), self.has_tool_calls), usage });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::stream::StreamAccumulator;
    use crate::types::{ContentPart, Reason};
    use serde_json::json;

    fn chunks() -> Vec<Value> {
        let usage = |out: u64| json!({"promptTokenCount": 5, "candidatesTokenCount": out, "totalTokenCount": 20 + out, "thoughtsTokenCount": 15});
        vec![
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Let me think — é€😀", "thought": true}]}, "index": 0}],
                   "usageMetadata": usage(0), "modelVersion": "gemini-3-flash-preview", "responseId": "resp-1"}),
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "Hel"}]}, "index": 0}], "usageMetadata": usage(1)}),
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "lo \"quoted\" {braces} [x]\\"}]}, "index": 0}]}),
            json!({"candidates": [{"content": {"role": "model", "parts": [
                {"functionCall": {"name": "get_weather", "args": {"location": "Tokyo"}, "id": "c1"}, "thoughtSignature": "sig-call"}]}}]}),
            json!({"candidates": [{"content": {"role": "model", "parts": [{"text": "", "thoughtSignature": "sig-text"}]},
                   "finishReason": "STOP", "index": 0}], "usageMetadata": usage(9)}),
        ]
    }

    fn sse(chunks: &[Value]) -> Vec<u8> {
        chunks.iter().map(|c| format!("data: {c}\r\n\r\n")).collect::<String>().into_bytes()
    }

    fn decode(body: &[u8], piece: usize) -> Result<Vec<StreamEvent>, (Vec<StreamEvent>, LlmError)> {
        let mut decoder = Decoder::default();
        let mut out = Vec::new();
        for chunk in body.chunks(piece.max(1)) {
            if let Err(e) = decoder.feed(chunk, &mut out) {
                return Err((out, e));
            }
        }
        decoder.end(&mut out).map(|()| out.clone()).map_err(|e| (out, e))
    }

    #[test]
    fn sse_and_json_array_bodies_decode_to_the_same_events_at_any_split() {
        let chunks = chunks();
        let expected = decode(&sse(&chunks), usize::MAX).unwrap();
        let array = format!("\u{FEFF} \n{}", serde_json::to_string_pretty(&chunks).unwrap()).into_bytes();
        for body in [sse(&chunks), array] {
            for piece in 1..=body.len().min(300) {
                assert_eq!(decode(&body, piece).unwrap(), expected, "split every {piece} bytes");
            }
        }
    }

    #[test]
    fn events_follow_start_delta_end_and_finish_once() {
        let events = decode(&sse(&chunks()), 7).unwrap();
        let kinds: Vec<String> =
            events.iter().map(|e| serde_json::to_value(e).unwrap()["type"].as_str().unwrap().to_owned()).collect();
        assert_eq!(
            kinds,
            [
                "stream_start",
                "reasoning_start",
                "reasoning_delta",
                "reasoning_end",
                "text_start",
                "text_delta",
                "text_delta",
                "text_end",
                "tool_call_start",
                "tool_call_delta",
                "tool_call_end",
                "reasoning_start",
                "reasoning_end",
                "finish"
            ]
        );
        let mut acc = StreamAccumulator::new();
        events.iter().for_each(|e| acc.push(e.clone()));
        let response = acc.finish("gemini").unwrap();
        assert_eq!((response.id.as_str(), response.model.as_str()), ("resp-1", "gemini-3-flash-preview"));
        assert_eq!(response.text(), "Hello \"quoted\" {braces} [x]\\");
        assert_eq!(response.reasoning().as_deref(), Some("Let me think — é€😀"));
        let call = &response.tool_calls()[0];
        assert_eq!(
            (call.id.as_str(), call.signature.as_deref(), &call.arguments),
            ("c1", Some("sig-call"), &json!({"location": "Tokyo"}))
        );
        assert!(matches!(response.message.content.last(), Some(ContentPart::Thinking { thinking })
            if thinking.text.is_empty() && thinking.signature.as_deref() == Some("sig-text")));
        assert_eq!(response.finish_reason.reason, Reason::ToolCalls);
        assert_eq!(
            (response.usage.output_tokens, response.usage.total_tokens, response.usage.reasoning_tokens),
            (24, 29, Some(15))
        );
    }

    #[test]
    fn a_signed_thought_closes_its_segment_so_the_signature_stays_with_it() {
        let thought = |text: &str, signature: Option<&str>| {
            let mut part = json!({"text": text, "thought": true});
            if let Some(signature) = signature {
                part["thoughtSignature"] = json!(signature);
            }
            json!({"candidates": [{"content": {"parts": [part]}}]})
        };
        let finish = json!({"candidates": [{"content": {"parts": [{"text": "ok"}]}, "finishReason": "STOP"}]});
        let events = decode(&sse(&[thought("a", None), thought("b", Some("sig-ab")), thought("c", None), finish]), 6).unwrap();
        let mut acc = StreamAccumulator::new();
        events.iter().for_each(|e| acc.push(e.clone()));
        let thoughts: Vec<(String, Option<String>)> = acc
            .finish("gemini")
            .unwrap()
            .message
            .content
            .into_iter()
            .filter_map(|p| match p {
                ContentPart::Thinking { thinking } => Some((thinking.text, thinking.signature)),
                _ => None,
            })
            .collect();
        assert_eq!(thoughts, [("ab".to_owned(), Some("sig-ab".to_owned())), ("c".to_owned(), None)]);
    }

    #[test]
    fn an_error_event_mid_stream_ends_the_stream() {
        let mut chunks = chunks();
        chunks.insert(2, json!({"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}));
        let events = decode(&sse(&chunks), 5).unwrap();
        let Some(StreamEvent::Error { error }) = events.last() else { panic!("no error event: {events:?}") };
        assert_eq!((error.kind, error.error_code.as_deref()), (ErrorKind::Server, Some("UNAVAILABLE")));
        assert!(!events.iter().any(|e| matches!(e, StreamEvent::Finish { .. })));
    }

    #[test]
    fn a_blocked_prompt_is_an_error_event() {
        let body =
            sse(&[json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}, "usageMetadata": {"promptTokenCount": 3}})]);
        let events = decode(&body, 3).unwrap();
        assert!(matches!(events.last(), Some(StreamEvent::Error { error }) if error.kind == ErrorKind::ContentFilter));
    }

    #[test]
    fn malformed_and_cut_short_bodies_are_stream_errors() {
        let cases: [&[u8]; 5] = [
            b"data: {\"candidates\": [\r\n\r\n",
            b"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": 7}]}}]}\n\n",
            b"[{\"candidates\": []}, {\"candidates\": [{\"content\"",
            b"[{\"candidates\": []}, nonsense]",
            b"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"no finish\"}]}}]}\n\n",
        ];
        for body in cases {
            let (_, error) = decode(body, 4).unwrap_err();
            assert_eq!(error.kind, ErrorKind::Stream, "{}", String::from_utf8_lossy(body));
        }
        assert_eq!(decode(b"", 1).unwrap_err().1.kind, ErrorKind::Stream);
    }

    #[test]
    fn parts_without_a_unified_event_pass_through() {
        let body = sse(&[json!({"candidates": [{"content": {"parts": [
            {"executableCode": {"language": "PYTHON", "code": "print(1)"}},
            {"inlineData": {"mimeType": "audio/wav", "data": "AAA="}}]}, "finishReason": "STOP"}]})]);
        let events = decode(&body, 9).unwrap();
        assert_eq!(events.iter().filter(|e| matches!(e, StreamEvent::ProviderEvent { .. })).count(), 2);
        assert!(matches!(events.last(), Some(StreamEvent::Finish { .. })));
    }

    #[test]
    fn calls_without_ids_get_distinct_synthetic_ones() {
        let call = json!({"functionCall": {"name": "f", "args": {}}});
        let body = sse(&[json!({"candidates": [{"content": {"parts": [call, call]}, "finishReason": "STOP"}]})]);
        let ids: Vec<String> = decode(&body, 11)
            .unwrap()
            .into_iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallEnd { tool_call } => Some(tool_call.id),
                _ => None,
            })
            .collect();
        assert_eq!(ids.len(), 2);
        assert_ne!(ids[0], ids[1]);
        assert!(ids.iter().all(|id| super::super::is_synthetic_call_id(id)));
    }
}
