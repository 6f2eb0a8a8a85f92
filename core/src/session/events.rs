//! The session's events (spec 2.9): one closed enum, delivered as an async stream, serialised as
//! `{"kind": "...", "timestamp": "...", "session_id": "...", "data": {...}}` in snake_case.

use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::compaction::CompactionReason;
use super::outcome::AgentOutcome;
use super::SessionStatus;
use crate::llm::{json_text, ErrorKind, SharedText, Usage};

/// What happened. The variant is the event's `kind`; its fields are the `data`. Serialised by
/// hand (see [`EventData::data`]); read back through the derive.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
#[serde(tag = "kind", content = "data", rename_all = "snake_case")]
pub enum EventData {
    SessionStart {
        provider: String,
        model: String,
        working_directory: String,
    },
    /// The session closed; `reason` says why (`closed`, `aborted`, `error`).
    SessionEnd {
        state: SessionStatus,
        reason: String,
    },
    UserInput {
        content: String,
        /// The attached images' names (a path, a URL, or what the host called them).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        images: Vec<String>,
    },
    /// The input is handled; `state` is where the session is now.
    ProcessingEnd {
        state: SessionStatus,
        reason: StopReason,
    },
    /// A model call is about to be made; `turn` counts the session's model calls from 1.
    TurnStart {
        turn: usize,
    },
    /// A model call failed transiently and is tried again after `delay_ms`; `attempt` counts retries from 1.
    ProviderRetry {
        attempt: u32,
        delay_ms: u64,
        error_kind: ErrorKind,
        message: String,
    },
    AssistantTextStart {
        response_id: Option<String>,
    },
    /// Only the new text, never the text so far.
    AssistantTextDelta {
        delta: String,
    },
    /// The model's reasoning as it streams (thinking, where the provider sends it), before its
    /// text: only the new part. The whole of it is in `assistant_text_end`'s `reasoning`.
    AssistantReasoningDelta {
        delta: String,
    },
    /// The model's whole response text and reasoning, with this call's usage and the session's
    /// running total.
    AssistantTextEnd {
        text: String,
        reasoning: Option<String>,
        tool_call_count: usize,
        usage: Usage,
        total_usage: Usage,
    },
    ToolCallStart {
        call_id: String,
        tool_name: String,
        arguments: Value,
    },
    /// The approval policy asks whether the call may run (its arguments are in its
    /// `tool_call_start`); the host's approver is asked now. `reason` says why it asks; `always`
    /// is the rule an "always" answer would add (``shell `cargo test` ``).
    ApprovalRequested {
        call_id: String,
        tool_name: String,
        reason: String,
        always: String,
    },
    /// Whether a call is run: `source` is the check that decided (`registry` for an unknown
    /// tool, `arguments` for arguments that are not a JSON object, `schema` for the tool's
    /// schema; then the approval policy: `rule`, `mode`, or `approver` for a call it asked about;
    /// then `sandbox`, a second decision on a call the sandbox refused, allowed to run outside it
    /// or kept in).
    ToolDecision {
        call_id: String,
        tool_name: String,
        decision: Decision,
        reason: Option<String>,
        source: String,
    },
    ToolCallOutputDelta {
        call_id: String,
        delta: String,
    },
    /// The FULL output (the model may get a truncated one), or the error.
    ToolCallEnd {
        call_id: String,
        tool_name: String,
        // Shared with the history's result when the model got it whole.
        #[cfg_attr(feature = "typings", ts(type = "string | null"))]
        output: Option<SharedText>,
        error: Option<String>,
        duration_ms: u64,
    },
    SteeringInjected {
        content: String,
    },
    /// Older history is about to be summarised; `tokens_before` is the estimate of the next
    /// request, against `context_window`.
    CompactionStart {
        reason: CompactionReason,
        tokens_before: u64,
        context_window: u64,
    },
    /// The summary replaced `summarized_turns` turns (0: nothing was old enough, or `error`
    /// says why no summary could be written); `kept_turns` stay whole after it.
    CompactionEnd {
        reason: CompactionReason,
        tokens_before: u64,
        tokens_after: u64,
        summarized_turns: usize,
        kept_turns: usize,
        error: Option<String>,
    },
    /// How the input ended: the result text, the accepted submission (`null` without an output
    /// schema) and the typed outcome. Emitted once per input, just before `processing_end`.
    Result {
        result_text: String,
        result_data: Option<Value>,
        outcome: AgentOutcome,
    },
    TurnLimit {
        limit: String,
        count: usize,
    },
    LoopDetection {
        message: String,
    },
    Warning {
        message: String,
    },
    Error {
        message: String,
        error_kind: Option<ErrorKind>,
    },
}

