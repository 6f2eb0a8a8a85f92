//! The LLM layer's one error type (unified-llm-spec section 6).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The error taxonomy of spec 6.1, flattened into kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
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

    /// The context window a `context_length` error states, in tokens: llama.cpp's `n_ctx` field
    /// or its "available context size (4096 tokens)", OpenAI's and vLLM's "maximum context length
    /// is 8192 tokens", Anthropic's "210000 tokens > 200000 maximum", Gemini's "the maximum
    /// number of tokens allowed (1048576)". `None` for other errors, or when it states none.
    pub fn stated_context_window(&self) -> Option<u64> {
        if self.kind != ErrorKind::ContextLength {
            return None;
        }
        let raw = self.raw.as_ref();
        let n_ctx = raw.and_then(|raw| raw["error"]["n_ctx"].as_u64().or_else(|| raw["n_ctx"].as_u64()));
        let text = self.message.as_str();
        n_ctx
            .or_else(|| {
                ["maximum context length is ", "available context size (", "tokens allowed ("]
                    .iter()
                    .find_map(|marker| leading_number(&text[text.find(marker)? + marker.len()..]))
            })
            .or_else(|| {
                let before = &text[..text.find(" maximum")?];
                let start = before.rfind(|c: char| !c.is_ascii_digit()).map_or(0, |at| at + 1);
                leading_number(&before[start..])
            })
            .filter(|&window| window > 0)
    }
}

/// What a codec read from a provider's error answer.
#[derive(Debug, Clone, Default)]
pub struct ErrorDetails {
    pub message: Option<String>,
    /// The provider's own code or type, e.g. `rate_limit_error`, `RESOURCE_EXHAUSTED`.
    pub error_code: Option<String>,
    pub raw: Option<Value>,
}

/// Spec 7.6: the typed error for a non-2xx answer. The status decides the kind (6.4); a
/// server-error or bad-request status whose message names a more precise cause is refined by
/// the message (6.5); `Retry-After` is kept.
pub fn error_from_http(provider: &str, status: u16, headers: &[(String, String)], details: ErrorDetails) -> LlmError {
    let message = details.message.unwrap_or_else(|| format!("HTTP {status} from {provider}"));
    let mut kind = ErrorKind::from_status(status);
    if matches!(kind, ErrorKind::InvalidRequest | ErrorKind::Server | ErrorKind::NotFound) {
        kind = classify_message(&message).unwrap_or(kind);
    }
    if let Some(code) = details.error_code.as_deref() {
        kind = classify_code(code).unwrap_or(kind);
    }
    let mut error = LlmError::new(kind, message).with_provider(provider).with_status(status);
    error.error_code = details.error_code;
    error.raw = details.raw;
    error.retry_after = retry_after(headers);
    error
}

/// How much of a provider's text (a body that is not JSON, an event that cannot be read) an
/// error message quotes.
const SNIPPET_CHARS: usize = 300;

/// Provider text as an error message quotes it: trimmed, and cut after [`SNIPPET_CHARS`]
/// characters with `…`.
pub(crate) fn snippet(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(SNIPPET_CHARS) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// A response body as an error message quotes it (see [`snippet`]); `None` when it is blank.
pub(crate) fn body_snippet(body: &[u8]) -> Option<String> {
    Some(snippet(&String::from_utf8_lossy(body))).filter(|text| !text.is_empty())
}

/// Spec 6.5: a kind from the words of an error message, where they are unambiguous.
pub fn classify_message(message: &str) -> Option<ErrorKind> {
    let m = message.to_ascii_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| m.contains(w));
    if has(&["context length", "context window", "context size", "too many tokens", "prompt is too long", "maximum context"]) {
        Some(ErrorKind::ContextLength)
    } else if has(&["unauthorized", "invalid key", "invalid api key", "invalid x-api-key", "api key not valid"]) {
        Some(ErrorKind::Authentication)
    } else if has(&["content filter", "safety"]) {
        Some(ErrorKind::ContentFilter)
    } else if has(&["quota", "billing", "insufficient_quota", "credit balance"]) {
        Some(ErrorKind::QuotaExceeded)
    } else if has(&["not found", "does not exist"]) {
        Some(ErrorKind::NotFound)
    } else {
        None
    }
}

