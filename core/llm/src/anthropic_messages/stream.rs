//! The streamed Messages response (spec 7.7, Anthropic): SSE events -> `StreamEvent`s.
//!
//! `message_start` gives the id, model and input usage; each content block is opened, filled by
//! deltas and closed by index; `message_delta` brings the stop reason and the final output usage;
//! `message_stop` ends the message. An `error` event ends the stream with [`StreamEvent::Error`].

use serde_json::{Map, Value};

use super::response::{finish_reason, usage};
use super::{error, PROVIDER, THINKING_ID_PREFIX};
use crate::codec::StreamDecoder;
use crate::error::{snippet, ErrorKind, LlmError};
use crate::sse::{SseDecoder, SseEvent};
use crate::stream::StreamEvent;
use crate::types::ToolCall;

/// A content block between its start and stop.
#[derive(Debug)]
enum Block {
    Text {
        id: String,
    },
    Thinking {
        id: String,
        signature: String,
    },
    ToolUse {
        id: String,
        name: String,
        arguments: String,
    },
    /// Redacted thinking arrives whole at its start; nothing is left for its stop.
    Redacted,
    /// A block the unified model does not carry (server tools): passed through as provider events.
    Unsupported,
}

pub(super) struct Decoder {
    sse: SseDecoder,
    blocks: Vec<(u64, Block)>,
    /// The usage object so far: `message_start`'s, updated by each `message_delta`.
    usage: Map<String, Value>,
    stop_reason: Option<String>,
    thinking_chars: Option<usize>,
    /// A `Finish` or `Error` was emitted: the stream is over.
    done: bool,
}

impl Decoder {
    pub fn new() -> Self {
        Self {
            sse: SseDecoder::new(),
            blocks: Vec::new(),
            usage: Map::new(),
            stop_reason: None,
            thinking_chars: None,
            done: false,
        }
    }

    fn dispatch(&mut self, events: Vec<SseEvent>, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        for event in events {
            if self.done {
                break;
            }
            // `from_slice`, as response bodies are read: `from_str` would put a second JSON reader in the browser bundle.
            let result = serde_json::from_slice::<Value>(event.data.as_bytes())
                .map_err(|e| broken(&format!("an event's data is not JSON ({e}): {}", snippet(&event.data))))
                .and_then(|data| {
                    // The JSON `type` is authoritative; the `event:` line is the fallback (spec 7.7).
                    let kind: String =
                        data.get("type").and_then(Value::as_str).or(event.event.as_deref()).unwrap_or_default().into();
                    self.event(&kind, data, out)
                });
            // A broken stream stays broken: nothing after the error is decoded.
            self.done |= result.is_err();
            result?;
        }
        Ok(())
    }

    fn event(&mut self, kind: &str, data: Value, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        match kind {
            "message_start" => {
                let message = data.get("message");
                let field = |key| message.and_then(|m| m.get(key)).and_then(Value::as_str).map(str::to_owned);
                out.push(StreamEvent::StreamStart { id: field("id"), model: field("model"), warnings: Vec::new() });
                self.update_usage(message.and_then(|m| m.get("usage")));
            }
            "content_block_start" => self.start(data, out)?,
            "content_block_delta" => self.delta(data, out)?,
            "content_block_stop" => self.stop(data, out)?,
            "message_delta" => {
                if let Some(reason) = data["delta"]["stop_reason"].as_str() {
                    self.stop_reason = Some(reason.to_owned());
                }
                self.update_usage(data.get("usage"));
            }
            "message_stop" => self.finish(out),
            "ping" => {}
            "error" => {
                out.push(StreamEvent::Error { error: error::from_event(&data) });
                self.done = true;
            }
            _ => out.push(StreamEvent::ProviderEvent { raw: data }),
        }
        Ok(())
    }

