//! The OpenAI Chat Completions codec: `POST {base_url}/chat/completions`, the wire format of
//! OpenAI-compatible servers (llama.cpp, vLLM, Ollama, LM Studio) and of OpenAI itself
//! (unified-llm-spec 7.10). A pure translation: it builds requests and reads bodies and stream
//! bytes, and never does I/O.
//!
//! What the unified model does not carry goes through `provider_options` under the codec's
//! provider name (default `openai-compatible`; `openai_compatible` is read too, as it is easier
//! to write as a key). Those options are merged into the body, except the ones this codec reads
//! itself:
//!
//! # Provider options
//! - `developer_role: true` sends developer messages as the `developer` role (OpenAI) instead of
//!   `system` (which every compatible server understands).
//! - `send_reasoning: true` sends assistant reasoning back as `reasoning_content`; by default it
//!   is dropped, since this API has no field for it.
//! - `max_tokens_param: "max_completion_tokens"` names the output limit as OpenAI's newer
//!   parameter (its reasoning models reject `max_tokens`); the default `max_tokens` is what
//!   compatible servers read.
//! - `strict_tools: true` marks every function tool `strict` (OpenAI structured tool calls).
//! - Any other key is put in the body as given; a `null` value removes the key (for example
//!   `stream_options: null` for a server that rejects it). `stream` is always the codec's.

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

/// The provider name used unless [`OpenAiChat::with_provider`] sets another.
pub const DEFAULT_PROVIDER: &str = "openai-compatible";

/// Where a local server usually listens (llama.cpp's default port), for the examples hosts give
/// when no base URL is set. Not a default: an OpenAI-compatible provider has no server to assume.
pub const LOCAL_BASE_URL: &str = "http://127.0.0.1:8080/v1";

/// The Chat Completions codec for one server.
///
/// ```
/// use openagent_llm::openai_chat::OpenAiChat;
/// use openagent_llm::{Codec, Message, ProviderConfig, Request};
///
/// let config = ProviderConfig { base_url: "http://127.0.0.1:8080/v1".into(), ..Default::default() };
/// let codec = OpenAiChat::new(config).with_provider("llamacpp");
/// let request = Request { model: "qwen".into(), messages: vec![Message::user("hi")], ..Default::default() };
/// let http = codec.build_request(&request, true).unwrap();
/// assert_eq!(http.url, "http://127.0.0.1:8080/v1/chat/completions");
/// assert!(http.header("authorization").is_none()); // no key, no header: local servers need none
/// ```
#[derive(Debug, Clone)]
pub struct OpenAiChat {
    config: ProviderConfig,
    provider: String,
}

impl OpenAiChat {
    pub fn new(config: ProviderConfig) -> Self {
        Self { config, provider: DEFAULT_PROVIDER.to_owned() }
    }

    /// Attributes responses and errors to `name`, and reads `provider_options[name]`.
    pub fn with_provider(mut self, name: impl Into<String>) -> Self {
        self.provider = name.into();
        self
    }
}

impl Codec for OpenAiChat {
    fn provider(&self) -> &str {
        &self.provider
    }

    fn build_request(&self, request: &Request, stream: bool) -> Result<HttpRequest, LlmError> {
        request::build(&self.config, &self.provider, request, stream)
    }

    fn parse_response(&self, body: &[u8], headers: &[(String, String)]) -> Result<Response, LlmError> {
        response::parse(&self.provider, body, headers)
    }

    fn parse_error(&self, status: u16, headers: &[(String, String)], body: &[u8]) -> LlmError {
        error::from_http(&self.provider, status, headers, body)
    }

