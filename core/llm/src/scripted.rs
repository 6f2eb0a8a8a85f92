//! `ScriptedClient`: a model that plays a script. Tests and examples use it in place of a provider;
//! streamed replies come as a provider sends them (start, deltas, end, finish).

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;

use async_trait::async_trait;
use futures::stream;
use serde_json::Value;

use super::client::{collect_stream, EventStream, LlmClient};
use super::error::{ErrorKind, LlmError};
use super::stream::StreamEvent;
use super::types::{ContentPart, FinishReason, Message, Reason, Request, Response, Role, ThinkingData, ToolCall, Usage};

/// One answer of the script.
#[derive(Debug, Clone)]
pub enum ScriptStep {
    /// This response, streamed part by part when the call is a stream.
    Reply(Response),
    /// Exactly these stream events (for broken or unusual streams).
    Events(Vec<StreamEvent>),
    /// The call fails before anything arrives.
    Fail(LlmError),
    /// The call never answers; only an abort ends it.
    Hang,
}

impl ScriptStep {
    /// A text-only reply: the model is done.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Reply(reply(vec![ContentPart::text(text)]))
    }

    /// A reply that calls one tool.
    pub fn tool_call(name: &str, arguments: Value) -> Self {
        Self::tool_calls(&[(name, arguments)])
    }

    /// A reply that calls several tools at once. Call ids are filled in when the step is played.
    pub fn tool_calls(calls: &[(&str, Value)]) -> Self {
        let content = calls
            .iter()
            .map(|(name, args)| ContentPart::ToolCall { tool_call: ToolCall::new("", *name, args.clone()) })
            .collect();
        Self::Reply(reply(content))
    }

    /// A reply with reasoning before its text.
    pub fn reasoning_then_text(reasoning: &str, text: &str) -> Self {
        let thinking = ThinkingData { text: reasoning.to_owned(), signature: Some("scripted".into()), ..Default::default() };
        Self::Reply(reply(vec![ContentPart::Thinking { thinking }, ContentPart::text(text)]))
    }

    pub fn fail(kind: ErrorKind, message: &str) -> Self {
        Self::Fail(LlmError::new(kind, message).with_provider(ScriptedClient::PROVIDER))
    }
}

fn reply(content: Vec<ContentPart>) -> Response {
    let reason = if content.iter().any(|p| matches!(p, ContentPart::ToolCall { .. })) { Reason::ToolCalls } else { Reason::Stop };
    Response {
        id: String::new(),
        model: "scripted".into(),
        provider: ScriptedClient::PROVIDER.into(),
        message: Message::new(Role::Assistant, content),
        finish_reason: FinishReason::new(reason, None),
        usage: Usage::new(10, 5),
        raw: None,
        warnings: vec![],
        rate_limit: None,
    }
}

/// Plays [`ScriptStep`]s in order, one per call, and records the requests it was sent.
#[derive(Default)]
pub struct ScriptedClient {
    steps: RefCell<VecDeque<ScriptStep>>,
    requests: RefCell<Vec<Request>>,
    record: bool,
    calls: Cell<usize>,
}

impl ScriptedClient {
    pub const PROVIDER: &'static str = "scripted";

    pub fn new(steps: impl IntoIterator<Item = ScriptStep>) -> Self {
        Self { steps: RefCell::new(steps.into_iter().collect()), record: true, ..Self::default() }
    }

    /// Does not keep copies of the requests (for long benchmark scripts).
    pub fn without_recording(mut self) -> Self {
        self.record = false;
        self
    }

    pub fn push(&self, step: ScriptStep) {
        self.steps.borrow_mut().push_back(step);
    }

    /// The requests received so far, in order.
    pub fn requests(&self) -> Vec<Request> {
        self.requests.borrow().clone()
    }

    pub fn calls(&self) -> usize {
        self.calls.get()
    }

    pub fn remaining(&self) -> usize {
        self.steps.borrow().len()
    }

    fn next_step(&self, request: &Request) -> Result<ScriptStep, LlmError> {
        let call = self.calls.get() + 1;
        self.calls.set(call);
        if self.record {
            self.requests.borrow_mut().push(request.clone());
        }
        let step = self.steps.borrow_mut().pop_front().ok_or_else(|| {
            LlmError::new(ErrorKind::Configuration, format!("the script has no answer for call {call}"))
                .with_provider(Self::PROVIDER)
        })?;
        Ok(match step {
            ScriptStep::Reply(mut response) => {
                response.id = format!("resp_{call}");
                let mut n = 0;
                for part in &mut response.message.content {
                    if let ContentPart::ToolCall { tool_call } = part {
                        n += 1;
                        if tool_call.id.is_empty() {
                            tool_call.id = format!("call_{call}_{n}");
                        }
                    }
                }
                ScriptStep::Reply(response)
            }
            other => other,
        })
    }
}

