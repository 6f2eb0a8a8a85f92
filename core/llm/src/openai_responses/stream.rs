//! The Responses API event stream (spec 7.7) as unified [`StreamEvent`]s. Every SSE `data:` is a
//! JSON event whose `type` names it (the `event:` line repeats it; the JSON wins, spec 7.7).
//! Item events carry an `item_id`; the decoder remembers the open items by it.

use serde_json::Value;

use super::error::{reported, unreadable};
use super::response::{finish_reason, item_type, message_texts, str_of, thinking, tool_call, usage, SUMMARY_SEPARATOR};
use crate::codec::StreamDecoder;
use crate::error::{snippet, ErrorKind, LlmError};
use crate::sse::{SseDecoder, SseEvent};
use crate::stream::StreamEvent;

/// Events whose content another event already carries (a `.done` repeats its deltas; a part's
/// start and end fall inside its item's), or that say only that work goes on.
const REDUNDANT: [&str; 11] = [
    "response.in_progress",
    "response.queued",
    "response.content_part.added",
    "response.content_part.done",
    "response.output_text.done",
    "response.refusal.done",
    "response.function_call_arguments.done",
    "response.custom_tool_call_input.done",
    "response.reasoning_summary_part.added",
    "response.reasoning_summary_part.done",
    "response.reasoning_summary_text.done",
];

#[derive(Debug, Default)]
pub(super) struct Decoder {
    sse: SseDecoder,
    /// Text segments started and not yet ended: (message item id, text id).
    texts: Vec<(String, String)>,
    reasoning: Vec<OpenReasoning>,
    calls: Vec<OpenCall>,
    saw_tool_call: bool,
    /// A `Finish` or `Error` went out: the stream has said all it will.
    finished: bool,
}

#[derive(Debug)]
struct OpenReasoning {
    id: String,
    /// The summary part the last delta belonged to; a new one starts after a separator.
    summary_index: Option<u64>,
}

#[derive(Debug)]
struct OpenCall {
    item_id: String,
    call_id: String,
}

impl StreamDecoder for Decoder {
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let mut events = Vec::new();
        self.sse.push(bytes, &mut events);
        events.iter().try_for_each(|event| self.event(event, out))
    }

    fn end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let mut events = Vec::new();
        self.sse.finish(&mut events);
        events.iter().try_for_each(|event| self.event(event, out))?;
        if self.finished {
            Ok(())
        } else {
            Err(unreadable(ErrorKind::Stream, "a stream that ended early", "no response.completed event arrived"))
        }
    }
}