/// What became of a tool call before it ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    Allow,
    Deny,
}

/// Why processing of an input stopped (spec 2.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model answered without tool calls.
    Completed,
    /// `max_tool_rounds_per_input` was reached.
    RoundLimit,
    /// `max_turns` was reached.
    TurnLimit,
    /// The model's answer stopped at the output token limit (finish reason `length`): it is
    /// cut off, not finished.
    OutputLimit,
    /// [`Session::abort`](super::Session::abort): the session is closed.
    Aborted,
    /// [`Session::interrupt`](super::Session::interrupt): this input stopped, the session goes on.
    Interrupted,
    /// The model called `give_up`.
    GaveUp,
    /// An output schema was set and no valid result came within `max_result_attempts`.
    NoResult,
    /// A `user_prompt_submit` hook refused the input: it never reached the history.
    Blocked,
    Error,
}

impl Serialize for EventData {
    /// `{"kind": ..., "data": {...}}`, as serde's adjacent tagging writes it.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut s = serializer.serialize_struct("EventData", 2)?;
        s.serialize_field("kind", self.kind())?;
        s.serialize_field("data", &Value::Object(self.data()))?;
        s.end()
    }
}

/// One field of an event's `data`, borrowed from the event.
enum Field<'a> {
    Text(&'a str),
    /// `null` when absent.
    Optional(Option<&'a str>),
    Number(u64),
    Json(&'a Value),
    /// A part with a derived `Serialize` (an enum, the usage, the outcome), as its value.
    Value(Value),
}

/// The fields of an event's `data`, added one by one.
struct Fields<'a>(Vec<(&'static str, Field<'a>)>);

impl<'a> Fields<'a> {
    fn add(mut self, name: &'static str, field: Field<'a>) -> Self {
        self.0.push((name, field));
        self
    }

    fn text(self, name: &'static str, text: &'a str) -> Self {
        self.add(name, Field::Text(text))
    }

    fn optional(self, name: &'static str, text: &'a Option<impl AsRef<str>>) -> Self {
        self.add(name, Field::Optional(text.as_ref().map(AsRef::as_ref)))
    }

    fn number(self, name: &'static str, number: u64) -> Self {
        self.add(name, Field::Number(number))
    }

    fn json(self, name: &'static str, value: &impl Serialize) -> Self {
        self.add(name, Field::Value(serde_json::to_value(value).unwrap_or(Value::Null)))
    }
}

impl EventData {
    /// The event's `data`: its fields by name. Written by hand: a derived `Serialize` for all
    /// the kinds cost the browser bundle 2.5 KB gzipped more.
    pub fn data(&self) -> Map<String, Value> {
        let mut data = Map::new();
        for (name, field) in self.fields().0 {
            let value = match field {
                Field::Text(text) | Field::Optional(Some(text)) => Value::String(text.to_owned()),
                Field::Optional(None) => Value::Null,
                Field::Number(number) => Value::from(number),
                Field::Json(value) => value.clone(),
                Field::Value(value) => value,
            };
            data.insert(name.to_owned(), value);
        }
        data
    }

    /// Appends the event's `data` as compact JSON text, as [`json_text`] writes [`Self::data`]
    /// (keys in order), without building it: a tool call's end carries its whole output.
    fn write_data(&self, out: &mut Vec<u8>) {
        let mut fields = self.fields().0;
        // The order a map keeps its keys in; a kind has six fields at most.
        for at in 1..fields.len() {
            let mut i = at;
            while i > 0 && fields[i - 1].0 > fields[i].0 {
                fields.swap(i - 1, i);
                i -= 1;
            }
        }
        out.push(b'{');
        for (i, (name, field)) in fields.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            json_text::write_str(name, out);
            out.push(b':');
            match field {
                Field::Text(text) | Field::Optional(Some(text)) => json_text::write_str(text, out),
                Field::Optional(None) => out.extend_from_slice(b"null"),
                Field::Number(number) => out.extend_from_slice(itoa::Buffer::new().format(*number).as_bytes()),
                Field::Json(value) => json_text::write(value, out),
                Field::Value(value) => json_text::write(value, out),
            }
        }
        out.push(b'}');
    }

    fn fields(&self) -> Fields<'_> {
        let data = Fields(Vec::with_capacity(6));
        match self {
            Self::SessionStart { provider, model, working_directory } => {
                data.text("provider", provider).text("model", model).text("working_directory", working_directory)
            }
            Self::SessionEnd { state, reason } => data.json("state", state).text("reason", reason),
            Self::UserInput { content, images } if images.is_empty() => data.text("content", content),
            Self::UserInput { content, images } => data.text("content", content).json("images", images),
            Self::ProcessingEnd { state, reason } => data.json("state", state).json("reason", reason),
            Self::TurnStart { turn } => data.number("turn", *turn as u64),
            Self::ProviderRetry { attempt, delay_ms, error_kind, message } => data
                .number("attempt", u64::from(*attempt))
                .number("delay_ms", *delay_ms)
                .json("error_kind", error_kind)
                .text("message", message),
            Self::AssistantTextStart { response_id } => data.optional("response_id", response_id),
            Self::AssistantTextDelta { delta } | Self::AssistantReasoningDelta { delta } => data.text("delta", delta),
            Self::AssistantTextEnd { text, reasoning, tool_call_count, usage, total_usage } => data
                .text("text", text)
                .optional("reasoning", reasoning)
                .number("tool_call_count", *tool_call_count as u64)
                .json("usage", usage)
                .json("total_usage", total_usage),
            Self::ToolCallStart { call_id, tool_name, arguments } => {
                data.text("call_id", call_id).text("tool_name", tool_name).add("arguments", Field::Json(arguments))
            }
            Self::ApprovalRequested { call_id, tool_name, reason, always } => {
                data.text("call_id", call_id).text("tool_name", tool_name).text("reason", reason).text("always", always)
            }
            Self::ToolDecision { call_id, tool_name, decision, reason, source } => data
                .text("call_id", call_id)
                .text("tool_name", tool_name)
                .json("decision", decision)
                .optional("reason", reason)
                .text("source", source),
            Self::ToolCallOutputDelta { call_id, delta } => data.text("call_id", call_id).text("delta", delta),
            Self::ToolCallEnd { call_id, tool_name, output, error, duration_ms } => data
                .text("call_id", call_id)
                .text("tool_name", tool_name)
                .optional("output", output)
                .optional("error", error)
                .number("duration_ms", *duration_ms),
            Self::SteeringInjected { content } => data.text("content", content),
            Self::CompactionStart { reason, tokens_before, context_window } => {
                data.json("reason", reason).number("tokens_before", *tokens_before).number("context_window", *context_window)
            }
            Self::CompactionEnd { reason, tokens_before, tokens_after, summarized_turns, kept_turns, error } => data
                .json("reason", reason)
                .number("tokens_before", *tokens_before)
                .number("tokens_after", *tokens_after)
                .number("summarized_turns", *summarized_turns as u64)
                .number("kept_turns", *kept_turns as u64)
                .optional("error", error),
            Self::Result { result_text, result_data, outcome } => data
                .text("result_text", result_text)
                .add("result_data", result_data.as_ref().map_or(Field::Optional(None), Field::Json))
                .json("outcome", outcome),
            Self::TurnLimit { limit, count } => data.text("limit", limit).number("count", *count as u64),
            Self::LoopDetection { message } | Self::Warning { message } => data.text("message", message),
            Self::Error { message, error_kind } => data.text("message", message).json("error_kind", error_kind),
        }
    }

    /// The `kind` string this event serialises with.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::SessionStart { .. } => "session_start",
            Self::SessionEnd { .. } => "session_end",
            Self::UserInput { .. } => "user_input",
            Self::ProcessingEnd { .. } => "processing_end",
            Self::TurnStart { .. } => "turn_start",
            Self::ProviderRetry { .. } => "provider_retry",
            Self::AssistantTextStart { .. } => "assistant_text_start",
            Self::AssistantTextDelta { .. } => "assistant_text_delta",
            Self::AssistantReasoningDelta { .. } => "assistant_reasoning_delta",
            Self::AssistantTextEnd { .. } => "assistant_text_end",
            Self::ToolCallStart { .. } => "tool_call_start",
            Self::ApprovalRequested { .. } => "approval_requested",
            Self::ToolDecision { .. } => "tool_decision",
            Self::ToolCallOutputDelta { .. } => "tool_call_output_delta",
            Self::ToolCallEnd { .. } => "tool_call_end",
            Self::SteeringInjected { .. } => "steering_injected",
            Self::CompactionStart { .. } => "compaction_start",
            Self::CompactionEnd { .. } => "compaction_end",
            Self::Result { .. } => "result",
            Self::TurnLimit { .. } => "turn_limit",
            Self::LoopDetection { .. } => "loop_detection",
            Self::Warning { .. } => "warning",
            Self::Error { .. } => "error",
        }
    }
}