    fn stream_decoder(&self) -> Box<dyn StreamDecoder> {
        Box::new(stream::Decoder::new(&self.provider))
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use std::rc::Rc;

    use async_trait::async_trait;
    use futures::executor::block_on;
    use futures::StreamExt;

    use super::*;
    use crate::http::{HttpClient, HttpError, HttpResponse};
    use crate::ErrorKind;
    use crate::{ApiKey, HttpLlmClient, LlmClient, Message, StreamEvent};

    /// An HTTP client that answers every request with one status and body, in pieces.
    struct Canned {
        status: u16,
        pieces: Vec<&'static str>,
    }

    #[async_trait(?Send)]
    impl HttpClient for Canned {
        async fn send(&self, _request: HttpRequest) -> Result<HttpResponse, HttpError> {
            let pieces: Vec<Result<Vec<u8>, HttpError>> = self.pieces.iter().map(|p| Ok(p.as_bytes().to_vec())).collect();
            Ok(HttpResponse { status: self.status, headers: Vec::new(), body: Box::pin(futures::stream::iter(pieces)) })
        }
    }

    fn client(status: u16, pieces: Vec<&'static str>) -> HttpLlmClient<OpenAiChat> {
        HttpLlmClient::new(codec("http://127.0.0.1:8080/v1", ""), Rc::new(Canned { status, pieces }))
    }

    fn codec(base_url: &str, key: &str) -> OpenAiChat {
        OpenAiChat::new(ProviderConfig { api_key: ApiKey::new(key), base_url: base_url.into(), ..Default::default() })
    }

    fn request() -> Request {
        Request { model: "m".into(), messages: vec![Message::user("hi")], ..Default::default() }
    }

    #[test]
    fn posts_to_chat_completions_under_the_base_url() {
        for base in ["http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1/chat/completions"] {
            let http = codec(base, "").build_request(&request(), false).unwrap();
            assert_eq!(http.url, "http://127.0.0.1:8080/v1/chat/completions", "{base}");
        }
    }

    #[test]
    fn the_key_goes_only_in_the_authorization_header_and_only_when_set() {
        let http = codec("https://api.openai.com/v1", "sk-test-secret-123").build_request(&request(), true).unwrap();
        assert_eq!(http.header("authorization"), Some("Bearer sk-test-secret-123"));
        assert!(!String::from_utf8_lossy(&http.body.to_vec()).contains("sk-test"));
        assert!(!format!("{http:?}").contains("sk-test"));
        assert_eq!(http.header("accept"), Some("text/event-stream"));
        let http = codec("http://localhost:11434/v1", "").build_request(&request(), false).unwrap();
        assert!(http.header("authorization").is_none());
    }

    #[test]
    fn a_missing_base_url_or_bad_options_are_configuration_errors() {
        let error = codec(" ", "").build_request(&request(), false).unwrap_err();
        assert_eq!((error.kind, error.provider.as_deref()), (ErrorKind::Configuration, Some(DEFAULT_PROVIDER)));
        let mut bad = request();
        bad.provider_options = Some(serde_json::json!({"openai-compatible": {"send_reasoning": 1}}));
        let error = codec("http://x/v1", "").build_request(&bad, false).unwrap_err();
        assert_eq!((error.kind, error.provider.as_deref()), (ErrorKind::Configuration, Some(DEFAULT_PROVIDER)));
    }

    #[test]
    fn the_provider_name_is_configurable() {
        let codec = codec("http://x/v1", "").with_provider("vllm");
        assert_eq!(codec.provider(), "vllm");
        assert_eq!(OpenAiChat::new(ProviderConfig::default()).provider(), DEFAULT_PROVIDER);
    }

    #[test]
    fn runs_over_an_http_client_whole_streamed_and_failing() {
        let body = r#"{"id": "r", "model": "m", "choices": [{"message": {"content": "hi"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}"#;
        let (head, tail) = body.split_at(17);
        let response = block_on(client(200, vec![head, tail]).complete(&request())).unwrap();
        assert_eq!((response.text().as_str(), response.usage.total_tokens), ("hi", 2));

        let sse = vec![
            "data: {\"id\": \"r\", \"choices\": [{\"delta\": {\"content\": \"par\"}}]}\n",
            "\ndata: {\"error\": {\"message\": \"overloaded\", \"type\": \"server_error\"}}\n\n",
            "data: {\"choices\": [{\"delta\": {\"content\": \"never\"}, \"finish_reason\": \"stop\"}]}\n\ndata: [DONE]\n\n",
        ];
        let streaming = client(200, sse);
        let events: Vec<StreamEvent> = block_on(async { streaming.stream(&request()).await.unwrap().collect().await });
        assert!(matches!(events.first(), Some(StreamEvent::StreamStart { .. })));
        assert!(matches!(events.last(), Some(StreamEvent::Error { error }) if error.message == "overloaded"));
        assert_eq!(events.iter().filter(|e| matches!(e, StreamEvent::Error { .. } | StreamEvent::Finish { .. })).count(), 1);

        let error = block_on(
            client(429, vec![r#"{"error": {"message": "slow down", "code": "rate_limit_exceeded"}}"#]).stream(&request()),
        );
        let error = error.err().unwrap();
        assert_eq!((error.kind, error.status_code, error.message.as_str()), (ErrorKind::RateLimit, Some(429), "slow down"));
    }
}