impl Decoder {
    fn event(&mut self, sse: &SseEvent, out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
        let data = sse.data.trim();
        // `[DONE]` is not the Responses API's, but compatible servers send it.
        if self.finished || data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        // `from_slice`, as response bodies are read: `from_str` would put a second JSON reader in the browser bundle.
        let event: Value = serde_json::from_slice(data.as_bytes())
            .map_err(|e| unreadable(ErrorKind::Stream, "a stream event that is not JSON", format!("{e}: {}", snippet(data))))?;
        let kind = str_of(&event, "type").or(sse.event.as_deref()).unwrap_or_default();
        match kind {
            "response.created" => {
                let response = event.get("response");
                let field = |key| response.and_then(|r| str_of(r, key)).map(str::to_owned);
                out.push(StreamEvent::StreamStart { id: field("id"), model: field("model"), warnings: Vec::new() });
            }
            "response.output_item.added" => {
                if !self.item_added(item(&event, kind)?, out) {
                    out.push(StreamEvent::ProviderEvent { raw: event });
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                let (item_id, delta) = (field(&event, kind, "item_id")?, field(&event, kind, "delta")?);
                let text_id = match event.get("content_index").and_then(Value::as_u64) {
                    Some(index) if index > 0 => format!("{item_id}:{index}"),
                    _ => item_id.to_owned(),
                };
                if !self.texts.iter().any(|(_, open)| *open == text_id) {
                    self.texts.push((item_id.to_owned(), text_id.clone()));
                    out.push(StreamEvent::TextStart { text_id: text_id.clone() });
                }
                out.push(StreamEvent::TextDelta { text_id, delta: delta.to_owned() });
            }
            "response.function_call_arguments.delta" | "response.custom_tool_call_input.delta" => {
                let (item_id, delta) = (field(&event, kind, "item_id")?, field(&event, kind, "delta")?);
                // Deltas of a call we never saw start cannot be attributed; its `done` item still will be.
                if let Some(call) = self.calls.iter().find(|c| c.item_id == item_id) {
                    out.push(StreamEvent::ToolCallDelta { call_id: call.call_id.clone(), delta: delta.to_owned() });
                }
            }
            "response.reasoning_summary_text.delta" => {
                let (item_id, delta) = (field(&event, kind, "item_id")?, field(&event, kind, "delta")?);
                let index = event.get("summary_index").and_then(Value::as_u64);
                self.reasoning_delta(item_id, index, delta, out);
            }
            "response.output_item.done" => {
                if !self.item_done(item(&event, kind)?, out)? {
                    out.push(StreamEvent::ProviderEvent { raw: event });
                }
            }
            "response.completed" | "response.incomplete" => {
                let response = event.get("response").unwrap_or(&Value::Null);
                let has_calls = self.saw_tool_call
                    || response
                        .get("output")
                        .and_then(Value::as_array)
                        .is_some_and(|items| items.iter().any(|i| matches!(item_type(i), "function_call" | "custom_tool_call")));
                self.close_open_segments(out);
                let finish_reason = finish_reason(response, has_calls);
                out.push(StreamEvent::Finish { finish_reason, usage: usage(response.get("usage")) });
                self.finished = true;
            }
            "response.failed" => {
                let error = event.get("response").and_then(|r| r.get("error"));
                out.push(StreamEvent::Error { error: reported(error, "the response failed") });
                self.finished = true;
            }
            // Documented both as `{type, code, message, param}` and with the fields under `error`.
            "error" => {
                let error = event.get("error").filter(|e| e.is_object()).unwrap_or(&event);
                out.push(StreamEvent::Error { error: reported(Some(error), "the provider reported an error") });
                self.finished = true;
            }
            kind if REDUNDANT.contains(&kind) => {}
            _ => out.push(StreamEvent::ProviderEvent { raw: event }),
        }
        Ok(())
    }

    /// Starts an item's events; `false` for an item kind the unified model has no events for.
    fn item_added(&mut self, item: &Value, out: &mut Vec<StreamEvent>) -> bool {
        let id = str_of(item, "id").unwrap_or_default().to_owned();
        match item_type(item) {
            "function_call" | "custom_tool_call" => {
                let (call_id, name) = (str_of(item, "call_id"), str_of(item, "name"));
                if let (Some(call_id), Some(name)) = (call_id, name) {
                    out.push(StreamEvent::ToolCallStart { call_id: call_id.to_owned(), name: name.to_owned() });
                    self.calls.push(OpenCall { item_id: id, call_id: call_id.to_owned() });
                }
            }
            "reasoning" => self.open_reasoning(id, out),
            // A message's text starts with its first delta.
            "message" => {}
            _ => return false,
        }
        true
    }

    /// Ends an item; `false` for an item kind the unified model has no events for.
    fn item_done(&mut self, item: &Value, out: &mut Vec<StreamEvent>) -> Result<bool, LlmError> {
        let id = str_of(item, "id").unwrap_or_default();
        match item_type(item) {
            "message" => {
                // A server that sends whole items without deltas still gets its text through.
                if !self.texts.iter().any(|(owner, _)| owner == id) {
                    for text in message_texts(item) {
                        out.push(StreamEvent::TextStart { text_id: id.to_owned() });
                        out.push(StreamEvent::TextDelta { text_id: id.to_owned(), delta: text });
                        out.push(StreamEvent::TextEnd { text_id: id.to_owned() });
                    }
                }
                self.end_texts(|owner| owner == id, out);
            }
            "function_call" | "custom_tool_call" => {
                let tool_call = tool_call(item).map_err(|e| LlmError { kind: ErrorKind::Stream, ..e })?;
                if let Some(at) = self.calls.iter().position(|c| c.item_id == id) {
                    self.calls.remove(at);
                } else {
                    out.push(StreamEvent::ToolCallStart { call_id: tool_call.id.clone(), name: tool_call.name.clone() });
                }
                self.saw_tool_call = true;
                out.push(StreamEvent::ToolCallEnd { tool_call });
            }
            "reasoning" => {
                let thinking = thinking(item);
                let open = self.reasoning.iter().position(|r| r.id == id);
                let streamed = open.and_then(|at| self.reasoning.get(at)).is_some_and(|r| r.summary_index.is_some());
                if open.is_none() {
                    self.open_reasoning(id.to_owned(), out);
                }
                if !streamed && !thinking.text.is_empty() {
                    out.push(StreamEvent::ReasoningDelta { id: id.to_owned(), delta: thinking.text });
                }
                self.reasoning.retain(|r| r.id != id);
                out.push(StreamEvent::ReasoningEnd { id: id.to_owned(), signature: thinking.signature });
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn open_reasoning(&mut self, id: String, out: &mut Vec<StreamEvent>) {
        out.push(StreamEvent::ReasoningStart { id: id.clone() });
        self.reasoning.push(OpenReasoning { id, summary_index: None });
    }

    /// Summary parts of one item become one reasoning text, parted as the non-streamed parse parts them.
    fn reasoning_delta(&mut self, item_id: &str, index: Option<u64>, delta: &str, out: &mut Vec<StreamEvent>) {
        if !self.reasoning.iter().any(|r| r.id == item_id) {
            self.open_reasoning(item_id.to_owned(), out);
        }
        let Some(open) = self.reasoning.iter_mut().find(|r| r.id == item_id) else { return };
        let index = index.unwrap_or(0);
        if open.summary_index.is_some_and(|previous| previous != index) {
            out.push(StreamEvent::ReasoningDelta { id: item_id.to_owned(), delta: SUMMARY_SEPARATOR.to_owned() });
        }
        open.summary_index = Some(index);
        out.push(StreamEvent::ReasoningDelta { id: item_id.to_owned(), delta: delta.to_owned() });
    }

    fn end_texts(&mut self, owned: impl Fn(&str) -> bool, out: &mut Vec<StreamEvent>) {
        let (ended, open) = std::mem::take(&mut self.texts).into_iter().partition(|(owner, _)| owned(owner));
        self.texts = open;
        out.extend(ended.into_iter().map(|(_, text_id): (String, String)| StreamEvent::TextEnd { text_id }));
    }

    /// Segments whose items never said `done` (a response cut short) end before `Finish`. Open tool
    /// calls do not: a call without its `done` item is not complete enough to run.
    fn close_open_segments(&mut self, out: &mut Vec<StreamEvent>) {
        self.end_texts(|_| true, out);
        for open in std::mem::take(&mut self.reasoning) {
            out.push(StreamEvent::ReasoningEnd { id: open.id, signature: None });
        }
    }
}

fn item<'a>(event: &'a Value, kind: &str) -> Result<&'a Value, LlmError> {
    event.get("item").filter(|i| i.is_object()).ok_or_else(|| missing(kind, "item"))
}

fn field<'a>(event: &'a Value, kind: &str, key: &str) -> Result<&'a str, LlmError> {
    str_of(event, key).ok_or_else(|| missing(kind, key))
}

