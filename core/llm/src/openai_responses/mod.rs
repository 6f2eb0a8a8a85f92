//! The OpenAI Responses API codec (`POST {base_url}/responses`; unified-llm-spec 7.3, 7.7, 7.8).
//!
//! A pure translation: [`OpenAiResponses`] builds the HTTP request for a unified [`Request`] and
//! parses bodies, errors and SSE bytes back; it never does I/O. What it decides, and why:
//!
//! - **Stateless by default.** Requests carry `store: false` and, so that reasoning survives
//!   between turns, `include: ["reasoning.encrypted_content"]`. Reasoning items come back as
//!   [`ContentPart::Thinking`] with `id` = the `rs_…` item id, `text` = the summary parts joined
//!   by a blank line, `signature` = `encrypted_content`, and are replayed as `reasoning` input
//!   items. `provider_options.openai.store = true` switches to server-side state: then the
//!   `include` default is left out and items are referred to by id.
//! - **Tool calls.** [`ToolCall::id`] is the `call_id` that tool results answer; the `fc_…` item
//!   id travels in [`ToolCall::signature`] and is sent back only when `store` is true (a stateless
//!   request has nothing stored for it to refer to). `custom_tool_call` items are tool calls of
//!   `type: "custom"` whose `arguments` is the input text.
//! - **Chained, when asked.** `provider_options.openai.chain = true` (with `store`, its default
//!   then) continues the server's copy of the conversation: once a response has come, the next
//!   request names it as `previous_response_id` and sends only the messages after its answer, so
//!   a long conversation is not sent again every round. The response id lives in the request's
//!   [`MessageMemo`](crate::MessageMemo), which forgets it when the history before it changes
//!   (compaction); a server that no longer has it (`previous_response_not_found`) gets the
//!   request again, whole. `chain` itself is never sent.
//! - **System and developer messages** are joined into `instructions`.
//! - **No stop sequences.** The Responses API has no `stop` parameter; a request with
//!   `stop_sequences` is refused rather than sent with its meaning silently changed.
//! - **`provider_options.openai`** is merged into the body as a JSON merge patch (RFC 7396: objects
//!   merge, `null` removes a key, anything else replaces), so it can add parameters, refine ours
//!   (`reasoning.summary`, `text.verbosity`) or remove a default (`include: null`). Only
//!   `organization` and `project` are taken out: they become the `OpenAI-Organization` and
//!   `OpenAI-Project` headers (and `chain`, above, is the codec's).
//! - The API key goes into the `Authorization` header and nowhere else. (`HttpLlmClient` keeps it,
//!   and anything shaped like an OpenAI key, out of errors.)
//!
//! [`ContentPart::Thinking`]: crate::ContentPart::Thinking
//! [`ToolCall::id`]: crate::ToolCall::id
//! [`ToolCall::signature`]: crate::ToolCall::signature

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

/// The name responses and errors are attributed to, and the `provider_options` key this codec reads.
pub const PROVIDER: &str = "openai";

/// Where the API lives when the configuration names no base URL (the `OPENAI_BASE_URL` default).
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";

/// The OpenAI Responses API.
///
/// ```
/// use openagent_llm::openai_responses::OpenAiResponses;
/// use openagent_llm::{ApiKey, Codec, Message, ProviderConfig, Request};
///
/// let config = ProviderConfig { api_key: ApiKey::new("sk-test"), base_url: "https://api.openai.com/v1".into(), ..Default::default() };
/// let codec = OpenAiResponses::new(config);
/// let request = Request { model: "gpt-5-nano".into(), messages: vec![Message::user("Hi")], ..Default::default() };
/// let http = codec.build_request(&request, true).unwrap();
/// assert_eq!(http.url, "https://api.openai.com/v1/responses");
/// ```
#[derive(Debug, Clone)]
pub struct OpenAiResponses {
    config: ProviderConfig,
}

impl OpenAiResponses {
    pub fn new(config: ProviderConfig) -> Self {
        Self { config }
    }
}

impl Codec for OpenAiResponses {
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

    fn continues(&self, request: &Request) -> bool {
        options::read(request).and_then(|options| options::chain(&options)).unwrap_or(false)
    }

    /// OpenAI answers a `previous_response_id` it no longer keeps (expired, deleted, another
    /// project's) with a 400 whose code says so.
    fn lost_continuation(&self, error: &LlmError) -> bool {
        error.error_code.as_deref() == Some("previous_response_not_found")
    }
}