/// One event with its envelope: `kind` and `data` are the [`EventData`], beside the time and the
/// session it happened in.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS), ts(rename = "AgentEvent"))]
pub struct SessionEvent {
    /// RFC 3339 UTC.
    // Shared, as the session id is, by the events of the same millisecond.
    #[cfg_attr(feature = "typings", ts(type = "string"))]
    pub timestamp: SharedText,
    #[cfg_attr(feature = "typings", ts(type = "string"))]
    pub session_id: SharedText,
    #[cfg_attr(feature = "typings", ts(flatten))]
    pub data: EventData,
}

impl SessionEvent {
    pub fn kind(&self) -> &'static str {
        self.data.kind()
    }

    /// Appends the event as compact JSON text: what [`json_text`] writes of the event's value
    /// (`serde_json::to_value`), every key in order, without building that value first.
    pub fn write_json(&self, out: &mut Vec<u8>) {
        out.extend_from_slice(b"{\"data\":");
        self.data.write_data(out);
        out.extend_from_slice(b",\"kind\":");
        json_text::write_str(self.kind(), out);
        out.extend_from_slice(b",\"session_id\":");
        json_text::write_str(&self.session_id, out);
        out.extend_from_slice(b",\"timestamp\":");
        json_text::write_str(&self.timestamp, out);
        out.push(b'}');
    }
}

impl Serialize for SessionEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The envelope in a fixed order, the event's fields inside it.
        let mut s = serializer.serialize_struct("SessionEvent", 4)?;
        s.serialize_field("kind", self.kind())?;
        s.serialize_field("timestamp", &self.timestamp)?;
        s.serialize_field("session_id", &self.session_id)?;
        s.serialize_field("data", &Value::Object(self.data.data()))?;
        s.end()
    }
}

impl<'de> Deserialize<'de> for SessionEvent {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Envelope {
            kind: String,
            timestamp: String,
            session_id: String,
            #[serde(default)]
            data: Value,
        }
        let e = Envelope::deserialize(deserializer)?;
        let data =
            serde_json::from_value(serde_json::json!({ "kind": e.kind, "data": e.data })).map_err(serde::de::Error::custom)?;
        Ok(Self { timestamp: e.timestamp.into(), session_id: e.session_id.into(), data })
    }
}
