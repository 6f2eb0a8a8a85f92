//! The `HttpClient` seam: one HTTP exchange with a streamed response body. The browser host
//! implements it with `fetch`, the native host with a blocking client on worker threads; codecs
//! never see which.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use futures::stream::LocalBoxStream;
use futures::StreamExt;

/// Header names whose values are credentials: never printed.
const SECRET_HEADERS: [&str; 4] = ["authorization", "x-api-key", "x-goog-api-key", "api-key"];

pub fn is_secret_header(name: &str) -> bool {
    SECRET_HEADERS.iter().any(|s| s.eq_ignore_ascii_case(name))
}

/// Headers as they may be shown: credential values replaced by `[redacted]`.
pub fn redacted_headers(headers: &[(String, String)]) -> Vec<(&str, &str)> {
    headers.iter().map(|(k, v)| (k.as_str(), if is_secret_header(k) { "[redacted]" } else { v.as_str() })).collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Get,
    Post,
}

/// A request to send. `Debug` hides credential headers.
#[derive(Clone, PartialEq, Eq)]
pub struct HttpRequest {
    pub method: Method,
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Body,
}

impl HttpRequest {
    pub fn post_json(url: impl Into<String>, body: impl Into<Body>) -> Self {
        let headers = vec![("content-type".into(), "application/json".into())];
        Self { method: Method::Post, url: url.into(), headers, body: body.into() }
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }
}

impl fmt::Debug for HttpRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpRequest")
            .field("method", &self.method)
            .field("url", &self.url)
            .field("headers", &redacted_headers(&self.headers))
            .field("body_bytes", &self.body.len())
            .finish()
    }
}

/// A request body: its bytes, as the pieces they were written from. A piece a codec keeps
/// between requests (a message's encoding, which a session sends again every round) is shared
/// here, not copied, so a transport that sends pieces as they are (`fetch`, with a `Blob` for
/// each) never copies a conversation's history again; others join them ([`Body::to_vec`]).
#[derive(Clone, Default)]
pub struct Body(Vec<Arc<[u8]>>);

impl Body {
    /// The body of these pieces, in order.
    pub fn from_pieces(pieces: Vec<Arc<[u8]>>) -> Self {
        Self(pieces)
    }

    pub fn pieces(&self) -> &[Arc<[u8]>] {
        &self.0
    }

    pub fn len(&self) -> usize {
        self.0.iter().map(|piece| piece.len()).sum()
    }

    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|piece| piece.is_empty())
    }

    /// The bytes in one buffer.
    pub fn to_vec(&self) -> Vec<u8> {
        self.0.concat()
    }
}

impl From<Vec<u8>> for Body {
    fn from(bytes: Vec<u8>) -> Self {
        Self(if bytes.is_empty() { Vec::new() } else { vec![bytes.into()] })
    }
}

/// Bodies are equal when their bytes are, however they are cut into pieces.
impl PartialEq for Body {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.0.iter().flat_map(|p| p.iter()).eq(other.0.iter().flat_map(|p| p.iter()))
    }
}

impl Eq for Body {}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Body({} bytes in {} pieces)", self.len(), self.0.len())
    }
}

/// The response body as it arrives, chunk by chunk.
pub type ByteStream = LocalBoxStream<'static, Result<Vec<u8>, HttpError>>;

/// A response whose body has not been read yet.
pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: ByteStream,
}

impl HttpResponse {
    /// The first value of a header, by case-insensitive name.
    pub fn header(&self, name: &str) -> Option<&str> {
        find_header(&self.headers, name)
    }

    /// Reads the whole body.
    pub async fn bytes(mut self) -> Result<Vec<u8>, HttpError> {
        let mut out = Vec::new();
        while let Some(chunk) = self.body.next().await {
            out.extend_from_slice(&chunk?);
        }
        Ok(out)
    }
}

pub fn find_header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HttpErrorKind {
    /// No connection could be made (DNS, refused, TLS, CORS in a browser).
    Connect,
    /// The request or a read took longer than allowed.
    Timeout,
    /// The connection broke while the body was being read.
    Body,
    /// The request was cancelled.
    Aborted,
}

/// A transport failure: there is no HTTP status to speak of.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct HttpError {
    pub kind: HttpErrorKind,
    pub message: String,
}

impl HttpError {
    pub fn new(kind: HttpErrorKind, message: impl Into<String>) -> Self {
        Self { kind, message: message.into() }
    }
}

/// Sends one request. Futures need not be `Send`; dropping the future cancels the request.
#[async_trait(?Send)]
pub trait HttpClient {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpError>;
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn debug_output_never_shows_credentials() {
        let mut request = HttpRequest::post_json("https://api.example/v1/messages", b"{}".to_vec());
        request.headers.push(("x-api-key".into(), "sk-ant-secret".into()));
        request.headers.push(("Authorization".into(), "Bearer sk-secret".into()));
        let shown = format!("{request:?}");
        assert!(!shown.contains("secret"), "{shown}");
        assert!(shown.contains("[redacted]"));
        assert_eq!(request.header("AUTHORIZATION"), Some("Bearer sk-secret"));
    }
}
