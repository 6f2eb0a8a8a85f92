//! The `LlmClient` seam: how the session reaches a model. Codecs over HTTP implement it, and so
//! does [`ScriptedClient`](super::ScriptedClient), which is how tests fake the model.

use async_trait::async_trait;
use futures::stream::LocalBoxStream;
use futures::StreamExt;

use super::error::LlmError;
use super::stream::{StreamAccumulator, StreamEvent};
use super::types::{Request, Response};

/// A stream of events for one call. Failures after the stream began arrive as
/// [`StreamEvent::Error`], which is the last item.
pub type EventStream = LocalBoxStream<'static, StreamEvent>;

/// One model call, whole or streamed. Neither retries: retry policy sits above the seam.
#[async_trait(?Send)]
pub trait LlmClient {
    /// The provider name responses are attributed to.
    fn provider(&self) -> &str;

    async fn complete(&self, request: &Request) -> Result<Response, LlmError>;

    /// Starts a streamed call. `Err` means nothing was received (safe to retry when retryable).
    async fn stream(&self, request: &Request) -> Result<EventStream, LlmError>;
}

/// Drains a stream into its response.
pub async fn collect_stream(provider: &str, mut events: EventStream) -> Result<Response, LlmError> {
    let mut acc = StreamAccumulator::new();
    while let Some(event) = events.next().await {
        acc.push(event);
    }
    acc.finish(provider)
}
