//! Chat Completions SSE -> unified [`StreamEvent`]s (spec 7.7).
//!
//! Each `data:` frame is one `chat.completion.chunk`: `choices[0].delta` carries `content`,
//! `reasoning_content` (or `reasoning`) and `tool_calls` fragments keyed by `index` (id and name
//! first, argument text after; some servers send a whole call at once); `finish_reason` comes in
//! the last choice chunk, usage in a chunk of its own after it (when `include_usage` was asked)
//! and `data: [DONE]` ends the stream. Servers also end without `[DONE]` or without usage, and
//! put `{error: ...}` frames in the middle of a stream.

use serde_json::Value;

use super::error::{embedded_error, is_error};
use super::response::{
    arguments_text, message_text, reasoning_text, synthetic_call_id, text, unified_reason, usage_from, usage_missing,
};
use crate::codec::StreamDecoder;
use crate::error::{snippet, ErrorKind, LlmError};
use crate::json::object;
use crate::sse::{SseDecoder, SseEvent};
use crate::stream::StreamEvent;
use crate::types::{FinishReason, ToolCall, Usage};

/// A tool call being assembled from fragments.
#[derive(Debug, Default)]
struct PendingCall {
    id: Option<String>,
    name: String,
    arguments: String,
    /// `ToolCallStart` went out (it waits for the name).
    started: bool,
    ended: bool,
}

#[derive(Debug)]
pub(super) struct Decoder {
    provider: String,
    sse: SseDecoder,
    started: bool,
    id: String,
    model: Option<String>,
    /// Segment ids are numbered so a segment reopened after another gets a new one.
    segments: usize,
    open_text: Option<String>,
    open_reasoning: Option<String>,
    calls: Vec<PendingCall>,
    /// Wire `index` -> position in `calls`.
    /// Which call each `index` names (a handful: a linear search is smaller than a map).
    by_index: Vec<(u64, usize)>,
    finish_reason: Option<String>,
    usage: Option<Value>,
    /// `Finish` or `Error` went out: the stream is over and anything after is ignored.
    done: bool,
}

impl Decoder {
    pub fn new(provider: &str) -> Self {
        Self {
            provider: provider.to_owned(),
            sse: SseDecoder::new(),
            started: false,
            id: String::new(),
            model: None,
            segments: 0,
            open_text: None,
            open_reasoning: None,
            calls: Vec::new(),
            by_index: Vec::new(),
            finish_reason: None,
            usage: None,
            done: false,
        }
    }

    fn event(&mut self, event: SseEvent, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let data = event.data.trim();
        if self.done || data.is_empty() {
            return Ok(());
        }
        if data == "[DONE]" {
            self.finish(out);
            return Ok(());
        }
        // `from_slice`, as response bodies are read: `from_str` would put a second JSON reader in the browser bundle.
        let chunk: Value = match serde_json::from_slice(data.as_bytes()) {
            Ok(chunk) => chunk,
            // An `event: error` frame may hold plain text: that text is the message.
            Err(_) if event.event.as_deref() == Some("error") => Value::String(data.to_owned()),
            Err(e) => {
                self.done = true;
                return Err(LlmError::new(
                    ErrorKind::Stream,
                    format!("{} sent a stream event that is not valid JSON ({e}): {}", self.provider, snippet(data)),
                )
                .with_provider(&self.provider));
            }
        };
        if event.event.as_deref() == Some("error") || is_error(&chunk) {
            let value = if chunk.is_object() { chunk } else { object(vec![("error", chunk)]) };
            out.push(StreamEvent::Error { error: embedded_error(&self.provider, value) });
            self.done = true;
            return Ok(());
        }
        self.chunk(&chunk, out);
        Ok(())
    }

