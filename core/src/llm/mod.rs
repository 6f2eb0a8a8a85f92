//! The LLM layer: the unified data model, the `LlmClient` seam, streaming and errors, and the
//! transport pieces every wire codec shares (the `HttpClient` seam, SSE decoding).

pub mod anthropic_messages;
pub mod base64;
mod client;
mod codec;
mod error;
mod from_env;
pub mod gemini;
pub mod http;
mod json;
pub mod openai_chat;
pub mod openai_responses;
pub mod providers;
mod retry;
mod router;
mod scripted;
pub mod sse;
mod stream;
mod types;

pub use client::{collect_stream, EventStream, LlmClient};
pub use codec::{transport_error, ApiKey, Codec, HttpLlmClient, ProviderConfig, StreamDecoder};
pub use error::{classify_message, error_from_http, rate_limit_info, retry_after, ErrorDetails, ErrorKind, LlmError};
pub use retry::{OnRetry, RetryPolicy, RetryingClient};
pub use router::{Client, Middleware, Next};
pub use scripted::{stream_events, ScriptStep, ScriptedClient};
pub use stream::{StreamAccumulator, StreamEvent};
pub use types::*;
