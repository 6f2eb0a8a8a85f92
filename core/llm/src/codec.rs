//! The codec seam: one pure translation per wire API, and [`HttpLlmClient`], which runs any codec
//! over any [`HttpClient`]. A codec builds HTTP requests and parses bodies and stream bytes; it
//! never does I/O, so it is tested byte for byte against captured payloads and runs unchanged in
//! the browser and natively.
//!
//! The key policy lives here too, once for every codec: every error an [`HttpLlmClient`] returns
//! or streams has the credentials of its request scrubbed out (a provider or a proxy may echo a
//! key back in a body, an event or a transport error), so a codec never handles the key beyond
//! putting it in its header.

use std::fmt;
use std::rc::Rc;

use async_trait::async_trait;
use futures::StreamExt;

use super::body_events::BodyEvents;
use super::client::{EventStream, LlmClient};
use super::error::{ErrorKind, LlmError};
use super::http::{is_secret_header, redacted_headers, HttpClient, HttpError, HttpErrorKind, HttpResponse};
use super::stream::StreamEvent;
use super::types::{Request, Response};
use crate::http::HttpRequest;
use crate::memo::Continuation;

/// An API key. Shown as `[redacted]` in `Debug`, so it cannot leak into logs, events or error
/// messages by accident; [`HttpLlmClient`] scrubs it from the errors it returns.
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
    /// Whether `request` continues a conversation the server keeps: each response's id then goes
    /// into the request's memo, and the next request sends only the messages after it.
    fn continues(&self, _request: &Request) -> bool {
        false
    }
    /// Whether `error` says the server no longer has the response a request continued from: the
    /// request then goes again, whole.
    fn lost_continuation(&self, _error: &LlmError) -> bool {
        false
    }
}

/// The most bytes of one response a client reads by default: far above any real answer (a
/// 128k-token answer streamed is ~25 MB of events), and a bound on a server that never stops.
pub const MAX_RESPONSE_BYTES: usize = 64 << 20;

/// How much of a body is kept to quote when it turns out not to be a response.
const QUOTED_BYTES: usize = 4096;

/// An [`LlmClient`] that speaks one codec over one HTTP client. It does not retry.
pub struct HttpLlmClient<C> {
    codec: C,
    http: Rc<dyn HttpClient>,
    max_response_bytes: usize,
}

impl<C: Codec> HttpLlmClient<C> {
    pub fn new(codec: C, http: Rc<dyn HttpClient>) -> Self {
        Self { codec, http, max_response_bytes: MAX_RESPONSE_BYTES }
    }

    /// Reads at most `max` bytes of a response (default `MAX_RESPONSE_BYTES`); a longer one
    /// ends in an error.
    pub fn with_max_response_bytes(mut self, max: usize) -> Self {
        self.max_response_bytes = max;
        self
    }

    pub fn codec(&self) -> &C {
        &self.codec
    }

    fn wire(&self) -> Wire<'_> {
        Wire { codec: &self.codec, http: &*self.http, max_response_bytes: self.max_response_bytes }
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
        self.wire().complete_request(request).await
    }

    async fn stream(&self, request: &Request) -> Result<EventStream, LlmError> {
        self.wire().stream_request(request).await
    }
}

/// The credentials one request carries: the values of its credential headers (a bearer token
/// without `Bearer `). Each is scrubbed from the errors of that exchange, together with anything
/// shaped like an OpenAI key (OpenAI's 401 quotes a masked `sk-proj-****1234`).
struct Secrets(Vec<String>);

impl Secrets {
    fn of(request: &HttpRequest) -> Self {
        let values = request.headers.iter().filter(|(name, _)| is_secret_header(name)).map(|(_, value)| {
            let value = value.trim();
            value.strip_prefix("Bearer ").unwrap_or(value).trim().to_owned()
        });
        // A value shorter than 8 characters is no real key, and replacing it would mangle words.
        Self(values.filter(|value| value.len() >= 8).collect())
    }

    /// `error` with every secret replaced by `[redacted]` in its message and in every string of
    /// its raw body.
    fn scrub(&self, mut error: LlmError) -> LlmError {
        error.message = self.scrub_text(&error.message);
        if let Some(raw) = error.raw.as_mut() {
            self.scrub_value(raw);
        }
        error
    }

