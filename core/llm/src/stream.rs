//! Streaming (unified-llm-spec 3.13, 3.14): the events a codec produces, and the accumulator that
//! folds them back into one [`Response`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::{ErrorKind, LlmError};
use super::types::{ContentPart, FinishReason, Message, Response, Role, ThinkingData, ToolCall, ToolResult, Usage, Warning};

/// One normalised stream event. Text, reasoning and tool calls follow start/delta/end; a call's
/// stream ends with exactly one `Finish` or `Error`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    StreamStart {
        #[serde(default)]
        id: Option<String>,
        #[serde(default)]
        model: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        warnings: Vec<Warning>,
    },
    TextStart {
        text_id: String,
    },
    TextDelta {
        text_id: String,
        delta: String,
    },
    TextEnd {
        text_id: String,
    },
    ReasoningStart {
        id: String,
    },
    ReasoningDelta {
        id: String,
        delta: String,
    },
    /// Ends a reasoning segment, with the signature to echo back when the provider gave one.
    ReasoningEnd {
        id: String,
        #[serde(default)]
        signature: Option<String>,
    },
    /// Opaque reasoning delivered whole (Anthropic `redacted_thinking`).
    RedactedReasoning {
        data: String,
    },
    ToolCallStart {
        call_id: String,
        name: String,
    },
    /// A fragment of the call's JSON argument text.
    ToolCallDelta {
        call_id: String,
        delta: String,
    },
    /// The call, complete and ready to execute.
    ToolCallEnd {
        tool_call: ToolCall,
    },
    Finish {
        finish_reason: FinishReason,
        usage: Usage,
    },
    Error {
        error: LlmError,
    },
    /// Between two steps of the high-level [`stream`](fn@crate::stream) (spec 5.9; no provider sends
    /// it): the step that just finished called tools, these are their results, in call order, and
    /// the next step's events follow.
    StepFinish {
        tool_results: Vec<ToolResult>,
    },
    /// A provider event with no unified meaning, passed through.
    ProviderEvent {
        raw: Value,
    },
}

impl StreamEvent {
    /// The text a `TextDelta` adds; `None` for every other event.
    pub fn text_delta(&self) -> Option<&str> {
        match self {
            Self::TextDelta { delta, .. } => Some(delta),
            _ => None,
        }
    }
}

/// Folds stream events into the [`Response`] they describe, in the order parts arrived.
#[derive(Debug, Default)]
pub struct StreamAccumulator {
    id: Option<String>,
    model: Option<String>,
    warnings: Vec<Warning>,
    content: Vec<ContentPart>,
    open_text: Option<(String, usize)>,
    open_reasoning: Option<(String, usize)>,
    finish: Option<(FinishReason, Usage)>,
    error: Option<LlmError>,
}

impl StreamAccumulator {
    pub fn new() -> Self {
        Self::default()
    }

    /// Folds in one event. It is taken whole: what it carries (a tool call, the usage) moves into
    /// the response rather than being copied.
    pub fn push(&mut self, event: StreamEvent) {
        match event {
            StreamEvent::StreamStart { id, model, warnings } => {
                self.id = id.or(self.id.take());
                self.model = model.or(self.model.take());
                self.warnings.extend(warnings);
            }
            StreamEvent::TextStart { text_id } => self.open_text_part(&text_id),
            StreamEvent::TextDelta { text_id, delta } => {
                if self.open_text.as_ref().is_none_or(|(id, _)| *id != text_id) {
                    self.open_text_part(&text_id);
                }
                if let Some((_, at)) = &self.open_text {
                    if let ContentPart::Text { text } = &mut self.content[*at] {
                        text.push_str(&delta);
                    }
                }
            }
            StreamEvent::TextEnd { .. } => self.open_text = None,
            StreamEvent::ReasoningStart { id } => self.open_reasoning_part(&id),
            StreamEvent::ReasoningDelta { id, delta } => {
                if self.open_reasoning.as_ref().is_none_or(|(open, _)| *open != id) {
                    self.open_reasoning_part(&id);
                }
                if let Some(thinking) = self.open_thinking() {
                    thinking.text.push_str(&delta);
                }
            }
            StreamEvent::ReasoningEnd { id, signature } => {
                if self.open_reasoning.as_ref().is_none_or(|(open, _)| *open != id) {
                    self.open_reasoning_part(&id);
                }
                if let Some(thinking) = self.open_thinking() {
                    thinking.signature = signature;
                }
                self.open_reasoning = None;
            }
            StreamEvent::RedactedReasoning { data } => self.content.push(ContentPart::RedactedThinking {
                thinking: ThinkingData { text: data, redacted: true, ..ThinkingData::default() },
            }),
            StreamEvent::ToolCallEnd { tool_call } => self.content.push(ContentPart::ToolCall { tool_call }),
            StreamEvent::Finish { finish_reason, usage } => self.finish = Some((finish_reason, usage)),
            StreamEvent::Error { error } => self.error = Some(error),
            StreamEvent::ToolCallStart { .. }
            | StreamEvent::ToolCallDelta { .. }
            | StreamEvent::ProviderEvent { .. }
            | StreamEvent::StepFinish { .. } => {}
        }
    }

