//! Writing a snapshot, by hand, as `snapshot_read` reads it back: a derived `Serialize` for the
//! whole state cost the browser bundle several times this writer (DESIGN.md: the bundle is a
//! budget). The JSON is the one the derives wrote before it, fields in the same order (the serde
//! samples in `web/tests/serde_samples.ts` hold it to that).
//!
//! Each part of the state lists its fields as [`Node`]s that borrow from it, and one small
//! generic function writes any node to the serializer at hand: the code generated per serializer
//! is that function, not a copy per field, and nothing of the state is copied or built into a tree
//! first. The parts that keep a derived `Serialize` for other uses (the usage, the outcome, a
//! subagent's result) go through it.

use serde::ser::{SerializeMap, SerializeSeq};
use serde::{Serialize, Serializer};
use serde_json::Value;

use super::outcome::AgentOutcome;
use super::state::{SessionState, SubAgentRecord};
use super::{RunResult, SessionConfig, SessionSnapshot, SubAgentResult, ToolLimits, Turn};
use crate::llm::{base64, ContentPart, MediaData, Message, Role, ThinkingData, ToolCall, ToolResult, Usage};

/// One JSON value of a snapshot, borrowed from the state.
#[derive(Clone, Copy)]
pub(super) enum Node<'a> {
    Null,
    Text(&'a str),
    Number(u64),
    Flag(bool),
    Json(&'a Value),
    /// Bytes, written as standard base64.
    Bytes(&'a [u8]),
    Texts(&'a [String]),
    Numbers(&'a [u64]),
    Limits(&'a ToolLimits),
    Snapshot(&'a SessionSnapshot),
    State(&'a SessionState),
    Turns(&'a [Turn]),
    Turn(&'a Turn),
    Message(&'a Message),
    Parts(&'a [ContentPart]),
    Part(&'a ContentPart),
    Media(&'a MediaData),
    Medias(&'a [MediaData]),
    ToolCall(&'a ToolCall),
    ToolResults(&'a [ToolResult]),
    ToolResult(&'a ToolResult),
    Thinking(&'a ThinkingData),
    Config(&'a SessionConfig),
    RunResult(&'a RunResult),
    SubAgents(&'a [SubAgentRecord]),
    SubAgent(&'a SubAgentRecord),
    // Parts with a derived `Serialize` that stays for other uses.
    Usage(&'a Usage),
    Outcome(&'a AgentOutcome),
    SubAgentResult(&'a SubAgentResult),
}

impl Serialize for Node<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        fn list<'a, S: Serializer, T: 'a>(
            s: S,
            items: impl ExactSizeIterator<Item = &'a T>,
            node: fn(&'a T) -> Node<'a>,
        ) -> Result<S::Ok, S::Error> {
            let mut seq = s.serialize_seq(Some(items.len()))?;
            for item in items {
                seq.serialize_element(&node(item))?;
            }
            seq.end()
        }
        match *self {
            Self::Null => serializer.serialize_unit(),
            Self::Text(text) => serializer.serialize_str(text),
            Self::Number(number) => serializer.serialize_u64(number),
            Self::Flag(flag) => serializer.serialize_bool(flag),
            Self::Json(value) => value.serialize(serializer),
            Self::Bytes(bytes) => serializer.serialize_str(&base64::encode(bytes)),
            Self::Texts(texts) => list(serializer, texts.iter(), |text| Node::Text(text)),
            Self::Numbers(numbers) => list(serializer, numbers.iter(), |&number| Node::Number(number)),
            Self::Limits(limits) => {
                let mut map = serializer.serialize_map(Some(limits.len()))?;
                for (tool, limit) in limits.iter() {
                    map.serialize_entry(tool, &(*limit as u64))?;
                }
                map.end()
            }
            Self::Turns(turns) => list(serializer, turns.iter(), Node::Turn),
            Self::Parts(parts) => list(serializer, parts.iter(), Node::Part),
            Self::Medias(medias) => list(serializer, medias.iter(), Node::Media),
            Self::ToolResults(results) => list(serializer, results.iter(), Node::ToolResult),
            Self::SubAgents(records) => list(serializer, records.iter(), Node::SubAgent),
            Self::Usage(usage) => usage.serialize(serializer),
            Self::Outcome(outcome) => outcome.serialize(serializer),
            Self::SubAgentResult(result) => result.serialize(serializer),
            object => {
                let fields = object.fields();
                let mut map = serializer.serialize_map(Some(fields.len))?;
                for (key, value) in &fields.items[..fields.len] {
                    map.serialize_entry(key, value)?;
                }
                map.end()
            }
        }
    }
}

/// The fields of one object, in order; the largest (the config) has 16.
struct Fields<'a> {
    items: [(&'static str, Node<'a>); 16],
    len: usize,
}

impl<'a> Fields<'a> {
    fn new() -> Self {
        Self { items: [("", Node::Null); 16], len: 0 }
    }

    fn put(mut self, key: &'static str, value: Node<'a>) -> Self {
        self.items[self.len] = (key, value);
        self.len += 1;
        self
    }

    fn text(self, key: &'static str, text: &'a str) -> Self {
        self.put(key, Node::Text(text))
    }

    /// `null` when absent.
    fn optional(self, key: &'static str, text: &'a Option<String>) -> Self {
        self.put(key, text.as_deref().map_or(Node::Null, Node::Text))
    }

    /// `null` when absent.
    fn json(self, key: &'static str, value: &'a Option<Value>) -> Self {
        self.put(key, value.as_ref().map_or(Node::Null, Node::Json))
    }

    /// `null` when absent.
    fn number(self, key: &'static str, number: Option<u64>) -> Self {
        self.put(key, number.map_or(Node::Null, Node::Number))
    }

    /// Left out when absent.
    fn skip_none(self, key: &'static str, text: &'a Option<String>) -> Self {
        match text {
            Some(text) => self.text(key, text),
            None => self,
        }
    }

    /// Left out when absent.
    fn bytes(self, key: &'static str, bytes: &'a Option<Vec<u8>>) -> Self {
        match bytes {
            Some(bytes) => self.put(key, Node::Bytes(bytes)),
            None => self,
        }
    }

    fn count(self, key: &'static str, count: usize) -> Self {
        self.put(key, Node::Number(count as u64))
    }
}

impl<'a> Node<'a> {
    /// The fields of an object node. Tagged enums put their tag first, as serde writes them.
    fn fields(self) -> Fields<'a> {
        let new = Fields::new;
        match self {
            Self::Snapshot(snapshot) => new()
                .text("schema", &snapshot.schema)
                .text("session_id", &snapshot.session_id)
                .text("provider", &snapshot.provider)
                .text("model", &snapshot.model)
                .put("state", Node::State(&snapshot.state))
                .json("output_schema", &snapshot.output_schema)
                .optional("user_instructions", &snapshot.user_instructions)
                .json("environment", &snapshot.environment),
            Self::State(state) => new()
                .put("history", Node::Turns(&state.history))
                .put("total_usage", Node::Usage(&state.total_usage))
                .count("turns", state.turns)
                .put("steering", Node::Texts(&state.steering))
                .put("followups", Node::Texts(&state.followups))
                .put("config", Node::Config(&state.config))
                .put("last_result", state.last_result.as_ref().map_or(Node::Null, Node::RunResult))
                .put("recent_calls", Node::Numbers(&state.recent_calls))
                .count("compactions", state.compactions)
                .put("subagents", Node::SubAgents(&state.subagents)),
            Self::Turn(turn) => turn_fields(turn),
            Self::Message(message) => new()
                .text("role", role(message.role))
                .put("content", Node::Parts(&message.content))
                .skip_none("name", &message.name)
                .skip_none("tool_call_id", &message.tool_call_id),
            Self::Part(part) => {
                let (kind, key, value) = match part {
                    ContentPart::Text { text } => ("text", "text", Node::Text(text)),
                    ContentPart::Image { image } => ("image", "image", Node::Media(image)),
                    ContentPart::Audio { audio } => ("audio", "audio", Node::Media(audio)),
                    ContentPart::Document { document } => ("document", "document", Node::Media(document)),
                    ContentPart::ToolCall { tool_call } => ("tool_call", "tool_call", Node::ToolCall(tool_call)),
                    ContentPart::ToolResult { tool_result } => ("tool_result", "tool_result", Node::ToolResult(tool_result)),
                    ContentPart::Thinking { thinking } => ("thinking", "thinking", Node::Thinking(thinking)),
                    ContentPart::RedactedThinking { thinking } => ("redacted_thinking", "thinking", Node::Thinking(thinking)),
                };
                new().text("kind", kind).put(key, value)
            }
            Self::Media(media) => new()
                .skip_none("url", &media.url)
                .bytes("data", &media.data)
                .skip_none("media_type", &media.media_type)
                .skip_none("detail", &media.detail)
                .skip_none("file_name", &media.file_name),
            Self::ToolCall(call) => new()
                .text("id", &call.id)
                .text("name", &call.name)
                .put("arguments", Node::Json(&call.arguments))
                .skip_none("raw_arguments", &call.raw_arguments)
                .text("type", &call.call_type)
                .skip_none("signature", &call.signature),
            Self::ToolResult(result) => new()
                .text("tool_call_id", &result.tool_call_id)
                .text("content", &result.content)
                .put("is_error", Node::Flag(result.is_error))
                .bytes("image_data", &result.image_data)
                .skip_none("image_media_type", &result.image_media_type),
            Self::Thinking(thinking) => new()
                .text("text", &thinking.text)
                .skip_none("signature", &thinking.signature)
                .put("redacted", Node::Flag(thinking.redacted))
                .skip_none("id", &thinking.id),
            // Every setting, `null` for those unset.
            Self::Config(config) => new()
                .count("max_turns", config.max_turns)
                .count("max_tool_rounds_per_input", config.max_tool_rounds_per_input)
                .number("default_command_timeout_ms", config.default_command_timeout_ms)
                .put("max_command_timeout_ms", Node::Number(config.max_command_timeout_ms))
                .optional("reasoning_effort", &config.reasoning_effort)
                .number("max_output_tokens", config.max_output_tokens)
                .put("tool_output_limits", Node::Limits(&config.tool_output_limits))
                .put("tool_line_limits", Node::Limits(&config.tool_line_limits))
                .put("enable_loop_detection", Node::Flag(config.enable_loop_detection))
                .count("loop_detection_window", config.loop_detection_window)
                .put("enable_repeat_guard", Node::Flag(config.enable_repeat_guard))
                .count("max_subagent_depth", config.max_subagent_depth)
                .count("max_result_attempts", config.max_result_attempts)
                .number("context_window", config.context_window.map(|window| window as u64))
                .count("compaction_threshold_percent", config.compaction_threshold_percent)
                .number("compaction_keep_recent_tokens", config.compaction_keep_recent_tokens.map(|tokens| tokens as u64)),
            Self::RunResult(result) => new()
                .text("result_text", &result.result_text)
                .json("result_data", &result.result_data)
                .put("outcome", Node::Outcome(&result.outcome)),
            Self::SubAgent(record) => new()
                .text("agent_id", &record.agent_id)
                .optional("working_dir", &record.working_dir)
                .optional("model", &record.model)
                .json("output_schema", &record.output_schema)
                .put("state", Node::State(&record.state))
                .put("result", record.result.as_ref().map_or(Node::Null, Node::SubAgentResult)),
            _ => new(),
        }
    }
}

fn turn_fields(turn: &Turn) -> Fields<'_> {
    let tagged = |kind: &'static str| Fields::new().text("type", kind);
    let (fields, timestamp) = match turn {
        Turn::User { content, images, timestamp } => {
            let fields = tagged("user").text("content", content);
            match images.is_empty() {
                true => (fields, timestamp),
                false => (fields.put("images", Node::Medias(images)), timestamp),
            }
        }
        Turn::Assistant { message, usage, response_id, timestamp } => {
            let fields = tagged("assistant").put("message", Node::Message(message)).put("usage", Node::Usage(usage));
            (fields.optional("response_id", response_id), timestamp)
        }
        Turn::ToolResults { results, timestamp } => {
            (tagged("tool_results").put("results", Node::ToolResults(results)), timestamp)
        }
        Turn::System { content, timestamp } => (tagged("system").text("content", content), timestamp),
        Turn::Steering { content, timestamp } => (tagged("steering").text("content", content), timestamp),
        Turn::Summary { content, summarized_turns, timestamp } => {
            (tagged("summary").text("content", content).count("summarized_turns", *summarized_turns), timestamp)
        }
    };
    fields.put("timestamp", Node::Number(*timestamp))
}

fn role(role: Role) -> &'static str {
    match role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
        Role::Developer => "developer",
    }
}