/// Provider error codes that say more than the status: gRPC codes (Gemini) and a few others.
fn classify_code(code: &str) -> Option<ErrorKind> {
    Some(match code {
        "UNAUTHENTICATED" | "authentication_error" | "invalid_api_key" => ErrorKind::Authentication,
        "PERMISSION_DENIED" | "permission_error" => ErrorKind::AccessDenied,
        "NOT_FOUND" | "not_found_error" | "model_not_found" => ErrorKind::NotFound,
        "INVALID_ARGUMENT" | "invalid_request_error" => return None, // the status already says so
        "RESOURCE_EXHAUSTED" | "rate_limit_error" | "rate_limit_exceeded" => ErrorKind::RateLimit,
        "UNAVAILABLE" | "INTERNAL" | "overloaded_error" | "api_error" | "server_error" => ErrorKind::Server,
        "DEADLINE_EXCEEDED" => ErrorKind::RequestTimeout,
        "insufficient_quota" => ErrorKind::QuotaExceeded,
        "context_length_exceeded" | "exceed_context_size_error" => ErrorKind::ContextLength, // OpenAI, llama.cpp
        _ => return None,
    })
}

/// Seconds to wait, from `retry-after-ms` or a numeric `Retry-After`. (An HTTP-date
/// `Retry-After` is ignored: the core has no clock of its own to compare it with.)
pub fn retry_after(headers: &[(String, String)]) -> Option<f64> {
    let header = |name| super::http::find_header(headers, name).map(str::trim);
    if let Some(ms) = header("retry-after-ms").and_then(number) {
        return Some(ms / 1000.0).filter(|s| *s >= 0.0);
    }
    header("retry-after").and_then(number).filter(|s| *s >= 0.0)
}

/// A header's number, read as a JSON number by the JSON parser every build has: HTTP's
/// delay-seconds are digits, and a decimal such as `1.5` reads as well. (`str::parse::<f64>`
/// would bring its own tables of powers into the browser bundle.) Always finite.
fn number(text: &str) -> Option<f64> {
    serde_json::from_slice::<serde_json::Value>(text.as_bytes()).ok()?.as_f64()
}

/// Spec 3.12: rate-limit figures from the usual `x-ratelimit-*` and Anthropic's
/// `anthropic-ratelimit-*` headers; `None` when there are none.
pub fn rate_limit_info(headers: &[(String, String)]) -> Option<super::types::RateLimitInfo> {
    let find = |names: &[&str]| names.iter().find_map(|n| super::http::find_header(headers, n));
    let number = |names: &[&str]| find(names).and_then(|v| v.trim().parse::<u64>().ok());
    let info = super::types::RateLimitInfo {
        requests_remaining: number(&["x-ratelimit-remaining-requests", "anthropic-ratelimit-requests-remaining"]),
        requests_limit: number(&["x-ratelimit-limit-requests", "anthropic-ratelimit-requests-limit"]),
        tokens_remaining: number(&["x-ratelimit-remaining-tokens", "anthropic-ratelimit-tokens-remaining"]),
        tokens_limit: number(&["x-ratelimit-limit-tokens", "anthropic-ratelimit-tokens-limit"]),
        reset_at: find(&["x-ratelimit-reset-requests", "anthropic-ratelimit-requests-reset"]).map(str::to_owned),
    };
    (info != super::types::RateLimitInfo::default()).then_some(info)
}

