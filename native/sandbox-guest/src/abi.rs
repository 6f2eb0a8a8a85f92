//! The guest's side of the host imports, module `openagent` (the host's side is
//! `openagent_sandbox_host`). Pointers and lengths are offsets into the guest's memory; the
//! host bounds-checks every one.
//!
//! | import | meaning |
//! |---|---|
//! | `model_request(ptr, len) -> handle` | starts the request whose [`ModelRequest`] JSON is at `ptr`; a handle ≥ 0 |
//! | `model_read(handle, ptr, len) -> n` | copies up to `len` bytes of the response stream: first one [`ModelHead`] JSON line, then the body. Blocks until bytes arrive; 0 at the end; negative on failure ([`ModelErrorKind::code`]) |
//! | `model_error(handle, ptr, len) -> n` | copies the message of the handle's failure |
//! | `model_close(handle)` | forgets the request, cancelling it if it is still running |
//! | `event(ptr, len)` | one `SessionEvent` as JSON |
//! | `finish(ptr, len)` | the run's [`GuestEnd`] as JSON, once, last |
//!
//! A failure to connect is reported by the first `model_read`, not by `model_request`, so that a
//! refused origin and an unreachable server look the same to the codec: a transport error.

#[cfg(target_os = "wasi")]
pub use imports::{emit_event, finish, ImportHttpClient};

#[cfg(not(target_os = "wasi"))]
#[allow(unused_imports)] // named by the table above
use crate::{GuestEnd, ModelErrorKind, ModelHead, ModelRequest};
#[cfg(target_os = "wasi")]
use crate::{ModelErrorKind, ModelHead, ModelRequest};

pub const MODULE: &str = "openagent";
pub const MODEL_REQUEST: &str = "model_request";
pub const MODEL_READ: &str = "model_read";
pub const MODEL_ERROR: &str = "model_error";
pub const MODEL_CLOSE: &str = "model_close";
pub const EVENT: &str = "event";
pub const FINISH: &str = "finish";

#[cfg(target_os = "wasi")]
mod imports {
    use async_trait::async_trait;
    use futures::stream;
    use openagent_core::llm::http::{HttpClient, HttpError, HttpErrorKind, HttpRequest, HttpResponse, Method};
    use openagent_core::SessionEvent;

    use super::{ModelErrorKind, ModelHead, ModelRequest};
    use crate::GuestEnd;

    #[link(wasm_import_module = "openagent")]
    extern "C" {
        fn model_request(ptr: *const u8, len: usize) -> i32;
        fn model_read(handle: i32, ptr: *mut u8, len: usize) -> i32;
        fn model_error(handle: i32, ptr: *mut u8, len: usize) -> i32;
        fn model_close(handle: i32);
        fn event(ptr: *const u8, len: usize);
        #[link_name = "finish"]
        fn finish_import(ptr: *const u8, len: usize);
    }

    /// Hands one event to the host.
    pub fn emit_event(session_event: &SessionEvent) {
        let json = serde_json::to_vec(session_event).expect("events serialise");
        // SAFETY: the host only reads `len` bytes at `ptr`, during the call.
        unsafe { event(json.as_ptr(), json.len()) }
    }

    /// Hands the run's end to the host.
    pub fn finish(end: &GuestEnd) {
        let json = serde_json::to_vec(end).expect("the end serialises");
        // SAFETY: as in `emit_event`.
        unsafe { finish_import(json.as_ptr(), json.len()) }
    }

    /// The core's `HttpClient` seam over the host's model import.
    pub struct ImportHttpClient;

    #[async_trait(?Send)]
    impl HttpClient for ImportHttpClient {
        async fn send(&self, request: HttpRequest) -> Result<HttpResponse, HttpError> {
            let body = String::from_utf8(request.body.to_vec())
                .map_err(|_| HttpError::new(HttpErrorKind::Connect, "the sandbox forwards only text (JSON) request bodies"))?;
            let method = match request.method {
                Method::Get => "GET",
                Method::Post => "POST",
            };
            let request = ModelRequest { method: method.into(), url: request.url, headers: request.headers, body };
            let json = serde_json::to_vec(&request).expect("requests serialise");
            // SAFETY: the host only reads `len` bytes at `ptr`, during the call.
            let handle = unsafe { model_request(json.as_ptr(), json.len()) };
            let mut reader = Reader { handle, pending: Vec::new(), done: false };
            if handle < 0 {
                return Err(HttpError::new(HttpErrorKind::Connect, "the sandbox host refused the model request"));
            }
            let head = reader.head()?;
            let body = stream::unfold(reader, |mut reader| async move { reader.next_chunk().map(|chunk| (chunk, reader)) });
            Ok(HttpResponse { status: head.status, headers: head.headers, body: Box::pin(body) })
        }
    }

    /// One response stream. Reads block the guest until the host has bytes: the guest is
    /// single-threaded, and the model's answer is what it is waiting for.
    struct Reader {
        handle: i32,
        /// Bytes read past the head line: the start of the body.
        pending: Vec<u8>,
        done: bool,
    }

    const CHUNK: usize = 16 * 1024;

    impl Reader {
        fn read(&mut self) -> Result<Option<Vec<u8>>, HttpError> {
            let mut buf = vec![0u8; CHUNK];
            // SAFETY: the host writes at most `len` bytes at `ptr`, during the call.
            let n = unsafe { model_read(self.handle, buf.as_mut_ptr(), buf.len()) };
            match n {
                0 => Ok(None),
                n if n > 0 => {
                    buf.truncate(n as usize);
                    Ok(Some(buf))
                }
                code => Err(self.error(code)),
            }
        }

        fn error(&self, code: i32) -> HttpError {
            let mut buf = vec![0u8; 4096];
            // SAFETY: as in `read`.
            let n = unsafe { model_error(self.handle, buf.as_mut_ptr(), buf.len()) };
            buf.truncate(n.max(0) as usize);
            let message = String::from_utf8_lossy(&buf).into_owned();
            let kind = match ModelErrorKind::from_code(code) {
                ModelErrorKind::Timeout => HttpErrorKind::Timeout,
                ModelErrorKind::Body => HttpErrorKind::Body,
                ModelErrorKind::Connect | ModelErrorKind::BadHandle => HttpErrorKind::Connect,
            };
            HttpError::new(kind, message)
        }

        fn head(&mut self) -> Result<ModelHead, HttpError> {
            loop {
                if let Some(end) = self.pending.iter().position(|&b| b == b'\n') {
                    let head = serde_json::from_slice(&self.pending[..end]).map_err(|e| {
                        HttpError::new(HttpErrorKind::Connect, format!("the sandbox host sent a bad response head: {e}"))
                    })?;
                    self.pending.drain(..=end);
                    return Ok(head);
                }
                match self.read()? {
                    Some(bytes) => self.pending.extend(bytes),
                    None => return Err(HttpError::new(HttpErrorKind::Connect, "the response ended before its head")),
                }
            }
        }

        fn next_chunk(&mut self) -> Option<Result<Vec<u8>, HttpError>> {
            if self.done {
                return None;
            }
            if !self.pending.is_empty() {
                return Some(Ok(std::mem::take(&mut self.pending)));
            }
            let item = self.read().transpose();
            self.done = !matches!(item, Some(Ok(_)));
            item
        }
    }

    impl Drop for Reader {
        fn drop(&mut self) {
            if self.handle >= 0 {
                // SAFETY: no pointers; an unknown handle is ignored by the host.
                unsafe { model_close(self.handle) }
            }
        }
    }
}
