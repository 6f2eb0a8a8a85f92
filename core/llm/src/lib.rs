//! # openagent-llm
//!
//! The LLM layer of OpenAgent: the unified data model (messages, content parts, tool calls,
//! usage), the `LlmClient` seam with streaming and errors, and the transport pieces every wire
//! codec shares: the `HttpClient` seam, SSE decoding, retries, the provider table (`providers`),
//! the one way a provider is resolved from it (`settings`, which `Client::from_env` and every
//! host use) and the key policy (`HttpLlmClient`, in `codec.rs`). Four codecs speak the
//! providers' APIs: OpenAI Responses, Anthropic Messages, Gemini generateContent and Chat
//! Completions. Over any client, the high-level API of spec section 4: `generate` (tool loop,
//! steps, timeouts), `stream` (the same, its calls streamed: every step's events, a `StepFinish`
//! between steps, then the same result) and `generate_object` (JSON checked against a schema by
//! openagent-jsonschema).
//!
//! Retries live in one layer (spec 6.6): no client retries by itself (a low-level `complete` or
//! `stream` fails at once), and the high-level functions retry each model call by
//! `Generate::retry`, a stream only until it opens. A host that drives the low-level API and wants
//! retries composes them: `retry()` around a call, or a `RetryingClient` (as the agent's session
//! does, reporting each retry).
//!
//! It must not depend on the agent (`openagent-core`: sessions, tools, profiles, environments)
//! nor do I/O of its own: a host hands it an `HttpClient` and a [`runtime::Runtime`] (the clock
//! and timers its retries wait on, which the agent loop shares). It builds and passes its tests on
//! `wasm32-unknown-unknown`, and nothing in it needs `Send`.
//!
//! Every codec folder has the same files, each with one job:
//!
//! | file | job |
//! |---|---|
//! | `mod.rs` | the codec type, its `Codec` impl, and what it decides for the caller |
//! | `request.rs` | a `Request` as an `HttpRequest`: URL, headers, the body's top level |
//! | `messages.rs` | the conversation as the API's messages, tool calls, results and reasoning |
//! | `tools.rs` | tool definitions and the tool choice |
//! | `options.rs` | `provider_options`: the keys the codec reads, the rest merged into the body |
//! | `response.rs` | a whole body as a `Response`, and the readers the stream decoder shares |
//! | `stream.rs` | the stream `Decoder`: bytes to `StreamEvent`s |
//! | `error.rs` | error answers and error events as `LlmError`s |
//!
//! Bodies are built with `json::object` and `Value::from`, never `json!` (see `json.rs`).

pub mod anthropic_messages;
pub mod base64;
mod body_events;
pub mod catalog;
mod catalog_json;
mod client;
mod codec;
mod default_client;
mod error;
mod from_env;
pub mod gemini;
mod generate;
mod generate_stream;
pub mod http;
pub mod id;
mod json;
pub use openagent_jsonschema::json_text;
mod memo;
pub mod openai_chat;
pub mod openai_responses;
pub mod providers;
mod retry;
mod router;
pub mod runtime;
mod scripted;
pub mod settings;
mod shared_text;
/// One copy of the standard sort for every crate above this one (see the module).
#[doc(hidden)]
pub mod sort;
pub mod sse;
mod stream;
mod types;

pub use client::{collect_stream, EventStream, LlmClient};
pub use codec::{transport_error, ApiKey, Codec, HttpLlmClient, ProviderConfig, StreamDecoder};
pub use default_client::{default_client, default_client_or_init, set_default_client};
pub use error::{classify_message, error_from_http, rate_limit_info, retry_after, ErrorDetails, ErrorKind, LlmError};
pub use generate::{generate, generate_object, Generate, GenerateResult, StepResult, Timeout, Tool, ToolHandler};
pub use generate_stream::{stream, StreamResult};
pub use memo::MessageMemo;
pub use retry::{retry, OnRetry, RetryPolicy, RetryingClient};
pub use router::{Client, Middleware, Next};
pub use scripted::{stream_events, ScriptStep, ScriptedClient};
pub use shared_text::SharedText;
pub use stream::{StreamAccumulator, StreamEvent};
pub use types::*;
