//! Error bodies (spec 6.4, 6.5, 7.6). Compatible servers disagree on the shape, so every shape
//! seen in the wild is read: OpenAI `{error: {message, type, code}}`, llama.cpp
//! `{error: {code: 400, message, type}}`, vLLM `{object: "error", message, type, code}`,
//! Ollama `{error: "..."}` and FastAPI `{detail: "..."}`.

use serde_json::Value;

use crate::error::{body_snippet, error_from_http, ErrorDetails, LlmError};

/// The typed error for a non-2xx answer.
pub(super) fn from_http(provider: &str, status: u16, headers: &[(String, String)], body: &[u8]) -> LlmError {
    let details = match serde_json::from_slice::<Value>(body) {
        Ok(value) => details(value),
        Err(_) => {
            let message = body_snippet(body).map(|text| format!("HTTP {status} from {provider}: {text}"));
            ErrorDetails { message, ..ErrorDetails::default() }
        }
    };
    error_from_http(provider, status, headers, details)
}

/// An error the provider put in a body that came with no error status: an error event in a
/// stream, or an error object in a 2xx body. A numeric `code` in the 4xx/5xx range is taken as
/// the status; otherwise the error is classified as an unknown server error (retryable, spec
/// 6.3) refined by its code and message.
pub(super) fn embedded_error(provider: &str, value: Value) -> LlmError {
    let status = error_object(&value).and_then(|e| e.get("code").or_else(|| e.get("status"))).and_then(Value::as_u64);
    let status = status.and_then(|s| u16::try_from(s).ok()).filter(|s| (400..600).contains(s));
    let mut error = error_from_http(provider, status.unwrap_or(500), &[], details(value));
    error.status_code = status;
    error
}

/// Whether a JSON value from the provider is an error rather than a completion.
pub(super) fn is_error(value: &Value) -> bool {
    value.get("error").is_some_and(|e| !e.is_null()) || value.get("object").and_then(Value::as_str) == Some("error")
}

fn error_object(value: &Value) -> Option<&Value> {
    match value.get("error") {
        Some(error @ Value::Object(_)) => Some(error),
        _ => Some(value).filter(|v| v.get("message").is_some()),
    }
}

fn details(value: Value) -> ErrorDetails {
    let text = |v: Option<&Value>| v.and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_owned);
    let (message, error_code) = match error_object(&value) {
        Some(error) => {
            // `code` is OpenAI's precise word when it is a string; llama.cpp and vLLM put the
            // status there, and then `type` is the one that says something.
            (text(error.get("message")), text(error.get("code")).or_else(|| text(error.get("type"))))
        }
        None => (text(value.get("error")).or_else(|| text(value.get("detail"))), None),
    };
    ErrorDetails { message, error_code, raw: Some(value) }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use crate::error::ErrorKind;
    use serde_json::json;

    fn parse(status: u16, body: &str) -> LlmError {
        from_http("p", status, &[], body.as_bytes())
    }

    #[test]
    fn reads_every_known_error_shape() {
        let cases = [
            (
                r#"{"error": {"message": "Bad thing", "type": "invalid_request_error", "param": null, "code": null}}"#,
                Some("invalid_request_error"),
            ),
            (
                r#"{"error": {"code": 400, "message": "Bad thing", "type": "invalid_request_error"}}"#,
                Some("invalid_request_error"),
            ),
            (
                r#"{"object": "error", "message": "Bad thing", "type": "BadRequestError", "param": null, "code": 400}"#,
                Some("BadRequestError"),
            ),
            (r#"{"error": "Bad thing"}"#, None),
            (r#"{"detail": "Bad thing"}"#, None),
        ];
        for (body, code) in cases {
            let error = parse(400, body);
            assert_eq!(
                (error.kind, error.message.as_str(), error.error_code.as_deref()),
                (ErrorKind::InvalidRequest, "Bad thing", code),
                "{body}"
            );
            assert_eq!((error.status_code, error.provider.as_deref()), (Some(400), Some("p")));
            assert!(error.raw.is_some());
        }
    }

    #[test]
    fn codes_and_messages_refine_the_status() {
        let error = parse(
            429,
            r#"{"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "code": "insufficient_quota"}}"#,
        );
        assert_eq!((error.kind, error.retryable), (ErrorKind::QuotaExceeded, false));
        let error = parse(
            400,
            r#"{"error": {"code": 400, "message": "the request exceeds the available context size, try increasing the context size", "type": "exceed_context_size_error"}}"#,
        );
        assert_eq!((error.kind, error.retryable), (ErrorKind::ContextLength, false));
        let error = parse(
            400,
            r#"{"error": {"message": "This model's maximum context length is 8192 tokens", "code": "context_length_exceeded"}}"#,
        );
        assert_eq!(error.kind, ErrorKind::ContextLength);
        let error = from_http("p", 503, &[("retry-after".into(), "2".into())], b"<html>busy</html>");
        assert_eq!(
            (error.kind, error.retry_after, error.message.as_str()),
            (ErrorKind::Server, Some(2.0), "HTTP 503 from p: <html>busy</html>")
        );
        assert_eq!(parse(502, "").message, "HTTP 502 from p");
    }

    #[test]
    fn errors_in_bodies_take_their_status_from_a_numeric_code() {
        let error = embedded_error("p", json!({"error": {"code": 500, "message": "slot unavailable", "type": "server_error"}}));
        assert_eq!((error.kind, error.status_code), (ErrorKind::Server, Some(500)));
        let error = embedded_error(
            "p",
            json!({"error": {"message": "Rate limit reached", "type": "requests", "code": "rate_limit_exceeded"}}),
        );
        assert_eq!((error.kind, error.status_code, error.retryable), (ErrorKind::RateLimit, None, true));
        assert!(is_error(&json!({"error": "x"})) && is_error(&json!({"object": "error", "message": "x"})));
        assert!(!is_error(&json!({"choices": [], "error": null})));
    }

    #[test]
    fn long_non_json_bodies_are_cut_at_a_character_boundary() {
        let body = "é".repeat(1000);
        let error = parse(500, &body);
        assert!(error.message.chars().count() < 340 && error.message.ends_with('…'));
    }
}