/// The number `text` starts with, if it does.
fn leading_number(text: &str) -> Option<u64> {
    text[..text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len())].parse().ok()
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn statuses_map_to_kinds_with_the_spec_retryability() {
        let cases = [
            (400, ErrorKind::InvalidRequest, false),
            (401, ErrorKind::Authentication, false),
            (403, ErrorKind::AccessDenied, false),
            (404, ErrorKind::NotFound, false),
            (408, ErrorKind::RequestTimeout, false),
            (413, ErrorKind::ContextLength, false),
            (422, ErrorKind::InvalidRequest, false),
            (429, ErrorKind::RateLimit, true),
            (500, ErrorKind::Server, true),
            (503, ErrorKind::Server, true),
            (529, ErrorKind::Server, true),
        ];
        for (status, kind, retryable) in cases {
            let e = error_from_http("p", status, &[], ErrorDetails::default());
            assert_eq!((e.kind, e.retryable), (kind, retryable), "status {status}");
        }
    }

    #[test]
    fn the_window_a_context_length_error_states_is_read_from_each_providers_words() {
        let stated = |message: &str, raw: Option<Value>| {
            let mut error = LlmError::new(ErrorKind::ContextLength, message);
            error.raw = raw;
            error.stated_context_window()
        };
        let openai = "This model's maximum context length is 8192 tokens. However, your messages resulted in 9100 tokens.";
        assert_eq!(stated(openai, None), Some(8192));
        assert_eq!(stated("prompt is too long: 210000 tokens > 200000 maximum", None), Some(200_000));
        let gemini = "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).";
        assert_eq!(stated(gemini, None), Some(1_048_576));
        let llama = "request (6020 tokens) exceeds the available context size (4096 tokens), try increasing it";
        assert_eq!(stated(llama, None), Some(4096));
        let body = serde_json::json!({"error": {"message": "the request exceeds the available context size", "n_ctx": 2048}});
        assert_eq!(stated("the request exceeds the available context size", Some(body)), Some(2048));
        assert_eq!(stated("too long", None), None);
        assert_eq!(stated("maximum context length is 0 tokens", None), None);
        assert_eq!(LlmError::new(ErrorKind::Server, openai).stated_context_window(), None);
    }

    #[test]
    fn messages_and_codes_refine_the_kind() {
        let details =
            |m: &str, c: Option<&str>| ErrorDetails { message: Some(m.into()), error_code: c.map(Into::into), raw: None };
        let e = error_from_http("p", 400, &[], details("prompt is too long: 210000 tokens > 200000 maximum", None));
        assert_eq!(e.kind, ErrorKind::ContextLength);
        let e = error_from_http(
            "llama.cpp",
            400,
            &[],
            details("request (6020 tokens) exceeds the available context size (4096 tokens)", None),
        );
        assert_eq!(e.kind, ErrorKind::ContextLength);
        let e = error_from_http("gemini", 400, &[], details("API key not valid. Please pass a valid API key.", None));
        assert_eq!(e.kind, ErrorKind::Authentication);
        let e = error_from_http("gemini", 429, &[], details("Quota exceeded", Some("RESOURCE_EXHAUSTED")));
        assert_eq!((e.kind, e.retryable), (ErrorKind::RateLimit, true));
        let e = error_from_http("openai", 429, &[], details("You exceeded your current quota", Some("insufficient_quota")));
        assert_eq!((e.kind, e.retryable), (ErrorKind::QuotaExceeded, false));
    }

    #[test]
    fn retry_after_reads_seconds_and_milliseconds() {
        assert_eq!(retry_after(&headers(&[("Retry-After", "7")])), Some(7.0));
        assert_eq!(retry_after(&headers(&[("retry-after-ms", "1500"), ("retry-after", "9")])), Some(1.5));
        assert_eq!(retry_after(&headers(&[("retry-after", "Wed, 21 Oct 2015 07:28:00 GMT")])), None);
        assert_eq!(retry_after(&headers(&[("retry-after", " 0.25 ")])), Some(0.25));
        assert_eq!(retry_after(&headers(&[("retry-after-ms", "soon"), ("retry-after", "2")])), Some(2.0));
        for refused in ["-1", "1e400", "inf", "NaN", "\"7\"", "[7]", "7 seconds", ""] {
            assert_eq!(retry_after(&headers(&[("retry-after", refused)])), None, "{refused}");
        }
        let e = error_from_http("p", 429, &headers(&[("retry-after", "3")]), ErrorDetails::default());
        assert_eq!(e.retry_after, Some(3.0));
    }

    #[test]
    fn snippets_are_trimmed_and_cut_on_a_character_boundary() {
        let long = "é".repeat(SNIPPET_CHARS + 5);
        assert_eq!(snippet(&long).chars().count(), SNIPPET_CHARS + 1);
        assert!(snippet(&long).ends_with('…'));
        assert_eq!(snippet(" short\n"), "short");
        assert_eq!(body_snippet(b"<html>Bad gateway</html>\n").as_deref(), Some("<html>Bad gateway</html>"));
        assert_eq!(body_snippet(b" \n"), None);
    }

    #[test]
    fn rate_limit_headers_are_read() {
        let info = rate_limit_info(&headers(&[("x-ratelimit-remaining-requests", "99"), ("x-ratelimit-limit-requests", "100")]))
            .unwrap();
        assert_eq!((info.requests_remaining, info.requests_limit), (Some(99), Some(100)));
        assert!(rate_limit_info(&[]).is_none());
    }
}
