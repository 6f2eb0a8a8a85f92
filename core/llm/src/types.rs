//! The unified LLM data model (unified-llm-spec section 3): what every codec translates to and from.

use std::borrow::Cow;
use std::ops::{Add, AddAssign};

use openagent_jsonschema::sorted_map::SortedMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::memo::MessageMemo;
use crate::SharedText;

/// Who produced a message (spec 3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
    Developer,
}

/// One message of a conversation (spec 3.1).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
pub struct Message {
    pub role: Role,
    pub content: Vec<ContentPart>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
}

impl Message {
    pub fn new(role: Role, content: Vec<ContentPart>) -> Self {
        Self { role, content, name: None, tool_call_id: None }
    }

    pub fn text_message(role: Role, text: impl Into<String>) -> Self {
        Self::new(role, vec![ContentPart::text(text)])
    }

    pub fn system(text: impl Into<String>) -> Self {
        Self::text_message(Role::System, text)
    }

    pub fn user(text: impl Into<String>) -> Self {
        Self::text_message(Role::User, text)
    }

    pub fn assistant(text: impl Into<String>) -> Self {
        Self::text_message(Role::Assistant, text)
    }

    pub fn tool_result(result: ToolResult) -> Self {
        let tool_call_id = Some(result.tool_call_id.clone());
        Self { role: Role::Tool, content: vec![ContentPart::ToolResult { tool_result: result }], name: None, tool_call_id }
    }

    /// The concatenated text parts; empty when there are none.
    pub fn text(&self) -> String {
        self.content.iter().filter_map(ContentPart::as_text).collect()
    }

    pub fn tool_calls(&self) -> impl Iterator<Item = &ToolCall> {
        self.content.iter().filter_map(|part| match part {
            ContentPart::ToolCall { tool_call } => Some(tool_call),
            _ => None,
        })
    }
}

/// A tagged part of a message's content (spec 3.3, 3.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ContentPart {
    Text {
        text: String,
    },
    Image {
        image: MediaData,
    },
    Audio {
        audio: MediaData,
    },
    Document {
        document: MediaData,
    },
    ToolCall {
        tool_call: ToolCall,
    },
    ToolResult {
        tool_result: ToolResult,
    },
    /// Readable reasoning; its signature must go back to the same provider verbatim.
    Thinking {
        thinking: ThinkingData,
    },
    /// Opaque reasoning (Anthropic); `thinking.text` holds the opaque data, round-tripped verbatim.
    RedactedThinking {
        thinking: ThinkingData,
    },
}

impl ContentPart {
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text { text } => Some(text),
            _ => None,
        }
    }
}

/// An image, audio clip or document: by URL or inline bytes (spec 3.5).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
pub struct MediaData {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Inline bytes, serialised as standard base64.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::base64::option")]
    #[cfg_attr(feature = "typings", ts(type = "string"))]
    pub data: Option<Vec<u8>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// Image fidelity hint: `auto`, `low`, `high`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_name: Option<String>,
}

/// A tool invocation requested by the model (spec 3.5 ToolCallData, 5.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// Parsed arguments; `Value::Null` when the model's argument text was not valid JSON.
    pub arguments: Value,
    /// The argument text exactly as the provider sent it, kept for replay and error reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_arguments: Option<String>,
    /// `function` (default) or `custom`.
    // Borrowed but for an unusual type: a session copies every call a few times.
    #[serde(default = "ToolCall::default_type", rename = "type")]
    #[cfg_attr(feature = "typings", ts(type = "string"))]
    pub call_type: Cow<'static, str>,
    /// An opaque provider signature to echo back with this call (Gemini `thoughtSignature`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
}

impl ToolCall {
    pub fn new(id: impl Into<String>, name: impl Into<String>, arguments: Value) -> Self {
        Self {
            id: id.into(),
            name: name.into(),
            arguments,
            raw_arguments: None,
            call_type: Self::default_type(),
            signature: None,
        }
    }

    /// A call whose arguments arrived as text: parsed when they are JSON, kept raw either way.
    pub fn from_raw(id: impl Into<String>, name: impl Into<String>, raw: impl Into<String>) -> Self {
        let raw = raw.into();
        let arguments = if raw.trim().is_empty() {
            Value::Object(Default::default())
        } else {
            // `from_slice`, as response bodies are read: `from_str` would put a second JSON reader in the browser bundle.
            serde_json::from_slice(raw.as_bytes()).unwrap_or(Value::Null)
        };
        Self { raw_arguments: Some(raw), ..Self::new(id, name, arguments) }
    }

    fn default_type() -> Cow<'static, str> {
        Cow::Borrowed("function")
    }
}

/// The outcome of one tool call, sent back to the model (spec 3.5 ToolResultData).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
pub struct ToolResult {
    pub tool_call_id: String,
    // Shared, not copied, by the clones a conversation makes of it (its history and the request it
    // goes back in): a tool's output is often the largest thing a session holds.
    #[cfg_attr(feature = "typings", ts(type = "string"))]
    pub content: SharedText,
    pub is_error: bool,
    /// An image the tool returned, as standard base64.
    #[serde(default, skip_serializing_if = "Option::is_none", with = "crate::base64::option")]
    #[cfg_attr(feature = "typings", ts(type = "string"))]
    pub image_data: Option<Vec<u8>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_media_type: Option<String>,
}