    fn open_text_part(&mut self, text_id: &str) {
        self.open_text = Some((text_id.to_owned(), self.content.len()));
        self.content.push(ContentPart::text(String::new()));
    }

    /// The segment id is kept as the part's id: APIs that replay reasoning items by id (OpenAI
    /// Responses) stream the item id as the segment id.
    fn open_reasoning_part(&mut self, id: &str) {
        self.open_reasoning = Some((id.to_owned(), self.content.len()));
        let thinking = ThinkingData { id: Some(id.to_owned()), ..ThinkingData::default() };
        self.content.push(ContentPart::Thinking { thinking });
    }

    fn open_thinking(&mut self) -> Option<&mut ThinkingData> {
        let (_, at) = self.open_reasoning.as_ref()?;
        match &mut self.content[*at] {
            ContentPart::Thinking { thinking } => Some(thinking),
            _ => None,
        }
    }

    /// The response, or the stream's error. A stream that stopped without `Finish` or `Error` is a
    /// stream error: the connection ended before the provider said it was done.
    pub fn finish(self, provider: &str) -> Result<Response, LlmError> {
        if let Some(error) = self.error {
            return Err(error);
        }
        let Some((finish_reason, usage)) = self.finish else {
            return Err(LlmError::new(ErrorKind::Stream, "the stream ended before the model finished its response")
                .with_provider(provider));
        };
        let mut content = self.content;
        content.retain(|part| !matches!(part, ContentPart::Text { text } if text.is_empty()));
        Ok(Response {
            id: self.id.unwrap_or_default(),
            model: self.model.unwrap_or_default(),
            provider: provider.to_owned(),
            message: Message::new(Role::Assistant, content),
            finish_reason,
            usage,
            raw: None,
            warnings: self.warnings,
            rate_limit: None,
        })
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::Reason;
    use serde_json::json;

    #[test]
    fn accumulates_text_reasoning_and_tool_calls_in_order() {
        let mut acc = StreamAccumulator::new();
        let events = [
            StreamEvent::StreamStart { id: Some("r1".into()), model: Some("m".into()), warnings: vec![] },
            StreamEvent::ReasoningStart { id: "t".into() },
            StreamEvent::ReasoningDelta { id: "t".into(), delta: "think".into() },
            StreamEvent::ReasoningEnd { id: "t".into(), signature: Some("sig".into()) },
            StreamEvent::TextStart { text_id: "a".into() },
            StreamEvent::TextDelta { text_id: "a".into(), delta: "Hel".into() },
            StreamEvent::TextDelta { text_id: "a".into(), delta: "lo".into() },
            StreamEvent::TextEnd { text_id: "a".into() },
            StreamEvent::ToolCallStart { call_id: "c".into(), name: "f".into() },
            StreamEvent::ToolCallDelta { call_id: "c".into(), delta: "{}".into() },
            StreamEvent::ToolCallEnd { tool_call: ToolCall::new("c", "f", json!({})) },
            StreamEvent::Finish { finish_reason: FinishReason::new(Reason::ToolCalls, None), usage: Usage::new(3, 4) },
        ];
        events.iter().for_each(|e| acc.push(e.clone()));
        let response = acc.finish("test").unwrap();
        assert_eq!(response.id, "r1");
        assert_eq!(response.text(), "Hello");
        assert_eq!(response.reasoning().as_deref(), Some("think"));
        assert_eq!(response.tool_calls().len(), 1);
        assert!(
            matches!(&response.message.content[0], ContentPart::Thinking { thinking } if thinking.signature.as_deref() == Some("sig"))
        );
        assert_eq!(response.usage.total_tokens, 7);
    }

    #[test]
    fn a_stream_without_finish_is_a_stream_error() {
        let mut acc = StreamAccumulator::new();
        acc.push(StreamEvent::TextDelta { text_id: "a".into(), delta: "partial".into() });
        assert_eq!(acc.finish("p").unwrap_err().kind, ErrorKind::Stream);
    }
}
