//! [`NativeHttpClient`]: the core's `HttpClient` seam over ureq, a blocking client, with one worker
//! thread per exchange. The worker sends the response head through a oneshot and then the body,
//! chunk by chunk as it arrives, through a bounded channel; so no async runtime is involved and the
//! caller's futures stay executor-agnostic.

use std::io::{self, Read};
use std::thread;
use std::time::Duration;

use async_trait::async_trait;
use futures::channel::{mpsc, oneshot};
use futures::SinkExt;
use openagent_core::llm::http::{HttpClient, HttpError, HttpErrorKind, HttpRequest, HttpResponse, Method};

/// Largest chunk one read hands on; a read returns as soon as some bytes arrived, so SSE events
/// are not held back until a chunk is full.
const CHUNK_SIZE: usize = 16 * 1024;
/// Chunks in flight between the worker and the reader: enough to keep the socket busy, few
/// enough that a stalled reader cannot make the worker buffer a whole response.
const CHANNEL_DEPTH: usize = 8;

/// Timeouts for [`NativeHttpClient`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NativeHttpConfig {
    /// Establishing the connection, TLS included.
    pub connect_timeout: Duration,
    /// The longest silence allowed between two reads, the wait for the response head included.
    /// Generous by default: a model may think for a while before its first token.
    pub read_timeout: Duration,
}

impl Default for NativeHttpConfig {
    fn default() -> Self {
        Self { connect_timeout: Duration::from_secs(10), read_timeout: Duration::from_secs(60) }
    }
}

/// An [`HttpClient`] for native hosts. Cheap to clone; clones share one connection pool.
///
/// ```no_run
/// use openagent_core::llm::http::{HttpClient, HttpRequest};
/// use openagent_host::NativeHttpClient;
///
/// let client = NativeHttpClient::new();
/// let request = HttpRequest::post_json("http://127.0.0.1:8080/v1/chat/completions", b"{}".to_vec());
/// let response = futures::executor::block_on(client.send(request)).expect("reachable");
/// println!("status {}", response.status);
/// ```
#[derive(Debug, Clone)]
pub struct NativeHttpClient {
    agent: ureq::Agent,
    config: NativeHttpConfig,
}

impl NativeHttpClient {
    pub fn new() -> Self {
        Self::with_config(NativeHttpConfig::default())
    }

    pub fn with_config(config: NativeHttpConfig) -> Self {
        let agent = ureq::Agent::config_builder()
            .timeout_connect(Some(config.connect_timeout))
            .timeout_per_read(Some(config.read_timeout))
            // Error statuses are answers with a body the codec reads, not transport failures.
            .http_status_as_error(false)
            .build()
            .into();
        Self { agent, config }
    }
}

impl Default for NativeHttpClient {
    fn default() -> Self {
        Self::new()
    }
}

#[async_trait(?Send)]
impl HttpClient for NativeHttpClient {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        let (head_tx, head_rx) = oneshot::channel();
        let client = self.clone();
        thread::Builder::new()
            .name("openagent-http".into())
            .spawn(move || client.exchange(request, head_tx))
            .map_err(|e| HttpError::new(HttpErrorKind::Connect, format!("could not start an HTTP worker thread: {e}")))?;
        match head_rx.await {
            Ok(Ok(head)) => Ok(HttpResponse { status: head.status, headers: head.headers, body: Box::pin(head.body) }),
            Ok(Err(error)) => Err(error),
            Err(oneshot::Canceled) => Err(HttpError::new(HttpErrorKind::Connect, "the HTTP worker thread stopped unexpectedly")),
        }
    }
}

/// What the worker hands back once the response head is in: the parts of an `HttpResponse` that
/// may cross threads.
struct Head {
    status: u16,
    headers: Vec<(String, String)>,
    body: mpsc::Receiver<Result<Vec<u8>, HttpError>>,
}

