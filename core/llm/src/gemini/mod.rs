//! The Gemini generateContent codec (unified-llm-spec 7.3, 7.7): `Request` to
//! `POST {base}/v1beta/models/{model}:generateContent` (or `:streamGenerateContent?alt=sse`), and
//! Gemini's answers, whole or streamed, back to `Response` and `StreamEvent`s. A pure translation:
//! it never does I/O.
//!
//! Facts about the API this codec relies on (all seen in the captured payloads):
//! - Gemini 2.x assigns no function-call ids; Gemini 3 sends a short `functionCall.id`. A provider
//!   id is kept as the call id and echoed back on the `functionCall`; otherwise the call gets a
//!   synthetic [`synthetic_call_id`], which is never sent to Gemini. A `functionResponse` carries
//!   the function *name*, found from the call the result answers.
//! - `thoughtSignature` must go back on the part it came with. On a `functionCall` part it is kept in
//!   [`ToolCall::signature`](crate::ToolCall). On a text part it is kept as an empty
//!   [`ContentPart::Thinking`](crate::ContentPart) right after that text (a "signature
//!   carrier"), and re-attached to the preceding part when the conversation is sent back.
//! - Thought summaries (`thought: true`) are reasoning: `ContentPart::Thinking`.
//! - Tool `parameters` accept only an OpenAPI 3.0 subset (a captured request was rejected for
//!   `exclusiveMinimum`), so tool schemas are converted (see `schema`); `response_format` uses
//!   `responseJsonSchema`, which the captures show accepting full JSON Schema.

mod error;
mod messages;
mod options;
mod request;
mod response;
mod stream;
mod tools;

use super::codec::{Codec, ProviderConfig, StreamDecoder};
use super::error::LlmError;
use super::http::HttpRequest;
use super::types::{Request, Response};

/// The provider name, and the key of Gemini's entry in `Request::provider_options`.
pub const PROVIDER: &str = "gemini";

/// Used when `ProviderConfig::base_url` is empty.
pub const DEFAULT_BASE_URL: &str = "https://generativelanguage.googleapis.com";

/// The Gemini codec. `provider_options["gemini"]` is deep-merged into the request body (objects
/// merge key by key, anything else replaces; so `{"generationConfig": {"topK": 40}}` adds `topK`),
/// with two exceptions: `tools` entries (built-in tools such as `{"googleSearch": {}}`) are appended
/// to the function declarations, and a `generationConfig.thinkingConfig` replaces the one derived
/// from `reasoning_effort` whole, since Gemini rejects a thinking budget and a thinking level together.
#[derive(Debug, Clone)]
pub struct Gemini {
    config: ProviderConfig,
}

impl Gemini {
    pub fn new(config: ProviderConfig) -> Self {
        Self { config }
    }
}

impl Codec for Gemini {
    fn provider(&self) -> &str {
        PROVIDER
    }

    fn build_request(&self, request: &Request, stream: bool) -> Result<HttpRequest, LlmError> {
        request::build(&self.config, request, stream)
    }

    fn parse_response(&self, body: &[u8], headers: &[(String, String)]) -> Result<Response, LlmError> {
        response::parse(body, headers)
    }

    fn parse_error(&self, status: u16, headers: &[(String, String)], body: &[u8]) -> LlmError {
        error::from_http(status, headers, body)
    }

    fn stream_decoder(&self) -> Box<dyn StreamDecoder> {
        Box::new(stream::Decoder::default())
    }
}

/// A call id for a function call Gemini gave no id: `call_` and a random UUID (spec 3.5).
pub fn synthetic_call_id() -> String {
    format!("call_{}", crate::id::random_uuid())
}

