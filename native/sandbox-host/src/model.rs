//! The host's side of the model import: the guest's HTTP requests, forwarded with
//! [`NativeHttpClient`] only to the provider's base URL, with the API key added here.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use futures::StreamExt;
use openagent_core::llm::http::{is_secret_header, HttpClient, HttpError, HttpErrorKind, HttpRequest, Method};
use openagent_core::setup::ProviderSettings;
use openagent_sandbox_guest::{abi, ModelErrorKind, ModelHead, ModelRequest};
use wasmtime::{Caller, Linker};

use crate::{guest_bytes, write_guest, Cap, Host};
use openagent_host::http::NativeHttpClient;

/// Response chunks in flight per request, as in `NativeHttpClient`.
const CHANNEL_DEPTH: usize = 8;
/// How long a wait for the model runs before it looks at the stop flag again.
const STOP_CHECK: Duration = Duration::from_millis(50);

/// The model requests of one guest.
pub struct ModelGate {
    base_url: String,
    auth: Option<(&'static str, String)>,
    http: NativeHttpClient,
    exchanges: HashMap<i32, Exchange>,
    next: i32,
}

/// Why a guest's model request is not sent on: the guest reads it as a connection that failed.
#[derive(Debug, thiserror::Error)]
enum Refusal {
    #[error("a malformed model request: {0}")]
    Malformed(serde_json::Error),
    /// Not under the base URL, where the real key may go.
    #[error("the sandbox forwards model requests only to {base_url}; refused {url}")]
    Elsewhere { base_url: String, url: String },
    #[error("the sandbox forwards only GET and POST model requests; refused {0}")]
    Method(String),
}

/// One request: the response stream (the head line, then the body) as the worker receives it.
struct Exchange {
    chunks: mpsc::Receiver<Result<Vec<u8>, HttpError>>,
    /// Received but not yet read by the guest.
    pending: Vec<u8>,
    error: Option<HttpError>,
}

impl ModelGate {
    pub fn new(settings: &ProviderSettings) -> Self {
        Self {
            base_url: settings.base_url.clone(),
            auth: settings.auth_header(),
            http: NativeHttpClient::new(),
            exchanges: HashMap::new(),
            next: 0,
        }
    }

    /// Whether `url` lies under the base URL: the same origin and path prefix, nothing that
    /// could change the authority (`@`, `\`) and no dot segments to climb out of the prefix.
    pub fn allows(&self, url: &str) -> bool {
        let Some(rest) = url.strip_prefix(&self.base_url) else { return false };
        let path = rest.split(['?', '#']).next().unwrap_or_default();
        (rest.is_empty() || rest.starts_with(['/', '?']))
            && !path.split('/').any(|segment| segment == ".." || segment == ".")
            && !url.contains(['\\', '@'])
    }

    /// Starts the guest's request; a refused one fails at its first read, as an unreachable
    /// server would.
    fn start(&mut self, request: Result<ModelRequest, Refusal>) -> i32 {
        let (tx, rx) = mpsc::sync_channel(CHANNEL_DEPTH);
        match request.and_then(|request| self.forwardable(request)) {
            Ok(request) => {
                let http = self.http.clone();
                thread::spawn(move || futures::executor::block_on(exchange(&http, request, tx)));
            }
            Err(message) => {
                let _ = tx.send(Err(HttpError::new(HttpErrorKind::Connect, message.to_string())));
            }
        }
        let handle = self.next;
        self.next = self.next.wrapping_add(1) & i32::MAX;
        self.exchanges.insert(handle, Exchange { chunks: rx, pending: Vec::new(), error: None });
        handle
    }

    /// The request as it goes out: refused unless under the base URL; the guest's credential
    /// headers dropped and the real key added.
    fn forwardable(&self, request: ModelRequest) -> Result<HttpRequest, Refusal> {
        if !self.allows(&request.url) {
            let url = request.url.split(['?', '#']).next().unwrap_or_default().to_owned();
            return Err(Refusal::Elsewhere { base_url: self.base_url.clone(), url });
        }
        let method = match request.method.as_str() {
            "GET" => Method::Get,
            "POST" => Method::Post,
            other => return Err(Refusal::Method(other.to_owned())),
        };
        let mut headers: Vec<(String, String)> =
            request.headers.into_iter().filter(|(name, _)| !is_secret_header(name)).collect();
        if let Some((name, value)) = &self.auth {
            headers.push(((*name).to_owned(), value.clone()));
        }
        Ok(HttpRequest { method, url: request.url, headers, body: request.body.into_bytes().into() })
    }