/// The events a provider would stream for `response`: text in word-sized deltas, tool-call
/// arguments in two fragments.
pub fn stream_events(response: &Response) -> Vec<StreamEvent> {
    let mut events =
        vec![StreamEvent::StreamStart { id: Some(response.id.clone()), model: Some(response.model.clone()), warnings: vec![] }];
    for (i, part) in response.message.content.iter().enumerate() {
        let id = format!("{i}");
        match part {
            ContentPart::Text { text } => {
                events.push(StreamEvent::TextStart { text_id: id.clone() });
                events.extend(
                    text.split_inclusive(' ').map(|w| StreamEvent::TextDelta { text_id: id.clone(), delta: w.to_owned() }),
                );
                events.push(StreamEvent::TextEnd { text_id: id });
            }
            ContentPart::Thinking { thinking } => {
                events.push(StreamEvent::ReasoningStart { id: id.clone() });
                events.push(StreamEvent::ReasoningDelta { id: id.clone(), delta: thinking.text.clone() });
                events.push(StreamEvent::ReasoningEnd { id, signature: thinking.signature.clone() });
            }
            ContentPart::RedactedThinking { thinking } => {
                events.push(StreamEvent::RedactedReasoning { data: thinking.text.clone() })
            }
            ContentPart::ToolCall { tool_call } => {
                let raw = tool_call.raw_arguments.clone().unwrap_or_else(|| tool_call.arguments.to_string());
                let cut = raw.char_indices().nth(raw.chars().count() / 2).map_or(raw.len(), |(at, _)| at);
                let call_id = tool_call.id.clone();
                events.push(StreamEvent::ToolCallStart { call_id: call_id.clone(), name: tool_call.name.clone() });
                events.push(StreamEvent::ToolCallDelta { call_id: call_id.clone(), delta: raw[..cut].to_owned() });
                events.push(StreamEvent::ToolCallDelta { call_id, delta: raw[cut..].to_owned() });
                events.push(StreamEvent::ToolCallEnd { tool_call: tool_call.clone() });
            }
            _ => {}
        }
    }
    events.push(StreamEvent::Finish { finish_reason: response.finish_reason.clone(), usage: response.usage.clone() });
    events
}

#[async_trait(?Send)]
impl LlmClient for ScriptedClient {
    fn provider(&self) -> &str {
        Self::PROVIDER
    }

    async fn complete(&self, request: &Request) -> Result<Response, LlmError> {
        match self.next_step(request)? {
            ScriptStep::Reply(response) => Ok(response),
            ScriptStep::Events(events) => collect_stream(Self::PROVIDER, Box::pin(stream::iter(events))).await,
            ScriptStep::Fail(error) => Err(error),
            ScriptStep::Hang => futures::future::pending().await,
        }
    }

    async fn stream(&self, request: &Request) -> Result<EventStream, LlmError> {
        match self.next_step(request)? {
            ScriptStep::Reply(response) => Ok(Box::pin(stream::iter(stream_events(&response)))),
            ScriptStep::Events(events) => Ok(Box::pin(stream::iter(events))),
            ScriptStep::Fail(error) => Err(error),
            ScriptStep::Hang => Ok(Box::pin(stream::pending())),
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use futures::executor::block_on;
    use serde_json::json;

    #[test]
    fn streamed_and_whole_replies_agree() {
        let steps = [ScriptStep::tool_call("read_file", json!({"file_path": "a.txt"})), ScriptStep::text("all done here")];
        let whole = ScriptedClient::new(steps.clone());
        let streamed = ScriptedClient::new(steps);
        let request = Request::default();
        for _ in 0..2 {
            let a = block_on(whole.complete(&request)).unwrap();
            let events = block_on(streamed.stream(&request)).unwrap();
            let b = block_on(collect_stream(ScriptedClient::PROVIDER, events)).unwrap();
            assert_eq!(a, b);
        }
        assert_eq!(whole.calls(), 2);
    }

    #[test]
    fn an_exhausted_script_is_an_error_not_a_panic() {
        let client = ScriptedClient::new([]);
        let err = block_on(client.complete(&Request::default())).unwrap_err();
        assert_eq!(err.kind, ErrorKind::Configuration);
    }
}