    fn start(&mut self, data: Value, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let index = index(&data)?;
        let block = data.get("content_block").unwrap_or(&Value::Null);
        let text = |key| block.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        let state = match block.get("type").and_then(Value::as_str).unwrap_or_default() {
            "text" => {
                let id = format!("text-{index}");
                out.push(StreamEvent::TextStart { text_id: id.clone() });
                push_nonempty(out, text("text"), |delta| StreamEvent::TextDelta { text_id: id.clone(), delta });
                Block::Text { id }
            }
            "thinking" => {
                let id = format!("{THINKING_ID_PREFIX}{index}");
                out.push(StreamEvent::ReasoningStart { id: id.clone() });
                let thinking = text("thinking");
                *self.thinking_chars.get_or_insert(0) += thinking.chars().count();
                push_nonempty(out, thinking, |delta| StreamEvent::ReasoningDelta { id: id.clone(), delta });
                Block::Thinking { id, signature: text("signature") }
            }
            "redacted_thinking" => {
                out.push(StreamEvent::RedactedReasoning { data: text("data") });
                Block::Redacted
            }
            "tool_use" => {
                let (id, name) = (text("id"), text("name"));
                if id.is_empty() || name.is_empty() {
                    return Err(broken("a tool_use block has no id or name"));
                }
                out.push(StreamEvent::ToolCallStart { call_id: id.clone(), name: name.clone() });
                // The input arrives as `input_json_delta`s; the start carries an empty `{}`.
                Block::ToolUse { id, name, arguments: String::new() }
            }
            _ => {
                out.push(StreamEvent::ProviderEvent { raw: data });
                Block::Unsupported
            }
        };
        self.blocks.retain(|(open, _)| *open != index);
        self.blocks.push((index, state));
        Ok(())
    }

    fn delta(&mut self, data: Value, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let index = index(&data)?;
        let Some((_, block)) = self.blocks.iter_mut().find(|(open, _)| *open == index) else {
            return Err(broken(&format!("a delta arrived for block {index}, which was never started")));
        };
        let delta = data.get("delta").unwrap_or(&Value::Null);
        let text = |key| delta.get(key).and_then(Value::as_str).unwrap_or_default().to_owned();
        match (block, delta.get("type").and_then(Value::as_str).unwrap_or_default()) {
            (Block::Text { id }, "text_delta") => {
                push_nonempty(out, text("text"), |delta| StreamEvent::TextDelta { text_id: id.clone(), delta })
            }
            (Block::Thinking { id, .. }, "thinking_delta") => {
                let thinking = text("thinking");
                *self.thinking_chars.get_or_insert(0) += thinking.chars().count();
                push_nonempty(out, thinking, |delta| StreamEvent::ReasoningDelta { id: id.clone(), delta });
            }
            (Block::Thinking { signature, .. }, "signature_delta") => signature.push_str(&text("signature")),
            (Block::ToolUse { id, arguments, .. }, "input_json_delta") => {
                let fragment = text("partial_json");
                arguments.push_str(&fragment);
                push_nonempty(out, fragment, |delta| StreamEvent::ToolCallDelta { call_id: id.clone(), delta });
            }
            // Citations, server-tool input and whatever comes next.
            _ => out.push(StreamEvent::ProviderEvent { raw: data }),
        }
        Ok(())
    }

    fn stop(&mut self, data: Value, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let index = index(&data)?;
        let Some(at) = self.blocks.iter().position(|(open, _)| *open == index) else {
            return Err(broken(&format!("block {index} was stopped but never started")));
        };
        match self.blocks.swap_remove(at).1 {
            Block::Text { id } => out.push(StreamEvent::TextEnd { text_id: id }),
            Block::Thinking { id, signature } => {
                out.push(StreamEvent::ReasoningEnd { id, signature: Some(signature).filter(|s| !s.is_empty()) })
            }
            // `from_raw` keeps the argument text exactly as streamed.
            Block::ToolUse { id, name, arguments } => {
                out.push(StreamEvent::ToolCallEnd { tool_call: ToolCall::from_raw(id, name, arguments) })
            }
            Block::Redacted => {}
            Block::Unsupported => out.push(StreamEvent::ProviderEvent { raw: data }),
        }
        Ok(())
    }

    fn update_usage(&mut self, usage: Option<&Value>) {
        if let Some(Value::Object(fields)) = usage {
            self.usage.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }

    fn finish(&mut self, out: &mut Vec<StreamEvent>) {
        let usage = usage(&Value::Object(self.usage.clone()), self.thinking_chars);
        out.push(StreamEvent::Finish { finish_reason: finish_reason(self.stop_reason.as_deref()), usage });
        self.done = true;
    }
}

impl StreamDecoder for Decoder {
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let mut events = Vec::new();
        self.sse.push(bytes, &mut events);
        self.dispatch(events, out)
    }

    /// A body that ends after `message_delta` lost only the closing `message_stop`, so the
    /// message is whole and finishes; one that ends earlier was cut off.
    fn end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let mut events = Vec::new();
        self.sse.finish(&mut events);
        self.dispatch(events, out)?;
        match (self.done, &self.stop_reason) {
            (true, _) => Ok(()),
            (false, Some(_)) => {
                self.finish(out);
                Ok(())
            }
            (false, None) => Err(broken("the stream ended before the message was complete")),
        }
    }
}

fn index(data: &Value) -> Result<u64, LlmError> {
    data.get("index").and_then(Value::as_u64).ok_or_else(|| broken("a content block event has no index"))
}

