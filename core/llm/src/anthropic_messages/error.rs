//! Errors (spec 6, 7.6): an HTTP error answer, or an `error` event in the middle of a stream. Both
//! carry `{"type": "error", "error": {"type": ..., "message": ...}}`.

use serde_json::Value;

use super::PROVIDER;
use crate::error::{body_snippet, error_from_http, ErrorDetails, ErrorKind, LlmError};

pub(super) fn from_http(status: u16, headers: &[(String, String)], body: &[u8]) -> LlmError {
    let details = match serde_json::from_slice::<Value>(body) {
        Ok(raw) => details(raw),
        // Not JSON (a proxy's HTML page, say): its text is the best message there is.
        Err(_) => ErrorDetails { message: body_snippet(body), ..ErrorDetails::default() },
    };
    finish(error_from_http(PROVIDER, status, headers, details))
}

/// An `error` stream event. It arrives after a 200, so the kind comes from the error type (by
/// the status the API gives that type), and the error has no status of its own.
pub(super) fn from_event(event: &Value) -> LlmError {
    let status = match event["error"]["type"].as_str() {
        Some("invalid_request_error") => 400,
        Some("authentication_error") => 401,
        Some("billing_error") => 402,
        Some("permission_error") => 403,
        Some("not_found_error") => 404,
        Some("request_too_large") => 413,
        Some("rate_limit_error") => 429,
        Some("timeout_error") => 504,
        Some("overloaded_error") => 529,
        // `api_error` and anything unknown: a server fault, retryable (spec 6.3).
        _ => 500,
    };
    let mut error = error_from_http(PROVIDER, status, &[], details(event.clone()));
    error.status_code = None;
    finish(error)
}

fn details(raw: Value) -> ErrorDetails {
    let field = |key: &str| raw.get("error").and_then(|e| e.get(key)).and_then(Value::as_str).map(str::to_owned);
    ErrorDetails { message: field("message"), error_code: field("type"), raw: Some(raw) }
}

/// Kinds the shared table cannot know.
fn finish(mut error: LlmError) -> LlmError {
    if error.error_code.as_deref() == Some("billing_error") {
        error.kind = ErrorKind::QuotaExceeded;
        error.retryable = error.kind.default_retryable();
    }
    error
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use serde_json::json;

    fn body(kind: &str, message: &str) -> Vec<u8> {
        json!({"type": "error", "error": {"type": kind, "message": message}, "request_id": "req_1"}).to_string().into_bytes()
    }

    #[test]
    fn http_errors_keep_message_code_raw_and_retry_after() {
        let headers = [("retry-after".to_owned(), "12".to_owned())];
        let error = from_http(429, &headers, &body("rate_limit_error", "Number of requests has exceeded your rate limit"));
        assert_eq!((error.kind, error.retryable, error.status_code), (ErrorKind::RateLimit, true, Some(429)));
        assert_eq!(error.error_code.as_deref(), Some("rate_limit_error"));
        assert_eq!(error.message, "Number of requests has exceeded your rate limit");
        assert_eq!(error.retry_after, Some(12.0));
        assert_eq!(error.raw.as_ref().and_then(|r| r.get("request_id")), Some(&json!("req_1")));
        assert_eq!(error.provider.as_deref(), Some("anthropic"));
    }

    #[test]
    fn http_statuses_and_types_give_the_spec_kinds() {
        let cases = [
            (400, "invalid_request_error", "Could not process image", ErrorKind::InvalidRequest),
            (400, "invalid_request_error", "prompt is too long: 210000 tokens > 200000 maximum", ErrorKind::ContextLength),
            (401, "authentication_error", "invalid x-api-key", ErrorKind::Authentication),
            (402, "billing_error", "Your credit balance is too low", ErrorKind::QuotaExceeded),
            (403, "permission_error", "no access", ErrorKind::AccessDenied),
            (404, "not_found_error", "model: claude-x", ErrorKind::NotFound),
            (413, "request_too_large", "Request exceeds the maximum size", ErrorKind::ContextLength),
            (500, "api_error", "Internal server error", ErrorKind::Server),
            (529, "overloaded_error", "Overloaded", ErrorKind::Server),
        ];
        for (status, kind, message, expected) in cases {
            let error = from_http(status, &[], &body(kind, message));
            assert_eq!((error.kind, error.retryable), (expected, expected.default_retryable()), "{status} {kind}");
        }
    }

    #[test]
    fn non_json_bodies_still_give_a_useful_message() {
        let error = from_http(502, &[], b"<html>Bad gateway</html>");
        assert_eq!((error.kind, error.message.as_str()), (ErrorKind::Server, "<html>Bad gateway</html>"));
        let error = from_http(503, &[], b"");
        assert_eq!(error.message, "HTTP 503 from anthropic");
    }

    #[test]
    fn stream_error_events_map_by_type_without_a_status() {
        let event = json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}});
        let error = from_event(&event);
        assert_eq!((error.kind, error.retryable, error.status_code), (ErrorKind::Server, true, None));
        assert_eq!(error.message, "Overloaded");
        let event = json!({"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}});
        assert_eq!(from_event(&event).kind, ErrorKind::InvalidRequest);
        assert_eq!(from_event(&json!({"type": "error"})).kind, ErrorKind::Server);
    }
}