    fn scrub_value(&self, value: &mut serde_json::Value) {
        use serde_json::Value;
        match value {
            Value::String(text) => *text = self.scrub_text(text),
            Value::Array(items) => items.iter_mut().for_each(|v| self.scrub_value(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.scrub_value(v)),
            _ => {}
        }
    }

    fn scrub_text(&self, text: &str) -> String {
        let mut text = text.to_owned();
        for secret in &self.0 {
            if text.contains(secret.as_str()) {
                text = text.replace(secret.as_str(), "[redacted]");
            }
        }
        // `sk-` tokens that start a word, masked or whole.
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(at) = rest.find("sk-") {
            let starts_word = rest[..at].chars().next_back().is_none_or(|c| !c.is_ascii_alphanumeric());
            let len = rest[at..].find(|c: char| !(c.is_ascii_alphanumeric() || "-_*".contains(c))).unwrap_or(rest.len() - at);
            out.push_str(&rest[..at]);
            out.push_str(if starts_word { "[redacted]" } else { &rest[at..at + len] });
            rest = &rest[at + len..];
        }
        out.push_str(rest);
        out
    }
}

/// An [`HttpLlmClient`] without its codec's type: the calls are compiled once for every codec
/// rather than once per codec (the browser bundle is a budget).
struct Wire<'a> {
    codec: &'a dyn Codec,
    http: &'a dyn HttpClient,
    max_response_bytes: usize,
}