impl ToolResult {
    pub fn new(tool_call_id: impl Into<String>, content: impl Into<SharedText>, is_error: bool) -> Self {
        Self { tool_call_id: tool_call_id.into(), content: content.into(), is_error, image_data: None, image_media_type: None }
    }
}

/// Model reasoning (spec 3.5 ThinkingData).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
pub struct ThinkingData {
    pub text: String,
    /// Provider signature (Anthropic `signature`, OpenAI `encrypted_content`), echoed verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(default)]
    pub redacted: bool,
    /// Provider item id, for APIs that replay reasoning items by id (OpenAI Responses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// A tool the model may call (spec 3.8, 5.1). `parameters` is a JSON Schema whose root is an object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// Whether and which tools the model must call (spec 5.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum ToolChoice {
    Auto,
    None,
    Required,
    Named { tool_name: String },
}

/// Text, free JSON, or JSON matching a schema (spec 3.10).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResponseFormat {
    Text,
    Json,
    JsonSchema {
        json_schema: Value,
        #[serde(default)]
        strict: bool,
    },
}

/// One LLM call (spec 3.6).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Request {
    pub model: String,
    pub messages: Vec<Message>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolDefinition>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_format: Option<ResponseFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub stop_sequences: Vec<String>,
    /// `low`, `medium`, `high` (some providers take more); `None` leaves the provider's default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_effort: Option<String>,
    #[serde(default, skip_serializing_if = "SortedMap::is_empty")]
    pub metadata: SortedMap<String, String>,
    /// Provider-specific parameters keyed by provider name; not portable by design.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_options: Option<Value>,
    /// The messages' wire form kept from earlier requests of the same conversation (off unless
    /// set; see [`MessageMemo`]). Not part of the request's value: not compared, saved nor cloned.
    #[serde(skip)]
    pub memo: MessageMemo,
}

/// Why generation stopped, portable and raw (spec 3.8).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FinishReason {
    pub reason: Reason,
    #[serde(default)]
    pub raw: Option<String>,
}

impl FinishReason {
    pub fn new(reason: Reason, raw: Option<&str>) -> Self {
        Self { reason, raw: raw.map(str::to_owned) }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Reason {
    Stop,
    Length,
    ToolCalls,
    ContentFilter,
    Error,
    Other,
}

/// Token counts; adding two sums every field, treating a missing optional count as 0 unless both
/// sides miss it (spec 3.9).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub total_tokens: u64,
    #[serde(default)]
    pub reasoning_tokens: Option<u64>,
    #[serde(default)]
    pub cache_read_tokens: Option<u64>,
    #[serde(default)]
    pub cache_write_tokens: Option<u64>,
    /// What the tokens cost in US dollars, by the [catalog](crate::catalog)'s prices for the model
    /// that answered; `None` (JSON `null`) when it has none. No codec sets it: the session and
    /// `generate` price each response, and a sum counts the responses that were priced.
    #[serde(default)]
    pub cost_usd: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<Value>,
}

impl Usage {
    pub fn new(input_tokens: u64, output_tokens: u64) -> Self {
        Self { input_tokens, output_tokens, total_tokens: input_tokens + output_tokens, ..Self::default() }
    }
}

fn add_optional<T: Add<Output = T> + Default>(a: Option<T>, b: Option<T>) -> Option<T> {
    match (a, b) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or_default() + b.unwrap_or_default()),
    }
}

impl AddAssign<&Usage> for Usage {
    fn add_assign(&mut self, other: &Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.total_tokens += other.total_tokens;
        self.reasoning_tokens = add_optional(self.reasoning_tokens, other.reasoning_tokens);
        self.cache_read_tokens = add_optional(self.cache_read_tokens, other.cache_read_tokens);
        self.cache_write_tokens = add_optional(self.cache_write_tokens, other.cache_write_tokens);
        self.cost_usd = add_optional(self.cost_usd, other.cost_usd);
        // Raw provider usage describes one call; a sum has none.
        self.raw = None;
    }
}

impl Add for Usage {
    type Output = Usage;

    fn add(mut self, other: Usage) -> Usage {
        self += &other;
        self
    }
}

/// A non-fatal issue reported with a response (spec 3.11).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Warning {
    pub message: String,
    #[serde(default)]
    pub code: Option<String>,
}

/// Rate-limit figures from response headers (spec 3.12); informational.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct RateLimitInfo {
    pub requests_remaining: Option<u64>,
    pub requests_limit: Option<u64>,
    pub tokens_remaining: Option<u64>,
    pub tokens_limit: Option<u64>,
    /// When the window resets, as the provider wrote it.
    pub reset_at: Option<String>,
}

/// The model's answer to one call (spec 3.7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Response {
    pub id: String,
    pub model: String,
    pub provider: String,
    pub message: Message,
    pub finish_reason: FinishReason,
    pub usage: Usage,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<Value>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<Warning>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_limit: Option<RateLimitInfo>,
}

impl Response {
    pub fn text(&self) -> String {
        self.message.text()
    }

    pub fn tool_calls(&self) -> Vec<ToolCall> {
        self.message.tool_calls().cloned().collect()
    }

    /// The concatenated readable reasoning, if there was any.
    pub fn reasoning(&self) -> Option<String> {
        let mut parts = self.message.content.iter().filter_map(|part| match part {
            ContentPart::Thinking { thinking } => Some(thinking.text.as_str()),
            _ => None,
        });
        let first = parts.next()?;
        Some(parts.fold(first.to_owned(), |acc, p| acc + p))
    }
}
