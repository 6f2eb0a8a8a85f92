//! The LLM layer: the unified data model, the `LlmClient` seam, streaming and errors.

pub mod base64;
mod client;
mod error;
mod scripted;
mod stream;
mod types;

pub use client::{collect_stream, EventStream, LlmClient};
pub use error::{ErrorKind, LlmError};
pub use scripted::{stream_events, ScriptStep, ScriptedClient};
pub use stream::{reason_for, StreamAccumulator, StreamEvent};
pub use types::*;