    /// Up to `max` bytes of the response, waiting until `deadline` for them: `Ok(None)` at the
    /// end, `Err` with the error's kind on failure.
    /// Waits in short slices so that a stop request is seen while the model is slow.
    fn read(
        &mut self,
        handle: i32,
        max: usize,
        deadline: Instant,
        stop: &AtomicBool,
    ) -> Result<Result<Option<Vec<u8>>, ModelErrorKind>, Cap> {
        let Some(exchange) = self.exchanges.get_mut(&handle) else { return Ok(Err(ModelErrorKind::BadHandle)) };
        while exchange.pending.is_empty() && exchange.error.is_none() {
            if stop.load(Ordering::Relaxed) {
                return Err(Cap::Stop);
            }
            let wait = deadline.saturating_duration_since(Instant::now());
            if wait.is_zero() {
                return Err(Cap::Time);
            }
            match exchange.chunks.recv_timeout(wait.min(STOP_CHECK)) {
                Ok(Ok(bytes)) => exchange.pending = bytes,
                Ok(Err(error)) => exchange.error = Some(error),
                Err(mpsc::RecvTimeoutError::Disconnected) => return Ok(Ok(None)),
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
        }
        if let Some(error) = &exchange.error {
            return Ok(Err(match error.kind {
                HttpErrorKind::Timeout => ModelErrorKind::Timeout,
                HttpErrorKind::Body => ModelErrorKind::Body,
                HttpErrorKind::Connect | HttpErrorKind::Aborted => ModelErrorKind::Connect,
            }));
        }
        let n = exchange.pending.len().min(max);
        Ok(Ok(Some(exchange.pending.drain(..n).collect())))
    }

    fn error(&self, handle: i32) -> String {
        match self.exchanges.get(&handle) {
            Some(Exchange { error: Some(error), .. }) => error.message.clone(),
            Some(_) => String::new(),
            None => format!("no model request has the handle {handle}"),
        }
    }
}

/// The worker: sends the request and passes the head line and then the body on, until the body
/// ends or the guest stops reading (its receiver dropped).
async fn exchange(http: &NativeHttpClient, request: HttpRequest, tx: mpsc::SyncSender<Result<Vec<u8>, HttpError>>) {
    let response = match http.send(request).await {
        Ok(response) => response,
        Err(error) => {
            let _ = tx.send(Err(error));
            return;
        }
    };
    let head = ModelHead { status: response.status, headers: response.headers };
    let mut line = serde_json::to_vec(&head).expect("heads serialise");
    line.push(b'\n');
    if tx.send(Ok(line)).is_err() {
        return;
    }
    let mut body = response.body;
    while let Some(chunk) = body.next().await {
        let failed = chunk.is_err();
        if tx.send(chunk).is_err() || failed {
            return;
        }
    }
}

/// The `openagent.model_*` imports.
pub(super) fn add_to_linker(linker: &mut Linker<Host>) -> wasmtime::Result<()> {
    linker.func_wrap(abi::MODULE, abi::MODEL_REQUEST, |mut caller: Caller<'_, Host>, ptr: i32, len: i32| {
        let bytes = guest_bytes(&mut caller, ptr, len)?;
        let request = serde_json::from_slice(&bytes).map_err(Refusal::Malformed);
        Ok(caller.data_mut().model.start(request))
    })?;
    linker.func_wrap(abi::MODULE, abi::MODEL_READ, |mut caller: Caller<'_, Host>, handle: i32, ptr: i32, len: i32| {
        let (deadline, stop) = (caller.data().deadline, caller.data().stop.clone());
        let read = caller.data_mut().model.read(handle, len.max(0) as usize, deadline, &stop).map_err(wasmtime::Error::new)?;
        match read {
            Ok(Some(bytes)) => Ok(write_guest(&mut caller, ptr, len, &bytes)? as i32),
            Ok(None) => Ok(0),
            Err(kind) => Ok(kind.code()),
        }
    })?;
    linker.func_wrap(abi::MODULE, abi::MODEL_ERROR, |mut caller: Caller<'_, Host>, handle: i32, ptr: i32, len: i32| {
        let message = caller.data().model.error(handle);
        Ok(write_guest(&mut caller, ptr, len, message.as_bytes())? as i32)
    })?;
    linker.func_wrap(abi::MODULE, abi::MODEL_CLOSE, |mut caller: Caller<'_, Host>, handle: i32| {
        caller.data_mut().model.exchanges.remove(&handle);
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use openagent_core::setup::ProviderSettings;

    use super::ModelGate;

    #[test]
    fn forwards_only_under_the_base_url() {
        let vars = |name: &str| (name == "ANTHROPIC_API_KEY").then(|| "sk-ant-test".to_owned());
        let settings = ProviderSettings::resolve(Some("anthropic"), None, Some("http://127.0.0.1:9/api"), vars).unwrap();
        let gate = ModelGate::new(&settings);
        assert!(gate.allows("http://127.0.0.1:9/api/v1/messages"));
        assert!(gate.allows("http://127.0.0.1:9/api?x=1"));
        for url in [
            "http://127.0.0.1:10/api/v1/messages",
            "http://127.0.0.1:9/apix",
            "http://127.0.0.1:9/api/../admin",
            "http://127.0.0.1:9/api/./v1",
            "http://127.0.0.1:9/api@evil.example/",
            "http://127.0.0.1:9.evil.example/api",
            "https://evil.example/http://127.0.0.1:9/api",
            "http://127.0.0.1:9/api\\..\\x",
        ] {
            assert!(!gate.allows(url), "{url}");
        }
    }
}
