//! What the host and the guest say to each other, as JSON: the run's configuration (the guest's
//! first argument), the model requests and response heads, and the run's end.

use openagent_core::llm::{LlmError, Usage};
use openagent_core::session::{AgentOutcome, StopReason};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The run, as the host gives it to the guest. No API key: the host adds it to each request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuestConfig {
    pub task: String,
    /// A `ProviderKind` name: `openai`, `anthropic`, `gemini`, `openai-compatible`.
    pub provider: String,
    pub model: String,
    /// The only origin the host forwards to; the guest's codec builds its URLs from it.
    pub base_url: String,
    /// Headers for every model request besides the key (OpenAI's organization and project).
    #[serde(default)]
    pub headers: Vec<(String, String)>,
    pub session_id: String,
    #[serde(default)]
    pub max_turns: usize,
    #[serde(default)]
    pub max_tool_rounds: usize,
    #[serde(default)]
    pub reasoning_effort: Option<String>,
}

/// How the guest's input ended: what `Session::submit` returned, and the session's totals.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuestEnd {
    /// Set when the input was processed to a stop.
    pub stop: Option<StopReason>,
    /// Set when the model call failed for good (or the session refused the input).
    pub error: Option<LlmError>,
    pub usage: Usage,
    pub outcome: Option<AgentOutcome>,
    pub result_data: Option<Value>,
}

/// One HTTP request the guest asks the host to make. The body is text: every codec sends JSON.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelRequest {
    /// `GET` or `POST`.
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    #[serde(default)]
    pub body: String,
}

/// The first line of every response stream `model_read` yields, before the body bytes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ModelHead {
    pub status: u16,
    pub headers: Vec<(String, String)>,
}

/// Why a model request failed without an HTTP answer: the negated value `model_read` returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(i32)]
pub enum ModelErrorKind {
    /// No connection, or the host refused the request (another origin, a malformed request).
    Connect = 1,
    Timeout = 2,
    /// The connection broke while the body was read.
    Body = 3,
    /// An unknown handle: the guest read a request it had closed or never made.
    BadHandle = 4,
}

impl ModelErrorKind {
    pub fn code(self) -> i32 {
        -(self as i32)
    }

    pub fn from_code(code: i32) -> Self {
        match -code {
            2 => Self::Timeout,
            3 => Self::Body,
            4 => Self::BadHandle,
            _ => Self::Connect,
        }
    }
}
