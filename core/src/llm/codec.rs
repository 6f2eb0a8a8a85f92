//! The codec seam: one pure translation per wire API, and [`HttpLlmClient`], which runs any codec
//! over any [`HttpClient`]. A codec builds HTTP requests and parses bodies and stream bytes; it
//! never does I/O, so it is tested byte for byte against captured payloads and runs unchanged in
//! the browser and natively.

use std::fmt;
use std::rc::Rc;

use async_trait::async_trait;
use futures::stream::{self, StreamExt};

use super::client::{EventStream, LlmClient};
use super::error::{ErrorKind, LlmError};
use super::http::{redacted_headers, HttpClient, HttpError, HttpErrorKind, HttpResponse};
use super::stream::StreamEvent;
use super::types::{Request, Response};
use crate::llm::http::HttpRequest;

/// An API key. Shown as `[redacted]` in `Debug` and `Display`, so it cannot leak into logs,
/// events or error messages by accident.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself, for the one place that needs it: the request header.
    pub fn expose(&self) -> &str {
        &self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `error` with this key replaced by `[redacted]` in its message and in every string of its
    /// raw body: a provider or a proxy may echo the key back. Keys shorter than 8 characters are
    /// left alone, since replacing them would mangle ordinary words.
    pub fn scrub(&self, mut error: LlmError) -> LlmError {
        if self.0.len() < 8 {
            return error;
        }
        error.message = error.message.replace(&self.0, "[redacted]");
        if let Some(raw) = error.raw.as_mut() {
            scrub_value(raw, &self.0);
        }
        error
    }
}

fn scrub_value(value: &mut serde_json::Value, secret: &str) {
    use serde_json::Value;
    match value {
        Value::String(s) if s.contains(secret) => *s = s.replace(secret, "[redacted]"),
        Value::Array(items) => items.iter_mut().for_each(|v| scrub_value(v, secret)),
        Value::Object(map) => map.values_mut().for_each(|v| scrub_value(v, secret)),
        _ => {}
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey([redacted])")
    }
}

/// Where and as whom a codec talks to its provider. `Debug` hides the key and credential headers.
#[derive(Clone, Default)]
pub struct ProviderConfig {
    pub api_key: ApiKey,
    /// The API root, e.g. `https://api.anthropic.com` or `http://127.0.0.1:8080/v1`.
    pub base_url: String,
    /// Extra headers on every request.
    pub default_headers: Vec<(String, String)>,
    /// The request comes from a browser page (Anthropic then needs its direct-access header).
    pub browser: bool,
}

impl fmt::Debug for ProviderConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A key may also ride in `default_headers` (`api-key` for Azure-style servers).
        f.debug_struct("ProviderConfig")
            .field("api_key", &self.api_key)
            .field("base_url", &self.base_url)
            .field("default_headers", &redacted_headers(&self.default_headers))
            .field("browser", &self.browser)
            .finish()
    }
}

/// Turns stream bytes into unified events. Stateful: one per streamed response.
pub trait StreamDecoder {
    /// Decodes one chunk of the body (any split, even mid-character).
    fn feed(&mut self, bytes: &[u8], out: &mut Vec<StreamEvent>) -> Result<(), LlmError>;
    /// The body ended; emit what is still pending.
    fn end(&mut self, out: &mut Vec<StreamEvent>) -> Result<(), LlmError>;
}

/// One wire API (unified-llm-spec section 7).
pub trait Codec {
    /// The provider name responses and errors are attributed to.
    fn provider(&self) -> &str;
    /// The HTTP request for `request`, streamed or not.
    fn build_request(&self, request: &Request, stream: bool) -> Result<HttpRequest, LlmError>;
    /// A successful (2xx) non-streamed body.
    fn parse_response(&self, body: &[u8], headers: &[(String, String)]) -> Result<Response, LlmError>;
    /// A non-2xx answer: the typed error, with the provider's message and `Retry-After`.
    fn parse_error(&self, status: u16, headers: &[(String, String)], body: &[u8]) -> LlmError;
    fn stream_decoder(&self) -> Box<dyn StreamDecoder>;
}

/// An [`LlmClient`] that speaks one codec over one HTTP client. It does not retry.
pub struct HttpLlmClient<C> {
    codec: C,
    http: Rc<dyn HttpClient>,
}

impl<C: Codec> HttpLlmClient<C> {
    pub fn new(codec: C, http: Rc<dyn HttpClient>) -> Self {
        Self { codec, http }
    }

    pub fn codec(&self) -> &C {
        &self.codec
    }

    async fn send(&self, request: &Request, stream: bool) -> Result<HttpResponse, LlmError> {
        let http_request = self.codec.build_request(request, stream)?;
        let response = self.http.send(http_request).await.map_err(|e| transport_error(self.codec.provider(), e))?;
        if (200..300).contains(&response.status) {
            return Ok(response);
        }
        let (status, headers) = (response.status, response.headers.clone());
        let body = response.bytes().await.unwrap_or_default();
        Err(self.codec.parse_error(status, &headers, &body))
    }
}

/// A transport failure as an LLM error: network trouble is retryable, a timeout is not (spec 6.3).
pub fn transport_error(provider: &str, error: HttpError) -> LlmError {
    let kind = match error.kind {
        HttpErrorKind::Connect | HttpErrorKind::Body => ErrorKind::Network,
        HttpErrorKind::Timeout => ErrorKind::RequestTimeout,
        HttpErrorKind::Aborted => ErrorKind::Abort,
    };
    LlmError::new(kind, error.message).with_provider(provider)
}

#[async_trait(?Send)]
impl<C: Codec + 'static> LlmClient for HttpLlmClient<C> {
    fn provider(&self) -> &str {
        self.codec.provider()
    }

    async fn complete(&self, request: &Request) -> Result<Response, LlmError> {
        let response = self.send(request, false).await?;
        let headers = response.headers.clone();
        let body = response.bytes().await.map_err(|e| transport_error(self.codec.provider(), e))?;
        self.codec.parse_response(&body, &headers)
    }

    async fn stream(&self, request: &Request) -> Result<EventStream, LlmError> {
        let response = self.send(request, true).await?;
        let provider = self.codec.provider().to_owned();
        let decoder = self.codec.stream_decoder();
        // State: the body, the decoder, and whether the stream is over (after an error or the end).
        let events = stream::unfold(Some((response.body, decoder)), move |state| {
            let provider = provider.clone();
            async move {
                let (mut body, mut decoder) = state?;
                let mut out = Vec::new();
                loop {
                    let result = match body.next().await {
                        Some(Ok(chunk)) => decoder.feed(&chunk, &mut out),
                        Some(Err(e)) => Err(stream_broken(&provider, e)),
                        None => {
                            let ended = decoder.end(&mut out);
                            return Some((finish_batch(out, ended), None));
                        }
                    };
                    match result {
                        Err(error) => return Some((finish_batch(out, Err(error)), None)),
                        Ok(()) if !out.is_empty() => return Some((out, Some((body, decoder)))),
                        Ok(()) => {}
                    }
                }
            }
        });
        Ok(Box::pin(events.flat_map(stream::iter)))
    }
}

/// A body that broke after the stream began: a stream error, never retried by the caller.
fn stream_broken(provider: &str, error: HttpError) -> LlmError {
    LlmError::new(ErrorKind::Stream, format!("the response stream broke: {error}")).with_provider(provider)
}

fn finish_batch(mut out: Vec<StreamEvent>, result: Result<(), LlmError>) -> Vec<StreamEvent> {
    if let Err(error) = result {
        out.push(StreamEvent::Error { error });
    }
    out
}