impl NativeHttpClient {
    /// The worker: sends the request, hands back the head, then pumps the body until it ends,
    /// fails, or nobody listens any more (dropping the reader closes the connection here).
    fn exchange(&self, request: HttpRequest, head_tx: oneshot::Sender<Result<Head, HttpError>>) {
        if head_tx.is_canceled() {
            return;
        }
        let origin = origin(&request.url);
        // A pooled connection the server closed while idle (llama.cpp's server does) fails at
        // once, before any answer: try again on a fresh connection rather than surface it.
        let response = match call(&self.agent, request.clone()) {
            Err(e) if stale_connection(&e) => call(&self.agent, request),
            other => other,
        };
        let response = match response {
            Ok(response) => response,
            Err(e) => {
                let _ = head_tx.send(Err(self.error(HttpErrorKind::Connect, &format!("request to {origin} failed"), &e)));
                return;
            }
        };
        let status = response.status().as_u16();
        let headers = response
            .headers()
            .iter()
            .map(|(name, value)| (name.as_str().to_owned(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
            .collect();
        let (mut body_tx, body_rx) = mpsc::channel(CHANNEL_DEPTH);
        if head_tx.send(Ok(Head { status, headers, body: body_rx })).is_err() {
            return; // the `send` future was dropped
        }
        let mut reader = response.into_body().into_reader();
        let mut buf = vec![0; CHUNK_SIZE];
        loop {
            let item = match reader.read(&mut buf) {
                Ok(0) => return,
                Ok(n) => Ok(buf[..n].to_vec()),
                Err(e) => {
                    let error = ureq::Error::from(e);
                    Err(self.error(HttpErrorKind::Body, &format!("reading the response from {origin} failed"), &error))
                }
            };
            let failed = item.is_err();
            if futures::executor::block_on(body_tx.send(item)).is_err() || failed {
                return;
            }
        }
    }

    /// `error` as an `HttpError` of `kind`; a timeout says which limit ran out.
    fn error(&self, kind: HttpErrorKind, context: &str, error: &ureq::Error) -> HttpError {
        let (kind, detail) = match error {
            ureq::Error::Timeout(ureq::Timeout::Connect) => (
                HttpErrorKind::Timeout,
                format!("no connection within {:?} (NativeHttpConfig::connect_timeout)", self.config.connect_timeout),
            ),
            ureq::Error::Timeout(_) => {
                (HttpErrorKind::Timeout, format!("no data for {:?} (NativeHttpConfig::read_timeout)", self.config.read_timeout))
            }
            ureq::Error::Io(e) if e.kind() == io::ErrorKind::TimedOut => (HttpErrorKind::Timeout, describe(error)),
            _ => (kind, describe(error)),
        };
        HttpError::new(kind, format!("{context}: {detail}"))
    }
}

fn call(agent: &ureq::Agent, request: HttpRequest) -> Result<ureq::http::Response<ureq::Body>, ureq::Error> {
    let method = match request.method {
        Method::Get => "GET",
        Method::Post => "POST",
    };
    let mut builder = ureq::http::Request::builder().method(method).uri(&request.url);
    for (name, value) in &request.headers {
        builder = builder.header(name, value);
    }
    match request.method {
        Method::Get => agent.run(builder.body(())?),
        Method::Post => agent.run(builder.body(request.body.to_vec())?),
    }
}

/// Whether `error` is what sending on a connection the peer already closed looks like.
fn stale_connection(error: &ureq::Error) -> bool {
    use io::ErrorKind::{BrokenPipe, ConnectionAborted, ConnectionReset, UnexpectedEof};
    matches!(error, ureq::Error::Io(e) if matches!(e.kind(), UnexpectedEof | ConnectionReset | ConnectionAborted | BrokenPipe))
}

/// ureq's message, except where it would repeat the URL: a query string may hold an API key.
fn describe(error: &ureq::Error) -> String {
    match error {
        ureq::Error::BadUri(_) => "the URL is not valid".into(),
        ureq::Error::RequireHttpsOnly(_) => "the URL is not https".into(),
        other => other.to_string(),
    }
}

/// `scheme://host:port` of a URL: enough to say where a request went, never its path, query or
/// credentials.
fn origin(url: &str) -> String {
    let url = crate::url::parts(url);
    if url.scheme.is_empty() {
        url.host.to_owned()
    } else {
        format!("{}://{}", url.scheme, url.host)
    }
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
