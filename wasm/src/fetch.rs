//! The `HttpClient` seam over `fetch`: the request goes out with an `AbortController` (dropping
//! the future, as an abort does, cancels it) and the body comes back chunk by chunk from its
//! `ReadableStream`, so text streams to the page as the model writes it. A server silent for
//! longer than the read timeout (no answer, or a body that stops) is a timeout error, as natively:
//! `fetch` itself waits forever.

use std::cell::RefCell;

use async_trait::async_trait;
use js_sys::{Function, Uint8Array};
use openagent_core::llm::http::{ByteStream, HttpClient, HttpError, HttpErrorKind, HttpRequest, HttpResponse, Method};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

use crate::blobs::BodyBlobs;
use crate::runtime::BrowserRuntime;
use openagent_core::llm::runtime::{timeout, Silence};
use web_sys::{AbortController, Headers, ReadableStreamDefaultReader, ReadableStreamReadResult, RequestInit, Response};

/// The longest silence a response may keep (its head, then between body chunks), as the native
/// host's `NativeHttpConfig::read_timeout`.
pub const READ_TIMEOUT_MS: u64 = 60_000;

/// Sends requests with the global `fetch`, or with the function the host gave (a proxy, a test double).
pub struct FetchClient {
    fetch: Option<Function>,
    read_timeout_ms: u64,
    /// Bodies go out as `Blob`s, the pieces kept between requests made once.
    blobs: RefCell<BodyBlobs>,
}

impl FetchClient {
    pub fn new(fetch: Option<Function>, read_timeout_ms: u64) -> Self {
        Self { fetch, read_timeout_ms, blobs: RefCell::default() }
    }

    fn fetch_function(&self) -> Result<Function, HttpError> {
        if let Some(fetch) = &self.fetch {
            return Ok(fetch.clone());
        }
        js_sys::Reflect::get(&js_sys::global(), &"fetch".into()).ok().and_then(|f| f.dyn_into::<Function>().ok()).ok_or_else(
            || {
                HttpError::new(
                    HttpErrorKind::Connect,
                    "this JavaScript environment has no fetch(); pass one as the `fetch` option",
                )
            },
        )
    }
}

/// Aborts the request when dropped before its body was read to the end: the session dropped the
/// call (abort, interrupt).
struct AbortOnDrop(Option<AbortController>);

impl AbortOnDrop {
    /// The body was read to its end: nothing is left to cancel, and an abort would still make
    /// its `AbortError` (a `DOMException`, a few percent of a tool round).
    fn disarm(mut self) {
        self.0 = None;
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        if let Some(controller) = &self.0 {
            controller.abort();
        }
    }
}

#[async_trait(?Send)]
impl HttpClient for FetchClient {
    async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
        let fetch = self.fetch_function()?;
        let abort = AbortController::new().map_err(|e| connect_error(&request.url, &e))?;
        let signal = abort.signal();
        let controller = AbortOnDrop(Some(abort));
        let headers = Headers::new().map_err(|e| connect_error(&request.url, &e))?;
        for (name, value) in &request.headers {
            headers
                .append(name, value)
                .map_err(|_| HttpError::new(HttpErrorKind::Connect, format!("the header {name} has a value fetch refuses")))?;
        }
        let init = RequestInit::new();
        init.set_method(match request.method {
            Method::Get => "GET",
            Method::Post => "POST",
        });
        init.set_headers(&headers);
        init.set_signal(Some(&signal));
        if !request.body.is_empty() {
            let body = self.blobs.borrow_mut().blob(&request.body).map_err(|e| connect_error(&request.url, &e))?;
            init.set_body(&body);
        }
        let promise =
            fetch.call2(&JsValue::UNDEFINED, &request.url.as_str().into(), &init).map_err(|e| connect_error(&request.url, &e))?;
        // One timer for the head and every read of the body.
        let mut silence = Silence::new(&BrowserRuntime, self.read_timeout_ms);
        let answer = silence
            .wait(JsFuture::from(js_sys::Promise::resolve(&promise)))
            .await
            .ok_or_else(|| silent(&request.url, self.read_timeout_ms))?;
        let answer = match answer {
            Ok(answer) => answer,
            Err(e) if !is_abort(&e) && answers_without_cors(&fetch, &request.url).await => {
                return Err(blocked_by_cors(&request.url, &e))
            }
            Err(e) => return Err(connect_error(&request.url, &e)),
        };
        let response: Response = answer
            .dyn_into()
            .map_err(|_| HttpError::new(HttpErrorKind::Connect, "fetch() resolved to something that is not a Response"))?;
        let headers = header_pairs(&response.headers());
        let body: ByteStream = match response.body() {
            None => Box::pin(futures::stream::empty()),
            Some(raw) => body_chunks(raw.get_reader().unchecked_into(), controller, request.url, silence),
        };
        Ok(HttpResponse { status: response.status(), headers, body })
    }
}

