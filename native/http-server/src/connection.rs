//! One connection, from its accept to its close. hyper reads the request and writes the answer;
//! around it, this module keeps the server's bounds:
//!
//! - *Connections.* At most [`Limits::connections`] are served at once (a connection counts from
//!   its accept until it is answered); the next is answered `503` with `Retry-After` at once,
//!   without reading from it, and closed: a flood of clients costs file descriptors for a moment,
//!   and idle connections cost no thread at all.
//! - *Deadlines that count from the start, not from the last byte.* The whole head must arrive
//!   within [`Limits::head_within`] of the accept, the body within [`Limits::body_within`] after
//!   it, or the client is answered `408` and closed, however it paces its bytes. hyper's own head
//!   timeout closes without an answer, so the head's deadline is kept here: when it passes with
//!   the head still unread, the socket is taken back from hyper and the `408` written on it.
//! - *Writes that stall.* An answer whose client stopped reading waits [`WRITE_STALL`] at most.
//! - *A gentle close.* Closing a socket with unread input resets the connection, and the client
//!   could lose its answer with it; so once a refused request (whose body may be unread) is
//!   answered, the connection is ended and what is left read and dropped, for a short while.

use std::future::{poll_fn, Future};
use std::io::{self, Read, Write};
use std::net::Shutdown;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use hyper::body::{Body as _, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::Response;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, Semaphore};
use tokio::time::{sleep, timeout, Sleep};

use super::body::{whole, Body, Responder};
use super::{Answer, BadRequest, Limits, Request, Service};

/// A request head larger than this is a broken or hostile client, not a real request (431).
const MAX_HEAD: usize = 64 * 1024;

/// How long a write of the answer may wait on a client that stopped reading.
const WRITE_STALL: Duration = Duration::from_secs(30);

/// What is read and dropped after the answer, at most, and for how long: enough for any body a
/// local client sends before reading the answer, little enough that a flood ends soon.
const DISCARD_LIMIT: usize = 16 * 1024 * 1024;
const DISCARD_WITHIN: Duration = Duration::from_secs(2);

/// A pause after a failed accept (out of file descriptors, say), so that the server lets
/// connections close instead of spinning on the error.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(10);

/// What a turned-away client is told.
const BUSY: &str = "the server is busy: it holds as many connections as it keeps; retry in a second";