impl Wire<'_> {
    /// `request` answered whole; the memo records the response when the conversation is chained,
    /// and a chained request the server cannot continue goes again, whole. (On `Wire`, not the
    /// generic client: one copy of this for every codec.)
    async fn complete_request(&self, request: &Request) -> Result<Response, LlmError> {
        let response = match self.complete_once(request).await {
            Err(error) if self.forgot(request, &error) => self.complete_once(request).await,
            answer => answer,
        }?;
        if let Some(continuation) = self.continuation(request) {
            continuation.record(response.id.clone(), request.messages.len() + 1);
        }
        Ok(response)
    }

    /// `request` streamed, chained as [`Wire::complete_request`] is.
    async fn stream_request(&self, request: &Request) -> Result<EventStream, LlmError> {
        let events = match self.stream_once(request).await {
            Err(error) if self.forgot(request, &error) => self.stream_once(request).await,
            answer => answer,
        }?;
        let Some(continuation) = self.continuation(request) else { return Ok(events) };
        // Recorded when the response has ended well: its id comes first, its end last.
        let (covered, mut id) = (request.messages.len() + 1, None);
        Ok(Box::pin(events.inspect(move |event| match event {
            StreamEvent::StreamStart { id: Some(started), .. } => id = Some(started.clone()),
            StreamEvent::Finish { .. } => {
                if let Some(id) = id.take() {
                    continuation.record(id, covered);
                }
            }
            _ => {}
        })))
    }

    async fn complete_once(&self, request: &Request) -> Result<Response, LlmError> {
        let http_request = self.codec.build_request(request, false)?;
        let secrets = Secrets::of(&http_request);
        self.complete(http_request).await.map_err(|error| secrets.scrub(error))
    }

    async fn stream_once(&self, request: &Request) -> Result<EventStream, LlmError> {
        let http_request = self.codec.build_request(request, true)?;
        let secrets = Secrets::of(&http_request);
        let events = self.stream(http_request).await.map_err(|error| secrets.scrub(error))?;
        Ok(Box::pin(events.map(move |event| match event {
            StreamEvent::Error { error } => StreamEvent::Error { error: secrets.scrub(error) },
            event => event,
        })))
    }

    /// Where `request`'s response is recorded, when it continues a conversation the server keeps.
    fn continuation(&self, request: &Request) -> Option<Continuation> {
        self.codec.continues(request).then(|| request.memo.continuation_recorder()).flatten()
    }

    /// Whether `error` came of continuing from a response the server no longer has; if so the
    /// memo forgets it, and the request may go again whole.
    fn forgot(&self, request: &Request, error: &LlmError) -> bool {
        let forgot = request.memo.continuation().is_some() && self.codec.lost_continuation(error);
        if forgot {
            request.memo.forget_continuation();
        }
        forgot
    }

    async fn send(&self, http_request: HttpRequest) -> Result<HttpResponse, LlmError> {
        let response = self.http.send(http_request).await.map_err(|e| transport_error(self.codec.provider(), e))?;
        if (200..300).contains(&response.status) {
            return Ok(response);
        }
        let (status, headers) = (response.status, response.headers.clone());
        let body = response.bytes().await.unwrap_or_default();
        Err(self.codec.parse_error(status, &headers, &body))
    }

    async fn complete(&self, request: HttpRequest) -> Result<Response, LlmError> {
        let mut response = self.send(request).await?;
        let headers = std::mem::take(&mut response.headers);
        let mut body = Vec::new();
        while let Some(chunk) = response.body.next().await {
            body.extend_from_slice(&chunk.map_err(|e| transport_error(self.codec.provider(), e))?);
            if body.len() > self.max_response_bytes {
                return Err(self.too_large());
            }
        }
        self.codec.parse_response(&body, &headers).map_err(|error| self.not_a_response(error, &headers, &body))
    }

    async fn stream(&self, request: HttpRequest) -> Result<EventStream, LlmError> {
        let mut response = self.send(request).await?;
        let provider = self.codec.provider().to_owned();
        // An event stream starts with a field (`data:`, `event:`, ...) or a comment. A page or a
        // JSON object in its place is read whole (within the cap) and answered as an error.
        let mut head = Vec::new();
        while head.iter().all(u8::is_ascii_whitespace) {
            match response.body.next().await {
                Some(chunk) => head.extend_from_slice(&chunk.map_err(|e| transport_error(&provider, e))?),
                None => break,
            }
        }
        if matches!(head.iter().find(|b| !b.is_ascii_whitespace()), Some(b'<' | b'{' | b'[')) {
            while let Some(chunk) = response.body.next().await {
                head.extend_from_slice(&chunk.map_err(|e| transport_error(&provider, e))?);
                if head.len() > self.max_response_bytes.min(QUOTED_BYTES * 16) {
                    break;
                }
            }
            let error = LlmError::new(ErrorKind::Server, "the server answered a streamed request without an event stream")
                .with_provider(&provider);
            return Err(self.not_a_response(error, &response.headers, &head));
        }
        let decoder = self.codec.stream_decoder();
        let too_large = self.too_large();
        Ok(Box::pin(BodyEvents::new(head, response.body, decoder, self.max_response_bytes, provider, too_large)))
    }

    fn too_large(&self) -> LlmError {
        let max = self.max_response_bytes;
        let size = if max % (1 << 20) == 0 { format!("{} MiB", max >> 20) } else { format!("{} KiB", max.div_ceil(1024)) };
        let mut error = LlmError::new(
            ErrorKind::Server,
            format!("the response passed {size} without ending and was cut there; a server that never stops answering is broken"),
        )
        .with_provider(self.codec.provider());
        error.retryable = false;
        error
    }

    /// `error` for a 200 body that is no response, unless the body says more: an HTML page (a
    /// proxy's) or a JSON error object, whose own words then make the error.
    fn not_a_response(&self, error: LlmError, headers: &[(String, String)], body: &[u8]) -> LlmError {
        let says_more = match serde_json::from_slice::<serde_json::Value>(body) {
            Ok(value) => carries_error(&value),
            Err(_) => !body.iter().all(u8::is_ascii_whitespace),
        };
        if !says_more {
            return error;
        }
        let server = self.codec.parse_error(200, headers, body);
        let message = format!("the server answered 200 without a response: {}", server.message);
        LlmError { message, ..server }
    }
}

/// Whether a JSON body is an error object (`{"error": {...}}`) rather than a response.
fn carries_error(value: &serde_json::Value) -> bool {
    value.get("error").is_some_and(|e| !e.is_null())
}

/// A body that broke after the stream began: a stream error, never retried by the caller.
pub(crate) fn stream_broken(provider: &str, error: HttpError) -> LlmError {
    LlmError::new(ErrorKind::Stream, format!("the response stream broke: {error}")).with_provider(provider)
}

#[cfg(test)]
#[path = "codec_tests.rs"]
mod tests;