/// The body's chunks, read with a `ReadableStreamDefaultReader` until it is done or fails. The
/// controller lives as long as the reader: dropping the stream early (an abort) aborts the fetch,
/// which also stops the download. (A hand-written loop rather than the `wasm-streams` crate, whose
/// exported stream adapters cost the bundle more than this whole client.)
fn body_chunks(
    reader: ReadableStreamDefaultReader,
    controller: AbortOnDrop,
    url: String,
    silence: Silence<'static>,
) -> ByteStream {
    Box::pin(futures::stream::unfold(Some((reader, controller, url, silence)), |state| async move {
        let (reader, controller, url, mut silence) = state?;
        let Some(read) = silence.wait(JsFuture::from(reader.read())).await else {
            // The controller goes with the state: the fetch is aborted.
            return Some((Err(silent(&url, silence.ms())), None));
        };
        match read {
            Ok(result) => {
                let result: ReadableStreamReadResult = result.unchecked_into();
                if result.get_done().unwrap_or_default() {
                    controller.disarm();
                    return None;
                }
                Some((Ok(Uint8Array::new(&result.get_value()).to_vec()), Some((reader, controller, url, silence))))
            }
            Err(e) => {
                let message = format!("the response body broke off: {}", describe(&e));
                Some((Err(HttpError::new(HttpErrorKind::Body, message)), None))
            }
        }
    }))
}

/// The error of a server silent for `ms`.
fn silent(url: &str, ms: u64) -> HttpError {
    HttpError::new(HttpErrorKind::Timeout, format!("{} sent nothing for {ms} ms (the `readTimeoutMs` option)", shown(url)))
}

fn header_pairs(headers: &Headers) -> Vec<(String, String)> {
    let Ok(Some(entries)) = js_sys::try_iter(headers) else { return Vec::new() };
    entries
        .flatten()
        .filter_map(|entry| {
            let pair = js_sys::Array::from(&entry);
            Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
        })
        .collect()
}

/// How long the CORS probe may take: a server that answers at all answers a GET at once.
const PROBE_MS: u64 = 5_000;

/// Whether the server behind `url` answers a `no-cors` request. Browsers fail a `fetch()` with
/// the same opaque `TypeError` whether the server is down, its name does not resolve or its
/// answer lacked the CORS headers; a `no-cors` request succeeds (with an opaque answer) whenever
/// the server answers at all, which tells the last case apart.
async fn answers_without_cors(fetch: &Function, url: &str) -> bool {
    // Only pages and workers (which have a `location`) enforce CORS; elsewhere (Node) a failed
    // fetch has other causes, which a probe that succeeds would misname.
    if !js_sys::Reflect::has(&js_sys::global(), &"location".into()).unwrap_or(false) {
        return false;
    }
    let init = RequestInit::new();
    // `mode` through Reflect: web-sys's RequestMode enum would cost the bundle its conversions.
    if js_sys::Reflect::set(&init, &"mode".into(), &"no-cors".into()).is_err() {
        return false;
    }
    let Ok(promise) = fetch.call2(&JsValue::UNDEFINED, &url.into(), &init) else { return false };
    let probe = JsFuture::from(js_sys::Promise::resolve(&promise));
    matches!(timeout(&BrowserRuntime, PROBE_MS, probe).await, Some(Ok(_)))
}

fn is_abort(error: &JsValue) -> bool {
    js_sys::Reflect::get(error, &"name".into()).ok().and_then(|n| n.as_string()).as_deref() == Some("AbortError")
}

/// The query may carry a key on some servers; the origin and path are enough to act on.
fn shown(url: &str) -> &str {
    url.split('?').next().unwrap_or(url)
}

/// A server that answered without the CORS headers this page needs.
fn blocked_by_cors(url: &str, error: &JsValue) -> HttpError {
    HttpError::new(
        HttpErrorKind::Connect,
        format!(
            "{} answered, but without a CORS header allowing this page's origin (Access-Control-Allow-Origin), so the \
             browser withheld the answer ({}). Let the server allow it: llama.cpp's server allows every origin; Ollama \
             needs OLLAMA_ORIGINS=*; vLLM --allowed-origins '[\"*\"]'; or pass a `fetch` that goes through a proxy",
            shown(url),
            describe(error)
        ),
    )
}

/// A failed `fetch()`: an abort, or a server that did not answer at all.
fn connect_error(url: &str, error: &JsValue) -> HttpError {
    if is_abort(error) {
        return HttpError::new(HttpErrorKind::Aborted, "the request was cancelled");
    }
    HttpError::new(
        HttpErrorKind::Connect,
        format!(
            "could not reach {} ({}). Check that the server is running and the base URL is right",
            shown(url),
            describe(error)
        ),
    )
}

/// The message of a thrown JS value: an `Error`'s message, a string, else the value as JSON.
/// (Not `{:?}`: `JsValue`'s Debug brings wasm-bindgen's 2 KB `debugString` into the glue.)
pub fn describe(error: &JsValue) -> String {
    if let Some(error) = error.dyn_ref::<js_sys::Error>() {
        return String::from(error.message());
    }
    let json = || js_sys::JSON::stringify(error).ok().and_then(|text| text.as_string());
    error.as_string().or_else(json).unwrap_or_else(|| String::from("a value that is not an Error"))
}
