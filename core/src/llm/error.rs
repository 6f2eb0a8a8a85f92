//! The LLM layer's one error type (unified-llm-spec section 6).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The error taxonomy of spec 6.1, flattened into kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorKind {
    Authentication,
    AccessDenied,
    NotFound,
    InvalidRequest,
    RateLimit,
    Server,
    ContentFilter,
    ContextLength,
    QuotaExceeded,
    RequestTimeout,
    Abort,
    Network,
    Stream,
    InvalidToolCall,
    UnsupportedToolChoice,
    NoObjectGenerated,
    Configuration,
}

impl ErrorKind {
    /// Spec 6.3: transient failures are retryable; client mistakes are not.
    pub fn default_retryable(self) -> bool {
        matches!(self, Self::RateLimit | Self::Server | Self::Network | Self::Stream)
    }

    /// Spec 6.4: the kind an HTTP status maps to. Unknown statuses are server errors (retryable).
    pub fn from_status(status: u16) -> Self {
        match status {
            400 | 422 => Self::InvalidRequest,
            401 => Self::Authentication,
            403 => Self::AccessDenied,
            404 => Self::NotFound,
            408 => Self::RequestTimeout,
            413 => Self::ContextLength,
            429 => Self::RateLimit,
            _ => Self::Server,
        }
    }
}

/// An error from the LLM layer. Never carries an API key: codecs and transports build messages
/// from provider bodies and statuses, not from request headers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, thiserror::Error)]
#[error("{message}")]
pub struct LlmError {
    pub kind: ErrorKind,
    pub message: String,
    #[serde(default)]
    pub provider: Option<String>,
    #[serde(default)]
    pub status_code: Option<u16>,
    /// The provider's own error code, e.g. `rate_limit_exceeded`.
    #[serde(default)]
    pub error_code: Option<String>,
    pub retryable: bool,
    /// Seconds the provider asked us to wait.
    #[serde(default)]
    pub retry_after: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<Value>,
}

impl LlmError {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            provider: None,
            status_code: None,
            error_code: None,
            retryable: kind.default_retryable(),
            retry_after: None,
            raw: None,
        }
    }

    pub fn with_provider(mut self, provider: impl Into<String>) -> Self {
        self.provider = Some(provider.into());
        self
    }

    pub fn with_status(mut self, status: u16) -> Self {
        self.status_code = Some(status);
        self
    }

    pub fn with_retry_after(mut self, seconds: f64) -> Self {
        self.retry_after = Some(seconds);
        self
    }

    pub fn is_authentication(&self) -> bool {
        self.kind == ErrorKind::Authentication
    }
}