fn missing(kind: &str, key: &str) -> LlmError {
    unreadable(ErrorKind::Stream, "a malformed stream event", format!("`{kind}` without `{key}`"))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::stream::StreamAccumulator;
    use crate::types::{FinishReason, Reason, ToolCall};
    use serde_json::json;

    /// SSE bytes as the API frames them: the `type` as the event name, the JSON as its data.
    fn sse(events: &[Value]) -> Vec<u8> {
        events
            .iter()
            .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap_or("message")))
            .collect::<String>()
            .into_bytes()
    }

    fn decode_in(bytes: &[u8], piece: usize) -> Result<Vec<StreamEvent>, LlmError> {
        let mut decoder = Decoder::default();
        let mut out = Vec::new();
        for chunk in bytes.chunks(piece) {
            decoder.feed(chunk, &mut out)?;
        }
        decoder.end(&mut out)?;
        Ok(out)
    }

    fn completed(output: Value) -> Value {
        json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": output,
               "usage": {"input_tokens": 5, "output_tokens": 7, "total_tokens": 12,
                         "input_tokens_details": {"cached_tokens": 1}, "output_tokens_details": {"reasoning_tokens": 3}}}})
    }

    fn text_stream() -> Vec<Value> {
        vec![
            json!({"type": "response.created", "response": {"id": "resp_1", "model": "gpt-5-nano", "output": []}}),
            json!({"type": "response.in_progress", "response": {}}),
            json!({"type": "response.output_item.added", "item": {"id": "rs_1", "type": "reasoning", "summary": []}}),
            json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "summary_index": 0, "delta": "One"}),
            json!({"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "summary_index": 1, "delta": "Two"}),
            json!({"type": "response.output_item.done", "item": {"id": "rs_1", "type": "reasoning", "encrypted_content": "enc",
                   "summary": [{"type": "summary_text", "text": "One"}, {"type": "summary_text", "text": "Two"}]}}),
            json!({"type": "response.output_item.added", "item": {"id": "msg_1", "type": "message", "content": []}}),
            json!({"type": "response.content_part.added", "item_id": "msg_1", "content_index": 0}),
            json!({"type": "response.output_text.delta", "item_id": "msg_1", "content_index": 0, "delta": "Pa"}),
            json!({"type": "response.output_text.delta", "item_id": "msg_1", "content_index": 0, "delta": "ris é😀"}),
            json!({"type": "response.output_item.done", "item": {"id": "msg_1", "type": "message",
                   "content": [{"type": "output_text", "text": "Paris é😀"}]}}),
            completed(json!([])),
        ]
    }

    #[test]
    fn text_and_reasoning_in_any_chunking() {
        let bytes = sse(&text_stream());
        let whole = decode_in(&bytes, bytes.len()).unwrap();
        assert_eq!(
            whole,
            vec![
                StreamEvent::StreamStart { id: Some("resp_1".into()), model: Some("gpt-5-nano".into()), warnings: vec![] },
                StreamEvent::ReasoningStart { id: "rs_1".into() },
                StreamEvent::ReasoningDelta { id: "rs_1".into(), delta: "One".into() },
                StreamEvent::ReasoningDelta { id: "rs_1".into(), delta: "\n\n".into() },
                StreamEvent::ReasoningDelta { id: "rs_1".into(), delta: "Two".into() },
                StreamEvent::ReasoningEnd { id: "rs_1".into(), signature: Some("enc".into()) },
                StreamEvent::TextStart { text_id: "msg_1".into() },
                StreamEvent::TextDelta { text_id: "msg_1".into(), delta: "Pa".into() },
                StreamEvent::TextDelta { text_id: "msg_1".into(), delta: "ris é😀".into() },
                StreamEvent::TextEnd { text_id: "msg_1".into() },
                StreamEvent::Finish {
                    finish_reason: FinishReason::new(Reason::Stop, Some("completed")),
                    usage: usage(completed(json!([]))["response"].get("usage")),
                },
            ]
        );
        for piece in [1, 2, 3, 7, 64] {
            assert_eq!(decode_in(&bytes, piece).unwrap(), whole, "split every {piece} bytes");
        }
        let mut acc = StreamAccumulator::new();
        whole.iter().for_each(|e| acc.push(e.clone()));
        let response = acc.finish("openai").unwrap();
        assert_eq!((response.text(), response.reasoning()), ("Paris é😀".to_owned(), Some("One\n\nTwo".to_owned())));
        assert_eq!((response.usage.reasoning_tokens, response.usage.cache_read_tokens), (Some(3), Some(1)));
    }

    #[test]
    fn parallel_tool_calls_end_complete_and_finish_as_tool_calls() {
        let call = |n: u32, args: &str, done: bool| {
            let kind = if done { "response.output_item.done" } else { "response.output_item.added" };
            json!({"type": kind, "item": {"id": format!("fc_{n}"), "type": "function_call", "call_id": format!("call_{n}"),
                   "name": "get_weather", "arguments": if done { args } else { "" }}})
        };
        let delta =
            |n: u32, d: &str| json!({"type": "response.function_call_arguments.delta", "item_id": format!("fc_{n}"), "delta": d});
        let events = [
            call(1, "", false),
            delta(1, "{\"location\":"),
            delta(1, "\"SF\"}"),
            call(1, "{\"location\":\"SF\"}", true),
            call(2, "", false),
            delta(2, "{\"location\":\"NY\"}"),
            call(2, "{\"location\":\"NY\"}", true),
            completed(json!([])),
        ];
        let out = decode_in(&sse(&events), 5).unwrap();
        let ends: Vec<&ToolCall> = out
            .iter()
            .filter_map(|e| match e {
                StreamEvent::ToolCallEnd { tool_call } => Some(tool_call),
                _ => None,
            })
            .collect();
        assert_eq!(ends.len(), 2);
        assert_eq!((ends[0].id.as_str(), ends[0].signature.as_deref()), ("call_1", Some("fc_1")));
        assert_eq!(ends[1].raw_arguments.as_deref(), Some("{\"location\":\"NY\"}"));
        assert!(out.contains(&StreamEvent::ToolCallDelta { call_id: "call_1".into(), delta: "\"SF\"}".into() }));
        let Some(StreamEvent::Finish { finish_reason, .. }) = out.last() else { panic!("{out:?}") };
        assert_eq!(finish_reason, &FinishReason::new(Reason::ToolCalls, Some("completed")));
    }

    #[test]
    fn an_incomplete_response_finishes_with_length_and_closes_open_segments() {
        let events = [
            json!({"type": "response.output_item.added", "item": {"id": "rs_1", "type": "reasoning"}}),
            json!({"type": "response.incomplete", "response": {"status": "incomplete",
                   "incomplete_details": {"reason": "max_output_tokens"}, "usage": {"input_tokens": 1, "output_tokens": 100}}}),
        ];
        let out = decode_in(&sse(&events), 3).unwrap();
        assert_eq!(out[1], StreamEvent::ReasoningEnd { id: "rs_1".into(), signature: None });
        let StreamEvent::Finish { finish_reason, usage } = &out[2] else { panic!("{out:?}") };
        assert_eq!(finish_reason, &FinishReason::new(Reason::Length, Some("max_output_tokens")));
        assert_eq!(usage.total_tokens, 101);
    }

    #[test]
    fn provider_errors_mid_stream_become_error_events() {
        let failed = json!({"type": "response.failed", "response": {"status": "failed",
                            "error": {"code": "rate_limit_exceeded", "message": "Slow down"}}});
        let out = decode_in(&sse(&[text_stream()[0].clone(), failed, completed(json!([]))]), 4).unwrap();
        assert_eq!(out.len(), 2, "nothing after the error: {out:?}");
        let StreamEvent::Error { error } = &out[1] else { panic!("{out:?}") };
        assert_eq!((error.kind, error.message.as_str(), error.retryable), (ErrorKind::RateLimit, "Slow down", true));

        for event in [
            json!({"type": "error", "code": "server_error", "message": "Upstream failed", "param": null}),
            json!({"type": "error", "error": {"type": "server_error", "message": "Upstream failed"}}),
        ] {
            let out = decode_in(&sse(&[event]), 1).unwrap();
            let [StreamEvent::Error { error }] = out.as_slice() else { panic!("{out:?}") };
            assert_eq!((error.kind, error.message.as_str()), (ErrorKind::Server, "Upstream failed"));
        }
    }

    #[test]
    fn malformed_data_is_a_stream_error_not_a_panic() {
        for bytes in [
            &b"data: {\"type\": \"response.output_text.delta\", \"delta\": \n\n"[..],
            b"data: {\"type\": \"response.output_text.delta\", \"delta\": 7}\n\n",
            b"data: {\"type\": \"response.output_item.done\", \"item\": [1]}\n\n",
            b"data: {\"type\": \"response.output_item.done\", \"item\": {\"type\": \"function_call\"}}\n\n",
            b"data: \xff\xfe\n\n",
        ] {
            let e = decode_in(bytes, 2).unwrap_err();
            assert_eq!(e.kind, ErrorKind::Stream, "{e}");
        }
    }

    #[test]
    fn a_stream_that_stops_before_completion_is_an_error() {
        let e = decode_in(&sse(&text_stream()[..5]), 9).unwrap_err();
        assert_eq!(e.kind, ErrorKind::Stream);
        assert!(e.message.contains("response.completed"), "{e}");
    }

    #[test]
    fn whole_items_without_deltas_still_deliver_their_content() {
        let events = [
            json!({"type": "response.output_item.done", "item": {"id": "rs_1", "type": "reasoning", "encrypted_content": "e",
                   "summary": [{"type": "summary_text", "text": "Hmm."}]}}),
            json!({"type": "response.output_item.done", "item": {"id": "msg_1", "type": "message",
                   "content": [{"type": "output_text", "text": "Hi."}]}}),
            json!({"type": "response.output_item.done", "item": {"id": "fc_1", "type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}}),
            completed(json!([])),
            json!({"type": "response.output_text.delta", "item_id": "msg_2", "delta": "after the end"}),
        ];
        let mut acc = StreamAccumulator::new();
        decode_in(&sse(&events), 11).unwrap().iter().for_each(|e| acc.push(e.clone()));
        let response = acc.finish("openai").unwrap();
        assert_eq!((response.text(), response.reasoning()), ("Hi.".to_owned(), Some("Hmm.".to_owned())));
        assert_eq!(response.tool_calls()[0].id, "c1");
    }

    #[test]
    fn unknown_events_pass_through_and_done_markers_are_ignored() {
        let events = [
            json!({"type": "response.output_item.added", "item": {"id": "ci_1", "type": "code_interpreter_call"}}),
            json!({"type": "response.code_interpreter_call_code.delta", "item_id": "ci_1", "delta": "print(1)"}),
            completed(json!([])),
        ];
        let mut bytes = sse(&events);
        bytes.extend_from_slice(b"data: [DONE]\n\n");
        let out = decode_in(&bytes, 6).unwrap();
        assert!(matches!(&out[0], StreamEvent::ProviderEvent { raw } if raw["item"]["type"] == "code_interpreter_call"));
        assert!(matches!(&out[1], StreamEvent::ProviderEvent { raw } if raw["delta"] == "print(1)"));
        assert!(matches!(out[2], StreamEvent::Finish { .. }));
    }
}