/// Whether `id` is one of ours rather than Gemini's, so it is not sent back as `functionCall.id`.
fn is_synthetic_call_id(id: &str) -> bool {
    id.strip_prefix("call_").is_some_and(|uuid| {
        uuid.len() == 36
            && uuid
                .bytes()
                .enumerate()
                .all(|(i, b)| if matches!(i, 8 | 13 | 18 | 23) { b == b'-' } else { b.is_ascii_hexdigit() })
    })
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use std::rc::Rc;

    use futures::executor::block_on;

    use super::*;
    use crate::error::ErrorKind;
    use crate::http::{HttpClient, HttpError, HttpResponse};
    use crate::{collect_stream, ApiKey, HttpLlmClient, LlmClient, Message, Reason};

    fn codec(base_url: &str) -> Gemini {
        Gemini::new(ProviderConfig {
            api_key: ApiKey::new("AIza-secret"),
            base_url: base_url.into(),
            default_headers: vec![("x-extra".into(), "1".into())],
            browser: false,
        })
    }

    fn request(model: &str) -> Request {
        Request { model: model.into(), messages: vec![Message::user("hi")], ..Request::default() }
    }

    #[test]
    fn urls_name_the_model_and_method() {
        let gemini = codec("https://generativelanguage.googleapis.com/");
        let http = gemini.build_request(&request("gemini-2.5-flash"), false).unwrap();
        assert_eq!(http.url, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent");
        let http = gemini.build_request(&request("models/gemini-2.5-flash"), true).unwrap();
        assert_eq!(
            http.url,
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
        );
        let http = codec("http://127.0.0.1:9/v1beta").build_request(&request("m"), false).unwrap();
        assert_eq!(http.url, "http://127.0.0.1:9/v1beta/models/m:generateContent");
        let http = codec("").build_request(&request("a/b?c"), false).unwrap();
        assert_eq!(http.url, "https://generativelanguage.googleapis.com/v1beta/models/a%2Fb%3Fc:generateContent");
    }

    #[test]
    fn the_key_is_in_its_header_only() {
        let http = codec("https://g.example").build_request(&request("m"), false).unwrap();
        assert_eq!(http.header("x-goog-api-key"), Some("AIza-secret"));
        assert_eq!(http.header("x-extra"), Some("1"));
        assert_eq!(http.header("content-type"), Some("application/json"));
        assert!(!http.url.contains("secret"));
        assert!(!String::from_utf8_lossy(&http.body.to_vec()).contains("secret"));
        assert!(!format!("{http:?}").contains("secret"));
    }

    #[test]
    fn a_request_without_a_model_is_refused() {
        let error = codec("").build_request(&request(" "), false).unwrap_err();
        assert_eq!(error.kind, ErrorKind::InvalidRequest);
    }

    /// Answers every request with one canned status, headers and body, in 3-byte chunks.
    struct Canned(u16, Vec<(String, String)>, &'static str);

    #[async_trait::async_trait(?Send)]
    impl HttpClient for Canned {
        async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
            assert_eq!(request.header("x-goog-api-key"), Some("AIza-secret"));
            let chunks: Vec<_> = self.2.as_bytes().chunks(3).map(|c| Ok(c.to_vec())).collect();
            Ok(HttpResponse { status: self.0, headers: self.1.clone(), body: Box::pin(futures::stream::iter(chunks)) })
        }
    }

    fn client(status: u16, headers: &[(&str, &str)], body: &'static str) -> HttpLlmClient<Gemini> {
        let headers = headers.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        HttpLlmClient::new(codec(""), Rc::new(Canned(status, headers, body)))
    }

    #[test]
    fn runs_over_the_http_seam_whole_streamed_and_failing() {
        let answer = r#"{"candidates": [{"content": {"parts": [{"text": "Hi"}]}, "finishReason": "STOP"}], "responseId": "r"}"#;
        let response = block_on(client(200, &[], answer).complete(&request("gemini-2.5-flash"))).unwrap();
        assert_eq!((response.text().as_str(), response.finish_reason.reason), ("Hi", Reason::Stop));

        let stream = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hel\"}]}}]}\r\n\r\n\
                      data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"lo\"}]}, \"finishReason\": \"STOP\"}]}\r\n\r\n";
        let gemini = client(200, &[], stream);
        let events = block_on(gemini.stream(&request("gemini-2.5-flash"))).unwrap();
        assert_eq!(block_on(collect_stream("gemini", events)).unwrap().text(), "Hello");

        let broken = "data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"Hel\"}]}}]}\n\n\
                      data: {\"error\": {\"code\": 500, \"message\": \"Internal error\", \"status\": \"INTERNAL\"}}\n\n";
        let gemini = client(200, &[], broken);
        let events = block_on(gemini.stream(&request("gemini-2.5-flash"))).unwrap();
        assert_eq!(block_on(collect_stream("gemini", events)).unwrap_err().kind, ErrorKind::Server);

        let limited = r#"{"error": {"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}}"#;
        let error = block_on(client(429, &[("retry-after", "2")], limited).complete(&request("m"))).unwrap_err();
        assert_eq!(
            (error.kind, error.retry_after, error.message.as_str()),
            (ErrorKind::RateLimit, Some(2.0), "Resource exhausted")
        );
    }

    #[test]
    fn synthetic_ids_are_recognised() {
        let id = synthetic_call_id();
        assert!(is_synthetic_call_id(&id), "{id}");
        assert_ne!(id, synthetic_call_id());
        assert!(!is_synthetic_call_id("s3qm24sq"));
        assert!(!is_synthetic_call_id("call_abc123"));
    }
}
