//! Errors: non-2xx answers (spec 7.6), failures the provider reports inside a 200 (a `failed`
//! response, an `error` stream event), and bodies we cannot read.

use serde_json::Value;

use super::PROVIDER;
use crate::error::{body_snippet, error_from_http, ErrorDetails, ErrorKind, LlmError};

/// OpenAI's answer when `include: ["reasoning.encrypted_content"]` reaches a model without
/// reasoning (gpt-4o, gpt-4.1, gpt-5-chat): the codec's stateless default needs switching off there.
const NO_ENCRYPTED_CONTENT: &str = "encrypted content is not supported";

/// The typed error for a non-2xx answer. The body is `{"error": {message, type, code, param}}`;
/// a plain-text body, or an `error` that is only a string, is read as the message.
pub(super) fn from_http(status: u16, headers: &[(String, String)], body: &[u8]) -> LlmError {
    let details = match serde_json::from_slice::<Value>(body) {
        Ok(raw) => {
            let error = raw.get("error").unwrap_or(&raw);
            let message = match error {
                Value::String(text) => Some(text.clone()),
                _ => string(error, "message"),
            };
            let error_code = string(error, "code").or_else(|| string(error, "type"));
            ErrorDetails { message: message.map(with_hint), error_code, raw: Some(raw) }
        }
        Err(_) => ErrorDetails { message: body_snippet(body), ..ErrorDetails::default() },
    };
    error_from_http(PROVIDER, status, headers, details)
}

/// A failure the provider reported after answering 200: the `error` of a `failed` response or of
/// an `error` stream event (`{code, message}`). There is no HTTP status, so it is classified as a
/// server failure refined by its code and message, exactly as [`error_from_http`] refines one;
/// the assumed status is then dropped.
pub(super) fn reported(error: Option<&Value>, fallback: &str) -> LlmError {
    let raw = error.cloned().unwrap_or(Value::Null);
    let message = string(&raw, "message").filter(|m| !m.is_empty()).unwrap_or_else(|| fallback.to_owned());
    let error_code = string(&raw, "code").or_else(|| string(&raw, "type"));
    let mut error = error_from_http(PROVIDER, 500, &[], ErrorDetails { message: Some(message), error_code, raw: Some(raw) });
    error.status_code = None;
    error.retryable = error.kind.default_retryable();
    error
}

/// A request this API cannot take.
pub(super) fn invalid(message: impl Into<String>) -> LlmError {
    LlmError::new(ErrorKind::InvalidRequest, message).with_provider(PROVIDER)
}

/// A body or stream event we cannot read. Mid-stream it is a stream error; a whole body that is
/// not what the API promises is the provider's fault, so a (retryable) server error.
pub(super) fn unreadable(kind: ErrorKind, what: &str, detail: impl std::fmt::Display) -> LlmError {
    LlmError::new(kind, format!("the OpenAI Responses API sent {what}: {detail}")).with_provider(PROVIDER)
}

fn string(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// Says what to do next where OpenAI's message does not.
fn with_hint(message: String) -> String {
    if message.to_ascii_lowercase().contains(NO_ENCRYPTED_CONTENT) {
        format!(
            "{message} (this model does not reason: set provider_options.openai.include to null, or store to true, \
             to turn off the codec's stateless reasoning replay)"
        )
    } else {
        message
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;
    use serde_json::json;

    fn parse(status: u16, body: &str) -> LlmError {
        from_http(status, &[], body.as_bytes())
    }

    #[test]
    fn reads_message_code_and_raw_from_the_error_object() {
        let body =
            r#"{"error":{"message":"Rate limit reached for gpt-5","type":"requests","param":null,"code":"rate_limit_exceeded"}}"#;
        let e = from_http(429, &[("retry-after".into(), "2".into())], body.as_bytes());
        assert_eq!((e.kind, e.retryable, e.status_code), (ErrorKind::RateLimit, true, Some(429)));
        assert_eq!(e.message, "Rate limit reached for gpt-5");
        assert_eq!(e.error_code.as_deref(), Some("rate_limit_exceeded"));
        assert_eq!(e.retry_after, Some(2.0));
        assert_eq!(e.raw.unwrap()["error"]["type"], "requests");
    }

    #[test]
    fn the_type_stands_in_for_a_missing_code() {
        let e =
            parse(400, r#"{"error":{"message":"Unsupported parameter: 'top_p'","type":"invalid_request_error","code":null}}"#);
        assert_eq!((e.kind, e.error_code.as_deref()), (ErrorKind::InvalidRequest, Some("invalid_request_error")));
        let e = parse(429, r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota"}}"#);
        assert_eq!((e.kind, e.retryable), (ErrorKind::QuotaExceeded, false));
    }

    #[test]
    fn a_string_error_or_a_text_body_is_the_message() {
        assert_eq!(parse(400, r#"{"error":"Error: 400 Invalid value"}"#).message, "Error: 400 Invalid value");
        let e = parse(503, "upstream connect error");
        assert_eq!((e.kind, e.message.as_str()), (ErrorKind::Server, "upstream connect error"));
        assert_eq!(parse(502, "").message, "HTTP 502 from openai");
    }

    #[test]
    fn a_non_reasoning_model_gets_a_hint_about_the_include_default() {
        let e = parse(400, r#"{"error":{"message":"Encrypted content is not supported with this model.","param":"include"}}"#);
        assert!(e.message.contains("provider_options.openai.include"), "{}", e.message);
    }

    #[test]
    fn reported_failures_are_classified_without_a_status() {
        let e = reported(Some(&json!({"code": "server_error", "message": "The server had an error"})), "failed");
        assert_eq!((e.kind, e.retryable, e.status_code), (ErrorKind::Server, true, None));
        let e = reported(Some(&json!({"code": "context_length_exceeded", "message": "too long"})), "failed");
        assert_eq!((e.kind, e.retryable), (ErrorKind::ContextLength, false));
        let e = reported(None, "the response failed");
        assert_eq!((e.kind, e.message.as_str()), (ErrorKind::Server, "the response failed"));
    }
}
