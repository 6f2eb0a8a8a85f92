//! Gemini errors: `{"error": {"code", "message", "status"}}` with gRPC status names, as a non-2xx
//! body or as a stream event, and the refusal of a prompt (`promptFeedback.blockReason`).

use serde_json::Value;

use super::PROVIDER;
use crate::error::{body_snippet, error_from_http, ErrorDetails, ErrorKind, LlmError};

/// Spec 7.6: the typed error for a non-2xx answer.
pub(super) fn from_http(status: u16, headers: &[(String, String)], body: &[u8]) -> LlmError {
    let details = match serde_json::from_slice::<Value>(body) {
        Ok(raw) => details(raw),
        // Not JSON (a proxy's HTML page, say): its text is the best message there is.
        Err(_) => ErrorDetails { message: body_snippet(body), ..ErrorDetails::default() },
    };
    error_from_http(PROVIDER, status, headers, details)
}

/// An error event in the middle of a stream (or in a 2xx body): its `code` stands for the status.
pub(super) fn from_event(raw: Value) -> LlmError {
    let status = raw["error"]["code"].as_u64().and_then(|c| u16::try_from(c).ok());
    let status = status.filter(|s| (400..600).contains(s)).unwrap_or(500);
    error_from_http(PROVIDER, status, &[], details(raw))
}

/// A request Gemini cannot take.
pub(super) fn invalid(message: impl Into<String>) -> LlmError {
    LlmError::new(ErrorKind::InvalidRequest, message).with_provider(PROVIDER)
}

/// The prompt itself was refused; there is no answer to retry into.
pub(super) fn prompt_blocked(reason: &str) -> LlmError {
    LlmError::new(
        ErrorKind::ContentFilter,
        format!("Gemini blocked the prompt ({reason}); rephrase it or remove the flagged content"),
    )
    .with_provider(PROVIDER)
}

/// A body or chunk that is not what Gemini sends: `kind` is `Stream` mid-stream, `Server` otherwise.
pub(super) fn malformed(kind: ErrorKind, what: impl std::fmt::Display) -> LlmError {
    LlmError::new(kind, format!("Gemini sent a malformed answer: {what}")).with_provider(PROVIDER)
}

fn details(raw: Value) -> ErrorDetails {
    // streamGenerateContent without `alt=sse` answers an error as a one-element array.
    let error = match &raw {
        Value::Array(items) => items.first().and_then(|item| item.get("error")),
        other => other.get("error"),
    };
    let text = |key: &str| error.and_then(|e| e.get(key)).and_then(Value::as_str).map(str::to_owned);
    ErrorDetails { message: text("message"), error_code: text("status"), raw: Some(raw) }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use serde_json::json;

    fn body(code: u16, status: &str, message: &str) -> Vec<u8> {
        json!({"error": {"code": code, "message": message, "status": status}}).to_string().into_bytes()
    }

    #[test]
    fn grpc_statuses_refine_the_http_status() {
        let cases = [
            (400, "INVALID_ARGUMENT", "Invalid JSON payload received.", ErrorKind::InvalidRequest),
            (400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", ErrorKind::Authentication),
            (403, "PERMISSION_DENIED", "denied", ErrorKind::AccessDenied),
            (404, "NOT_FOUND", "models/x is not found", ErrorKind::NotFound),
            (429, "RESOURCE_EXHAUSTED", "Resource has been exhausted", ErrorKind::RateLimit),
            (500, "INTERNAL", "An internal error has occurred", ErrorKind::Server),
            (503, "UNAVAILABLE", "The model is overloaded.", ErrorKind::Server),
            (504, "DEADLINE_EXCEEDED", "Deadline exceeded", ErrorKind::RequestTimeout),
        ];
        for (code, status, message, kind) in cases {
            let error = from_http(code, &[], &body(code, status, message));
            assert_eq!(error.kind, kind, "{status}");
            assert_eq!(error.message, message);
            assert_eq!(error.error_code.as_deref(), Some(status));
            assert_eq!((error.status_code, error.provider.as_deref()), (Some(code), Some("gemini")));
            assert!(error.raw.is_some());
        }
    }

    #[test]
    fn retry_after_and_array_bodies_and_non_json_bodies() {
        let headers = vec![("Retry-After".to_owned(), "7".to_owned())];
        let array = format!("[{}]", String::from_utf8(body(429, "RESOURCE_EXHAUSTED", "slow down")).unwrap());
        let error = from_http(429, &headers, array.as_bytes());
        assert_eq!((error.kind, error.retry_after, error.message.as_str()), (ErrorKind::RateLimit, Some(7.0), "slow down"));
        let error = from_http(502, &[], b"<html>Bad Gateway</html>");
        assert_eq!((error.kind, error.message.as_str()), (ErrorKind::Server, "<html>Bad Gateway</html>"));
        assert_eq!(from_http(500, &[], b"").message, "HTTP 500 from gemini");
        assert!(from_http(500, &[], "é".repeat(2000).as_bytes()).message.ends_with('…'));
    }

    #[test]
    fn stream_error_events_use_their_code_as_the_status() {
        let error = from_event(json!({"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}));
        assert_eq!((error.kind, error.status_code, error.retryable), (ErrorKind::Server, Some(503), true));
        let error = from_event(json!({"error": {"message": "?"}}));
        assert_eq!((error.kind, error.status_code), (ErrorKind::Server, Some(500)));
    }

    #[test]
    fn a_blocked_prompt_is_a_content_filter_error() {
        let error = prompt_blocked("SAFETY");
        assert_eq!((error.kind, error.retryable), (ErrorKind::ContentFilter, false));
        assert!(error.message.contains("SAFETY"));
    }
}