fn push_nonempty(out: &mut Vec<StreamEvent>, text: String, event: impl FnOnce(String) -> StreamEvent) {
    if !text.is_empty() {
        out.push(event(text));
    }
}

fn broken(why: &str) -> LlmError {
    LlmError::new(ErrorKind::Stream, format!("Anthropic's event stream broke off: {why}")).with_provider(PROVIDER)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::stream::StreamAccumulator;
    use crate::types::{ContentPart, Reason};
    use serde_json::json;

    /// Frames events the way the API does: `event:` named after the type, then `data:`.
    fn sse(events: &[Value]) -> String {
        events.iter().map(|e| format!("event: {}\ndata: {}\n\n", e["type"].as_str().unwrap_or_default(), e)).collect()
    }

    fn decode(body: &[u8], piece: usize) -> Result<Vec<StreamEvent>, LlmError> {
        let mut decoder = Decoder::new();
        let mut out = Vec::new();
        for chunk in body.chunks(piece.max(1)) {
            decoder.feed(chunk, &mut out)?;
        }
        decoder.end(&mut out)?;
        Ok(out)
    }

    fn conversation() -> Vec<Value> {
        vec![
            json!({"type": "message_start", "message": {"id": "msg_1", "model": "claude-x", "content": [], "usage": {"input_tokens": 20, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 0, "output_tokens": 1}}}),
            json!({"type": "ping"}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "Weather é "}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "needed."}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQB=="}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "redacted_thinking", "data": "opaque=="}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "content_block_start", "index": 2, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 2, "delta": {"type": "text_delta", "text": "Let me check 😀"}}),
            json!({"type": "content_block_stop", "index": 2}),
            json!({"type": "content_block_start", "index": 3, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}}),
            json!({"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": ""}}),
            json!({"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": "{\"location\": "}}),
            json!({"type": "content_block_delta", "index": 3, "delta": {"type": "input_json_delta", "partial_json": "\"Paris\"}"}}),
            json!({"type": "content_block_stop", "index": 3}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": null}, "usage": {"output_tokens": 42}}),
            json!({"type": "message_stop"}),
        ]
    }

    #[test]
    fn decodes_text_thinking_and_tool_calls_whatever_the_chunking() {
        let body = sse(&conversation());
        let whole = decode(body.as_bytes(), body.len()).unwrap();
        for piece in [1, 2, 3, 7, 64] {
            assert_eq!(decode(body.as_bytes(), piece).unwrap(), whole, "split every {piece} bytes");
        }
        let mut acc = StreamAccumulator::new();
        whole.iter().for_each(|e| acc.push(e.clone()));
        let response = acc.finish("anthropic").unwrap();
        assert_eq!((response.id.as_str(), response.model.as_str()), ("msg_1", "claude-x"));
        assert_eq!(response.text(), "Let me check 😀");
        assert_eq!(response.reasoning().as_deref(), Some("Weather é needed."));
        assert!(
            matches!(&response.message.content[0], ContentPart::Thinking { thinking } if thinking.signature.as_deref() == Some("EqQB=="))
        );
        assert!(
            matches!(&response.message.content[1], ContentPart::RedactedThinking { thinking } if thinking.text == "opaque==")
        );
        let call = &response.tool_calls()[0];
        assert_eq!(
            (call.id.as_str(), call.name.as_str(), &call.arguments),
            ("toolu_1", "get_weather", &json!({"location": "Paris"}))
        );
        assert_eq!(call.raw_arguments.as_deref(), Some("{\"location\": \"Paris\"}"));
        assert_eq!(response.finish_reason.reason, Reason::ToolCalls);
        assert_eq!(response.finish_reason.raw.as_deref(), Some("tool_use"));
        let usage = &response.usage;
        assert_eq!(
            (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens, usage.reasoning_tokens),
            (120, 42, Some(100), Some(5))
        );
        assert_eq!(whole.iter().filter(|e| matches!(e, StreamEvent::Finish { .. })).count(), 1);
        assert!(whole.iter().any(|e| matches!(e, StreamEvent::ToolCallStart { call_id, .. } if call_id == "toolu_1")));
    }

    /// With thinking on, the API refuses a tool-use turn replayed without its signed thinking; a
    /// streamed answer must go back as a whole one does.
    #[test]
    fn a_streamed_answer_replays_its_signed_thinking_on_the_next_request() {
        let mut acc = StreamAccumulator::new();
        decode(sse(&conversation()).as_bytes(), 64).unwrap().iter().for_each(|e| acc.push(e.clone()));
        let assistant = acc.finish("anthropic").unwrap().message;
        let conversation = super::super::messages::translate(&[crate::Message::user("weather?"), assistant]).unwrap();
        let replayed = &conversation.messages[1]["content"];
        assert_eq!(replayed[0], json!({"type": "thinking", "thinking": "Weather é needed.", "signature": "EqQB=="}));
        assert_eq!(replayed[1], json!({"type": "redacted_thinking", "data": "opaque=="}));
    }

    #[test]
    fn an_error_event_mid_stream_ends_it_with_the_mapped_kind() {
        let mut events = conversation();
        events.truncate(4);
        events.push(json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}));
        events.push(json!({"type": "message_stop"}));
        let out = decode(sse(&events).as_bytes(), 5).unwrap();
        let Some(StreamEvent::Error { error }) = out.last() else { panic!("no error event: {out:?}") };
        assert_eq!((error.kind, error.retryable, error.message.as_str()), (ErrorKind::Server, true, "Overloaded"));
        assert!(!out.iter().any(|e| matches!(e, StreamEvent::Finish { .. })));
    }

    #[test]
    fn malformed_and_truncated_streams_are_stream_errors_not_panics() {
        let bad_json = "event: message_start\ndata: {\"type\": \"message_start\", \"message\": \n\n";
        let unknown_block =
            "data: {\"type\": \"content_block_delta\", \"index\": 9, \"delta\": {\"type\": \"text_delta\", \"text\": \"x\"}}\n\n";
        let no_index = "data: {\"type\": \"content_block_stop\"}\n\n";
        let nameless_tool =
            "data: {\"type\": \"content_block_start\", \"index\": 0, \"content_block\": {\"type\": \"tool_use\"}}\n\n";
        let mut truncated = conversation();
        truncated.truncate(12);
        for body in
            [bad_json.to_owned(), unknown_block.to_owned(), no_index.to_owned(), nameless_tool.to_owned(), sse(&truncated)]
        {
            let error = decode(body.as_bytes(), 3).unwrap_err();
            assert_eq!((error.kind, error.retryable), (ErrorKind::Stream, true), "{body}");
        }
    }

    #[test]
    fn a_missing_message_stop_after_the_stop_reason_still_finishes() {
        let mut events = conversation();
        events.pop();
        let out = decode(sse(&events).as_bytes(), 11).unwrap();
        assert!(
            matches!(out.last(), Some(StreamEvent::Finish { finish_reason, .. }) if finish_reason.reason == Reason::ToolCalls)
        );
    }

    #[test]
    fn unknown_events_and_blocks_pass_through_and_event_names_are_a_fallback() {
        let body = concat!(
            "event: message_start\ndata: {\"message\": {\"id\": \"m\", \"model\": \"x\", \"usage\": {\"input_tokens\": 3}}}\n\n",
            ": keep-alive comment\n\n",
            "data: {\"type\": \"content_block_start\", \"index\": 0, \"content_block\": {\"type\": \"server_tool_use\", \"id\": \"srvtoolu_1\", \"name\": \"web_search\", \"input\": {}}}\n\n",
            "data: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": \"input_json_delta\", \"partial_json\": \"{}\"}}\n\n",
            "data: {\"type\": \"content_block_stop\", \"index\": 0}\n\n",
            "data: {\"type\": \"brand_new_event\"}\n\n",
            "data: {\"type\": \"message_delta\", \"delta\": {\"stop_reason\": \"end_turn\"}, \"usage\": {\"output_tokens\": 4}}\n\n",
            "data: {\"type\": \"message_stop\"}\n\n",
        );
        let out = decode(body.as_bytes(), 4).unwrap();
        assert!(matches!(&out[0], StreamEvent::StreamStart { id: Some(id), .. } if id == "m"));
        assert_eq!(out.iter().filter(|e| matches!(e, StreamEvent::ProviderEvent { .. })).count(), 4);
        assert!(!out.iter().any(|e| matches!(e, StreamEvent::ToolCallStart { .. } | StreamEvent::ToolCallEnd { .. })));
        let Some(StreamEvent::Finish { finish_reason, usage }) = out.last() else { panic!("{out:?}") };
        assert_eq!((finish_reason.reason, usage.input_tokens, usage.output_tokens, usage.total_tokens), (Reason::Stop, 3, 4, 7));
    }

    #[test]
    fn events_after_the_finish_are_ignored() {
        let mut events = conversation();
        events.push(json!({"type": "content_block_start", "index": 9, "content_block": {"type": "text", "text": "late"}}));
        let out = decode(sse(&events).as_bytes(), 64).unwrap();
        assert!(matches!(out.last(), Some(StreamEvent::Finish { .. })));
    }
}