/// Accepts connections for as long as it is polled, each served by a task of its own.
pub(super) async fn accept<S: Service>(listener: TcpListener, service: Arc<S>, limits: Limits) {
    let places = Arc::new(Semaphore::new(limits.connections.max(1)));
    loop {
        let socket = match listener.accept().await {
            Ok((socket, _)) => socket,
            Err(_) => {
                sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        match places.clone().try_acquire_owned() {
            Ok(place) => {
                let service = service.clone();
                tokio::spawn(async move {
                    let refused = serve(socket, service, limits).await;
                    // Answered: the place is free before the client can see the connection end.
                    drop(place);
                    if let Some(socket) = refused {
                        close_gently(socket).await;
                    }
                });
            }
            Err(_) => turn_away(socket, &*service),
        }
    }
}

/// Answers 503 on a connection beyond the bound. Nothing waits on the client: the socket is
/// non-blocking, and a client that cannot take the short answer at once loses it.
fn turn_away(socket: TcpStream, service: &impl Service) {
    let answer = service.refuse(&BadRequest::new(503, BUSY)).header("retry-after", "1");
    let Ok(mut socket) = socket.into_std() else { return };
    let _ = socket.write_all(&raw(&answer));
    let _ = socket.shutdown(Shutdown::Write);
    // What the client sent already is read and dropped: see the module's gentle close.
    let _ = io::copy(&mut (&socket).take(64 * 1024), &mut io::sink());
}

type Answered = Pin<Box<dyn Future<Output = io::Result<Response<Body>>> + Send>>;

/// How far a connection's request got, as its handler tells the connection.
#[derive(Default)]
struct Progress {
    /// hyper read the head and handed the request over: the head came in time.
    head_in: AtomicBool,
    /// The request was refused, its body perhaps unread: the close must be gentle.
    refused: AtomicBool,
}

/// Serves the one request of `socket`, under the head's deadline; returns the socket of a refused
/// request, for [`close_gently`], and closes any other.
async fn serve<S: Service>(socket: TcpStream, service: Arc<S>, limits: Limits) -> Option<TcpStream> {
    let progress = Arc::new(Progress::default());
    let handler = {
        let (service, progress) = (service.clone(), progress.clone());
        service_fn(move |request| -> Answered {
            progress.head_in.store(true, Ordering::SeqCst);
            Box::pin(respond(request, service.clone(), limits, progress.clone()))
        })
    };
    let mut connection = http1::Builder::new()
        .keep_alive(false)
        // A client may end its side once it has sent the request and still read the answer.
        .half_close(true)
        .max_header_size(MAX_HEAD)
        .serve_connection(TokioIo::new(Stalls { socket, stalled: None }), handler);
    let served = match timeout(limits.head_within, poll_fn(|cx| connection.poll_without_shutdown(cx))).await {
        Ok(served) => served,
        Err(_) if progress.head_in.load(Ordering::SeqCst) => poll_fn(|cx| connection.poll_without_shutdown(cx)).await,
        Err(_) => {
            let late = format!("the request head did not arrive within {:?}", limits.head_within);
            let socket = connection.into_parts().io.into_inner().socket;
            let _ = timeout(WRITE_STALL, write_all(&socket, &raw(&service.refuse(&BadRequest::new(408, late))))).await;
            return Some(socket);
        }
    };
    // A request answered had its body read whole: nothing is left to read, and the socket closes
    // as it is dropped. So does a failure: the client went away, or the answer was never given.
    let refused = served.is_ok() && progress.refused.load(Ordering::SeqCst);
    refused.then(|| connection.into_parts().io.into_inner().socket)
}

/// The request read (its body once the gate let its head through), then answered on a worker.
async fn respond<S: Service>(
    request: hyper::Request<Incoming>,
    service: Arc<S>,
    limits: Limits,
    progress: Arc<Progress>,
) -> io::Result<Response<Body>> {
    let (head, body) = request.into_parts();
    let headers = head.headers.iter();
    let mut request = Request {
        method: head.method.to_string(),
        target: head.uri.path_and_query().map_or_else(|| head.uri.to_string(), ToString::to_string),
        headers: headers
            .map(|(name, value)| (name.to_string(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
            .collect(),
        body: Vec::new(),
    };
    let read = match service.gate(&request) {
        Some(refused) => Err(refused),
        None => read_body(body, &limits).await,
    };
    match read {
        Ok(body) => request.body = body,
        Err(refused) => {
            progress.refused.store(true, Ordering::SeqCst);
            return Ok(whole(service.refuse(&refused)));
        }
    }
    let (responder, answered) = oneshot::channel();
    tokio::task::spawn_blocking(move || service.answer(request, Responder(responder)));
    answered.await.map_err(|_| io::Error::other("the request was not answered"))
}

/// The whole body, within the body's deadline and its cap.
async fn read_body(mut body: Incoming, limits: &Limits) -> Result<Vec<u8>, BadRequest> {
    let max = limits.max_body;
    let over = |length: u64| BadRequest::new(413, format!("a {length}-byte body is over the limit of {max} bytes"));
    if let Some(length) = body.size_hint().exact().filter(|length| *length > max as u64) {
        return Err(over(length));
    }
    let read = async {
        let mut bytes = Vec::new();
        while let Some(frame) = poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
            let frame = frame.map_err(|e| BadRequest::new(400, format!("reading the request body failed: {e}")))?;
            if let Ok(data) = frame.into_data() {
                if bytes.len() + data.len() > max {
                    return Err(over((bytes.len() + data.len()) as u64));
                }
                bytes.extend_from_slice(&data);
            }
        }
        Ok(bytes)
    };
    let late = || BadRequest::new(408, format!("the request body did not arrive within {:?}", limits.body_within));
    timeout(limits.body_within, read).await.unwrap_or_else(|_| Err(late()))
}

/// An answer as bytes, for a socket hyper does not hold: the 503 of a connection turned away and
/// the 408 of a head that came too slowly.
fn raw(answer: &Answer) -> Vec<u8> {
    let reason = hyper::StatusCode::from_u16(answer.status).ok().and_then(|status| status.canonical_reason());
    let mut head = format!("HTTP/1.1 {} {}\r\n", answer.status, reason.unwrap_or(""));
    for (name, value) in &answer.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("content-length: {}\r\nconnection: close\r\n\r\n", answer.body.len()));
    [head.as_bytes(), &answer.body].concat()
}

async fn write_all(socket: &TcpStream, mut bytes: &[u8]) -> io::Result<()> {
    while !bytes.is_empty() {
        socket.writable().await?;
        match socket.try_write(bytes) {
            Ok(written) => bytes = &bytes[written..],
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Ends the connection after its answer, then reads and drops what the client still sends,
/// until it closes or for [`DISCARD_WITHIN`] at most. The connection no longer counts against
/// the bound meanwhile: it costs its descriptor for a moment, and once the client sees its
/// answer end, the server has room for its next connection.
async fn close_gently(mut socket: TcpStream) {
    let _ = poll_fn(|cx| Pin::new(&mut socket).poll_shutdown(cx)).await;
    let drain = async {
        let (mut buf, mut left) = ([0; 8192], DISCARD_LIMIT);
        while left > 0 && socket.readable().await.is_ok() {
            match socket.try_read(&mut buf) {
                Ok(0) => return,
                Ok(read) => left = left.saturating_sub(read),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(_) => return,
            }
        }
    };
    let _ = timeout(DISCARD_WITHIN, drain).await;
}

/// The socket as hyper uses it, with a deadline on writes that make no progress: a client that
/// stopped reading costs a connection for [`WRITE_STALL`], not for ever.
struct Stalls {
    socket: TcpStream,
    /// Armed when a write has to wait, disarmed when one goes through.
    stalled: Option<Pin<Box<Sleep>>>,
}

impl Stalls {
    fn watch<T>(&mut self, cx: &mut Context<'_>, polled: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if polled.is_ready() {
            self.stalled = None;
            return polled;
        }
        let stalled = self.stalled.get_or_insert_with(|| Box::pin(sleep(WRITE_STALL)));
        match stalled.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, "the client stopped reading"))),
            Poll::Pending => Poll::Pending,
        }
    }
}

impl AsyncRead for Stalls {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.socket).poll_read(cx, buf)
    }
}

impl AsyncWrite for Stalls {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.socket).poll_write(cx, buf);
        self.watch(cx, polled)
    }

    fn poll_write_vectored(mut self: Pin<&mut Self>, cx: &mut Context<'_>, bufs: &[io::IoSlice<'_>]) -> Poll<io::Result<usize>> {
        let polled = Pin::new(&mut self.socket).poll_write_vectored(cx, bufs);
        self.watch(cx, polled)
    }

    fn is_write_vectored(&self) -> bool {
        self.socket.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.socket).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.socket).poll_shutdown(cx)
    }
}
