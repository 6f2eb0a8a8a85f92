//! The Anthropic Messages API codec (`POST {base_url}/v1/messages`; unified-llm-spec 7.3, 7.7
//! and 2.10). A pure translation: it builds HTTP requests and reads bodies and stream bytes, and
//! [`HttpLlmClient`](super::HttpLlmClient) does the I/O.
//!
//! ```
//! use openagent_llm::anthropic_messages::AnthropicMessages;
//! use openagent_llm::{ApiKey, Codec, Message, ProviderConfig, Request};
//!
//! let config = ProviderConfig { api_key: ApiKey::new("sk-ant-…"), base_url: "https://api.anthropic.com".into(), ..Default::default() };
//! let codec = AnthropicMessages::new(config);
//! let request = Request { model: "claude-sonnet-4-5".into(), messages: vec![Message::user("Hi")], ..Default::default() };
//! let http = codec.build_request(&request, true).unwrap();
//! assert_eq!(http.url, "https://api.anthropic.com/v1/messages");
//! ```
//!
//! What the codec decides for the caller, and the escape hatches (`provider_options.anthropic`):
//!
//! - **System and developer messages**, wherever they stand in the conversation, become text blocks
//!   of `system`, in order. (`role: "system"` inside `messages` is refused by some models: see the
//!   captured `anthropicMidConversationSystemMessage` error.)
//! - **Alternation**: consecutive messages that map to the same role are merged; tool results are
//!   `tool_result` blocks of a user message.
//! - **Reasoning**: `reasoning_effort` `low`/`medium`/`high` turns on extended thinking with a
//!   budget of 2048/8192/24576 tokens, and `none` sends `thinking: {type: disabled}`. An explicit
//!   `thinking` option (e.g. `{"type": "adaptive"}`) wins. The newer `output_config.effort` is
//!   not derived, because only some models accept it; pass it as an `output_config` option.
//! - **`max_tokens`** is required by the API: 4096 by default, plus the thinking budget when
//!   thinking is on; a caller's `max_tokens` that does not exceed the budget gets the budget added,
//!   so the answer keeps the room the caller asked for.
//! - **Tool choice** `none` keeps the tools and sends `tool_choice: {type: none}`: dropping the
//!   tools would void the prompt cache (tools head the cached prefix) and the API refuses
//!   `tool_use` history without tool definitions.
//! - **Structured output**: a JSON schema goes to `output_config.format`; plain JSON mode, which
//!   the API lacks, becomes a closing system instruction.
//! - **Prompt caching** (see `options.rs`): up to four `cache_control` breakpoints are placed
//!   automatically; `auto_cache: false` turns that off and `cache_control` replaces the marker
//!   (e.g. `{"type": "ephemeral", "ttl": "1h"}`).
//! - **`beta_headers`** are joined into the `anthropic-beta` header.
//! - Every other option key is merged into the body (objects deeply, so an `output_config` option
//!   combines with the codec's own), and wins over what the codec derived.
//! - **Usage**: `input_tokens` counts the whole prompt (uncached + cache read + cache write) so it
//!   compares with other providers and with the context window; reasoning tokens come from
//!   `output_tokens_details.thinking_tokens` when the API reports them, else are estimated as a
//!   quarter of the thinking text's characters.

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

/// The name responses and errors are attributed to, and the `provider_options` key.
const PROVIDER: &str = "anthropic";

/// How the stream decoder names its thinking segments (`thinking-0`, ...). The stream accumulator
/// keeps a segment's id on its part, so this prefix is how the request side tells this API's own
/// streamed thinking from a foreign reasoning item that carries a provider id (OpenAI's `rs_…`).
const THINKING_ID_PREFIX: &str = "thinking-";

/// Where the API lives when the configuration names no base URL (the `ANTHROPIC_BASE_URL` default).
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";

/// The Anthropic Messages wire API.
#[derive(Debug, Clone)]
pub struct AnthropicMessages {
    config: ProviderConfig,
}

impl AnthropicMessages {
    pub fn new(config: ProviderConfig) -> Self {
        Self { config }
    }
}

impl Codec for AnthropicMessages {
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
        Box::new(stream::Decoder::new())
    }
}