    fn chunk(&mut self, chunk: &Value, out: &mut Vec<StreamEvent>) {
        if !self.started {
            self.started = true;
            self.id = text(chunk.get("id")).unwrap_or_default();
            self.model = text(chunk.get("model"));
            out.push(StreamEvent::StreamStart { id: Some(self.id.clone()), model: self.model.clone(), warnings: Vec::new() });
        }
        // Only the first choice is the answer (we never ask for `n` > 1).
        let choices = chunk.get("choices").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        if let Some(choice) = choices.iter().find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0) {
            if let Some(delta) = choice.get("delta") {
                self.delta(delta, out);
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish_reason = Some(reason.to_owned());
                // Nothing more comes for this choice: its calls are complete.
                self.close_segments(out);
            }
        }
        // The usage chunk (choices empty) follows the finish; some servers send running usage in
        // every chunk, so the last one wins.
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            self.usage = Some(usage.clone());
        }
    }

    fn delta(&mut self, delta: &Value, out: &mut Vec<StreamEvent>) {
        if let Some(reasoning) = reasoning_text(delta) {
            if let Some(id) = self.open_text.take() {
                out.push(StreamEvent::TextEnd { text_id: id });
            }
            let id = match &self.open_reasoning {
                Some(id) => id.clone(),
                None => {
                    let id = self.next_segment("reasoning");
                    out.push(StreamEvent::ReasoningStart { id: id.clone() });
                    self.open_reasoning = Some(id.clone());
                    id
                }
            };
            out.push(StreamEvent::ReasoningDelta { id, delta: reasoning.to_owned() });
        }
        let content = message_text(delta);
        if !content.is_empty() {
            if let Some(id) = self.open_reasoning.take() {
                out.push(StreamEvent::ReasoningEnd { id, signature: None });
            }
            let text_id = match &self.open_text {
                Some(id) => id.clone(),
                None => {
                    let id = self.next_segment("text");
                    out.push(StreamEvent::TextStart { text_id: id.clone() });
                    self.open_text = Some(id.clone());
                    id
                }
            };
            out.push(StreamEvent::TextDelta { text_id, delta: content });
        }
        for fragment in delta.get("tool_calls").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default() {
            self.tool_call_fragment(fragment, out);
        }
    }

    fn next_segment(&mut self, kind: &str) -> String {
        self.segments += 1;
        format!("{kind}-{}", self.segments)
    }

    fn tool_call_fragment(&mut self, fragment: &Value, out: &mut Vec<StreamEvent>) {
        let id = text(fragment.get("id"));
        let function = fragment.get("function").unwrap_or(&Value::Null);
        let slot = self.slot(fragment.get("index").and_then(Value::as_u64), id.as_deref());
        let Some(call) = self.calls.get_mut(slot) else {
            return;
        };
        if call.id.is_none() {
            call.id = id;
        }
        if call.name.is_empty() {
            call.name = text(function.get("name")).unwrap_or_default();
        }
        let arguments = arguments_text(function.get("arguments"));
        call.arguments.push_str(&arguments);
        if !call.started && !call.name.is_empty() {
            self.start_call(slot, out);
        } else if call.started && !arguments.is_empty() {
            let call_id = call.id.clone().unwrap_or_default();
            out.push(StreamEvent::ToolCallDelta { call_id, delta: arguments });
        }
    }

    /// Where a fragment belongs: by `index`, unless it brings a new id for an index already in
    /// use (servers that number every parallel call 0); by id when there is no index; else the
    /// last call.
    fn slot(&mut self, index: Option<u64>, id: Option<&str>) -> usize {
        let known = match index {
            Some(index) => self.by_index.iter().find(|(i, _)| *i == index).map(|(_, slot)| *slot),
            None => id.and_then(|id| self.calls.iter().position(|c| c.id.as_deref() == Some(id))),
        };
        let same_call = |slot: usize| match (id, self.calls.get(slot).and_then(|c| c.id.as_deref())) {
            (Some(new), Some(old)) => new == old,
            _ => true,
        };
        let slot = match known {
            Some(slot) if same_call(slot) => slot,
            None if index.is_none() && id.is_none() && !self.calls.is_empty() => self.calls.len() - 1,
            _ => {
                self.calls.push(PendingCall::default());
                self.calls.len() - 1
            }
        };
        if let Some(index) = index {
            self.by_index.retain(|(i, _)| *i != index);
            self.by_index.push((index, slot));
        }
        slot
    }

    fn start_call(&mut self, slot: usize, out: &mut Vec<StreamEvent>) {
        let response_id = self.id.clone();
        let Some(call) = self.calls.get_mut(slot) else {
            return;
        };
        let call_id = call.id.get_or_insert_with(|| synthetic_call_id(&response_id, slot)).clone();
        call.started = true;
        out.push(StreamEvent::ToolCallStart { call_id: call_id.clone(), name: call.name.clone() });
        // Argument text that came before the name.
        if !call.arguments.is_empty() {
            out.push(StreamEvent::ToolCallDelta { call_id, delta: call.arguments.clone() });
        }
    }

    /// Ends the open text and reasoning, and every call not yet ended, in the order they began.
    fn close_segments(&mut self, out: &mut Vec<StreamEvent>) {
        if let Some(id) = self.open_reasoning.take() {
            out.push(StreamEvent::ReasoningEnd { id, signature: None });
        }
        if let Some(text_id) = self.open_text.take() {
            out.push(StreamEvent::TextEnd { text_id });
        }
        for slot in 0..self.calls.len() {
            if self.calls.get(slot).is_some_and(|c| !c.started) {
                self.start_call(slot, out);
            }
            if let Some(call) = self.calls.get_mut(slot).filter(|c| !c.ended) {
                call.ended = true;
                let id = call.id.clone().unwrap_or_default();
                out.push(StreamEvent::ToolCallEnd {
                    tool_call: ToolCall::from_raw(id, call.name.clone(), call.arguments.clone()),
                });
            }
        }
    }

    /// The one `Finish`: after `[DONE]`, or at the end of a body that had a finish reason.
    fn finish(&mut self, out: &mut Vec<StreamEvent>) {
        self.close_segments(out);
        let raw = self.finish_reason.as_deref();
        let finish_reason = FinishReason::new(unified_reason(raw, !self.calls.is_empty()), raw);
        let usage = match &self.usage {
            Some(raw) => usage_from(raw),
            None => {
                // `Finish` has no room for warnings, and the accumulator merges repeated starts:
                // a second start with the same id and model carries the warning to the response.
                let warnings = vec![usage_missing()];
                out.push(StreamEvent::StreamStart { id: Some(self.id.clone()), model: self.model.clone(), warnings });
                Usage::default()
            }
        };
        out.push(StreamEvent::Finish { finish_reason, usage });
        self.done = true;
    }
}

impl StreamDecoder for Decoder {
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        if self.done {
            return Ok(());
        }
        let mut events = Vec::new();
        self.sse.push(bytes, &mut events);
        events.into_iter().try_for_each(|event| self.event(event, out))
    }

    fn end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let mut events = Vec::new();
        self.sse.finish(&mut events);
        events.into_iter().try_for_each(|event| self.event(event, out))?;
        if self.done {
            return Ok(());
        }
        if self.finish_reason.is_some() {
            // No `[DONE]` (llama.cpp and others close after the last chunk), but the model said
            // it was done.
            self.finish(out);
            return Ok(());
        }
        self.done = true;
        Err(LlmError::new(
            ErrorKind::Stream,
            format!("the {} stream ended before the model finished (no finish_reason, no [DONE])", self.provider),
        )
        .with_provider(&self.provider))
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::stream::StreamAccumulator;
    use crate::types::{ContentPart, Reason, Response};
    use serde_json::json;

    /// SSE bytes as OpenAI frames them: one `data:` line per chunk, a blank line after each.
    fn sse(chunks: &[Value], done: bool) -> Vec<u8> {
        let mut out: String = chunks.iter().map(|c| format!("data: {c}\n\n")).collect();
        if done {
            out.push_str("data: [DONE]\n\n");
        }
        out.into_bytes()
    }

    /// Decodes `bytes` fed `piece` bytes at a time; a decoder error ends the list as
    /// `HttpLlmClient` ends a stream.
    fn decode(bytes: &[u8], piece: usize) -> Vec<StreamEvent> {
        let mut decoder = Decoder::new("p");
        let mut out = Vec::new();
        for chunk in bytes.chunks(piece) {
            if let Err(error) = decoder.feed(chunk, &mut out) {
                out.push(StreamEvent::Error { error });
                return out;
            }
        }
        if let Err(error) = decoder.end(&mut out) {
            out.push(StreamEvent::Error { error });
        }
        out
    }

    fn accumulate(events: &[StreamEvent]) -> Result<Response, LlmError> {
        let mut acc = StreamAccumulator::new();
        events.iter().for_each(|e| acc.push(e.clone()));
        acc.finish("p")
    }

    fn chunk(delta: Value, finish: Option<&str>) -> Value {
        json!({"id": "c1", "object": "chat.completion.chunk", "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    }

    fn usage_chunk() -> Value {
        json!({"id": "c1", "model": "m", "choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 7, "total_tokens": 12,
            "completion_tokens_details": {"reasoning_tokens": 3}, "prompt_tokens_details": {"cached_tokens": 1}}})
    }

    #[test]
    fn text_then_finish_then_usage_then_done() {
        let bytes = sse(
            &[
                chunk(json!({"role": "assistant", "content": "", "refusal": null}), None),
                chunk(json!({"content": "Hel"}), None),
                chunk(json!({"content": "lo"}), None),
                chunk(json!({}), Some("stop")),
                usage_chunk(),
            ],
            true,
        );
        let events = decode(&bytes, bytes.len());
        let usage = usage_from(&usage_chunk()["usage"]);
        assert_eq!(
            events,
            vec![
                StreamEvent::StreamStart { id: Some("c1".into()), model: Some("m".into()), warnings: vec![] },
                StreamEvent::TextStart { text_id: "text-1".into() },
                StreamEvent::TextDelta { text_id: "text-1".into(), delta: "Hel".into() },
                StreamEvent::TextDelta { text_id: "text-1".into(), delta: "lo".into() },
                StreamEvent::TextEnd { text_id: "text-1".into() },
                StreamEvent::Finish { finish_reason: FinishReason::new(Reason::Stop, Some("stop")), usage: usage.clone() },
            ]
        );
        assert_eq!(
            (usage.input_tokens, usage.output_tokens, usage.reasoning_tokens, usage.cache_read_tokens),
            (5, 7, Some(3), Some(1))
        );
        for piece in 1..bytes.len() {
            assert_eq!(decode(&bytes, piece), events, "split every {piece} bytes");
        }
    }

    #[test]
    fn reasoning_content_and_reasoning_are_reasoning() {
        for field in ["reasoning_content", "reasoning"] {
            let bytes = sse(
                &[
                    chunk(json!({field: "think"}), None),
                    chunk(json!({field: "ing"}), None),
                    chunk(json!({"content": "4"}), Some("stop")),
                ],
                true,
            );
            let response = accumulate(&decode(&bytes, 3)).unwrap();
            assert_eq!((response.reasoning().as_deref(), response.text().as_str()), (Some("thinking"), "4"));
            assert!(matches!(response.message.content[0], ContentPart::Thinking { .. }));
        }
    }

    #[test]
    fn parallel_tool_calls_are_assembled_by_index_and_end_complete() {
        let call = |index: u64, id: Option<&str>, name: Option<&str>, args: &str| {
            let mut fragment = json!({"index": index, "function": {"arguments": args}});
            if let Some(id) = id {
                fragment["id"] = json!(id);
                fragment["type"] = json!("function");
            }
            if let Some(name) = name {
                fragment["function"]["name"] = json!(name);
            }
            chunk(json!({"tool_calls": [fragment]}), None)
        };
        let bytes = sse(
            &[
                call(0, Some("call_a"), Some("get"), ""),
                call(1, Some("call_b"), Some("put"), "{\"v\""),
                call(0, None, None, "{\"q\": "),
                call(1, None, None, ": 2}"),
                call(0, None, None, "1}"),
                chunk(json!({}), Some("tool_calls")),
            ],
            true,
        );
        let events = decode(&bytes, 7);
        let ends: Vec<&ToolCall> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallEnd { tool_call } => Some(tool_call),
                _ => None,
            })
            .collect();
        assert_eq!(
            ends,
            [&ToolCall::from_raw("call_a", "get", "{\"q\": 1}"), &ToolCall::from_raw("call_b", "put", "{\"v\": 2}")]
        );
        let deltas: Vec<(&str, &str)> = events
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallDelta { call_id, delta } => Some((call_id.as_str(), delta.as_str())),
                _ => None,
            })
            .collect();
        assert_eq!(deltas, [("call_b", "{\"v\""), ("call_a", "{\"q\": "), ("call_b", ": 2}"), ("call_a", "1}")]);
        let response = accumulate(&events).unwrap();
        assert_eq!((response.tool_calls().len(), response.finish_reason.reason), (2, Reason::ToolCalls));
    }

    #[test]
    fn whole_calls_in_one_chunk_without_index_or_with_a_reused_index() {
        let whole = |index: Option<u64>, id: &str| {
            let mut fragment = json!({"id": id, "type": "function", "function": {"name": "f", "arguments": {"id": id}}});
            if let Some(index) = index {
                fragment["index"] = json!(index);
            }
            chunk(json!({"tool_calls": [fragment]}), None)
        };
        for index in [None, Some(0)] {
            let bytes = sse(&[whole(index, "x"), whole(index, "y"), chunk(json!({}), Some("stop"))], false);
            let response = accumulate(&decode(&bytes, 5)).unwrap();
            let calls = response.tool_calls();
            assert_eq!(calls.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["x", "y"], "{index:?}");
            assert_eq!((&calls[1].arguments, response.finish_reason.reason), (&json!({"id": "y"}), Reason::ToolCalls));
        }
    }

    #[test]
    fn a_call_without_an_id_gets_one_and_arguments_before_the_name_are_kept() {
        let bytes = sse(
            &[
                chunk(json!({"tool_calls": [{"index": 0, "function": {"arguments": "{}"}}]}), None),
                chunk(json!({"tool_calls": [{"index": 0, "function": {"name": "f"}}]}), Some("tool_calls")),
            ],
            true,
        );
        let response = accumulate(&decode(&bytes, 4)).unwrap();
        assert_eq!(response.tool_calls(), vec![ToolCall::from_raw("call_c1_0", "f", "{}")]);
    }

    #[test]
    fn a_stream_without_usage_finishes_with_zero_usage_and_says_so() {
        let bytes = sse(&[chunk(json!({"content": "hi"}), Some("stop"))], true);
        let response = accumulate(&decode(&bytes, 2)).unwrap();
        assert_eq!((response.usage.clone(), response.id.as_str()), (Usage::default(), "c1"));
        assert_eq!(response.warnings, vec![usage_missing()]);
    }

    #[test]
    fn a_stream_without_done_finishes_when_the_model_had_finished() {
        let bytes = sse(&[chunk(json!({"content": "hi"}), Some("length")), usage_chunk()], false);
        let events = decode(&bytes, 9);
        assert!(matches!(events.last(), Some(StreamEvent::Finish { finish_reason, usage })
            if finish_reason.reason == Reason::Length && usage.total_tokens == 12));
        // A final frame without its blank line is still read.
        let events = decode(b"data: {\"choices\": [{\"delta\": {\"content\": \"x\"}, \"finish_reason\": \"stop\"}]}", 3);
        assert!(matches!(events.last(), Some(StreamEvent::Finish { .. })));
    }

    #[test]
    fn a_stream_cut_before_the_finish_is_a_stream_error() {
        let bytes = sse(&[chunk(json!({"content": "hal"}), None)], false);
        let events = decode(&bytes, 4);
        assert!(
            matches!(events.last(), Some(StreamEvent::Error { error }) if error.kind == ErrorKind::Stream && error.retryable)
        );
        assert_eq!(accumulate(&events).unwrap_err().kind, ErrorKind::Stream);
    }

    #[test]
    fn done_without_a_finish_reason_still_finishes() {
        let bytes = sse(&[chunk(json!({"content": "hi"}), None)], true);
        let events = decode(&bytes, 1);
        assert!(
            matches!(events.last(), Some(StreamEvent::Finish { finish_reason, .. }) if finish_reason.reason == Reason::Other)
        );
    }

    #[test]
    fn provider_errors_mid_stream_become_error_events_and_end_the_stream() {
        let error_frames = [
            json!({"error": {"message": "The server had an error", "type": "server_error", "code": null}}),
            json!({"error": {"code": 500, "message": "slot unavailable", "type": "server_error"}}),
            json!({"object": "error", "message": "context too long", "type": "BadRequestError", "code": 400}),
        ];
        for frame in error_frames {
            let mut bytes = sse(&[chunk(json!({"content": "par"}), None), frame.clone()], false);
            bytes.extend(sse(&[chunk(json!({"content": "ignored"}), Some("stop"))], true));
            let events = decode(&bytes, 6);
            let errors = events.iter().filter(|e| matches!(e, StreamEvent::Error { .. })).count();
            assert_eq!(errors, 1, "{frame}");
            assert!(matches!(events.last(), Some(StreamEvent::Error { error }) if error.raw.as_ref() == Some(&frame)));
            assert!(accumulate(&events).is_err());
        }
        let events = decode(b"event: error\ndata: {\"message\": \"overloaded\"}\n\n", 5);
        assert!(
            matches!(&events[..], [StreamEvent::Error { error }] if error.message == "overloaded" && error.kind == ErrorKind::Server)
        );
        let events = decode(b"event: error\ndata: upstream timeout\n\n", 5);
        assert!(matches!(&events[..], [StreamEvent::Error { error }] if error.message == "upstream timeout"));
    }

    #[test]
    fn malformed_json_is_a_stream_error_not_a_panic() {
        let mut bytes = sse(&[chunk(json!({"content": "a"}), None)], false);
        bytes.extend_from_slice(b"data: {\"choices\": [\n\n");
        let events = decode(&bytes, 3);
        assert!(
            matches!(events.last(), Some(StreamEvent::Error { error }) if error.kind == ErrorKind::Stream && error.message.contains("not valid JSON"))
        );
        let odd = [
            json!(5),
            json!({"choices": 5}),
            json!({"choices": [{"delta": 5, "finish_reason": 3}]}),
            json!({"choices": [{"delta": {"tool_calls": [7, {"index": -1}]}}]}),
        ];
        let events = decode(&sse(&odd, true), 2);
        assert!(matches!(events.last(), Some(StreamEvent::Finish { .. })));
    }

    #[test]
    fn comments_and_keep_alives_are_ignored() {
        let mut bytes = b": keep-alive\r\n\r\n".to_vec();
        bytes.extend(sse(&[chunk(json!({"content": "ok"}), Some("stop"))], true).iter().flat_map(|&b| {
            if b == b'\n' {
                vec![b'\r', b'\n']
            } else {
                vec![b]
            }
        }));
        let response = accumulate(&decode(&bytes, 1)).unwrap();
        assert_eq!(response.text(), "ok");
    }
}
