//! How a worker thread hands its answer to the server's runtime: a [`Responder`] takes a whole
//! [`Answer`], or a head whose body a [`BodyWriter`] then writes piece by piece (server-sent
//! events) for as long as the client reads.

use std::io::{self, Write};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use hyper::body::{Bytes, Frame, SizeHint};
use hyper::Response;
use tokio::sync::{mpsc, oneshot};

use super::Answer;

/// Pieces of a streamed body waiting to be written: a writer that gets this far ahead of its
/// client waits for it.
const PIECES_AHEAD: usize = 16;

/// Where a request's answer goes. Dropping it unanswered closes the connection without an answer.
pub struct Responder(pub(super) oneshot::Sender<Response<Body>>);

impl Responder {
    /// Sends a whole answer.
    pub fn send(self, answer: Answer) {
        // The client went away: there is nobody left to tell.
        let _ = self.0.send(whole(answer));
    }

    /// Sends `head`'s status and headers at once, then `head.body` and what is written to the
    /// returned writer, as it is flushed, until the writer is dropped.
    pub fn stream(self, mut head: Answer) -> BodyWriter {
        let (pieces, waiting) = mpsc::channel(PIECES_AHEAD);
        let body = Body(Kind::Streamed { waiting, failed: None });
        let mut writer = BodyWriter { pending: std::mem::take(&mut head.body), pieces: Some(pieces) };
        let _ = self.0.send(response(head, body));
        let _ = writer.flush();
        writer
    }
}

/// A whole [`Answer`] as hyper takes it.
pub(super) fn whole(mut answer: Answer) -> Response<Body> {
    let body = Body(Kind::Whole(Some(Bytes::from(std::mem::take(&mut answer.body)))));
    response(answer, body)
}

/// An [`Answer`]'s status and headers with `body`, as hyper takes them (its own body was taken).
fn response(answer: Answer, body: Body) -> Response<Body> {
    let mut response = Response::new(body);
    *response.status_mut() = hyper::StatusCode::from_u16(answer.status).unwrap_or(hyper::StatusCode::INTERNAL_SERVER_ERROR);
    for (name, value) in answer.headers {
        if let Ok(value) = hyper::header::HeaderValue::try_from(value) {
            response.headers_mut().append(name, value);
        }
    }
    response
}

/// A streamed body as the worker writes it. What is written waits until a flush, and each flush
/// is one piece on the wire, so that an event goes out whole and at once.
pub struct BodyWriter {
    pending: Vec<u8>,
    /// `None` once the body was cut.
    pieces: Option<mpsc::Sender<io::Result<Bytes>>>,
}

impl BodyWriter {
    /// Ends the body without its proper end and closes the connection, as a server that dies
    /// mid-answer does; what was written before arrives first.
    pub fn cut(mut self) {
        let _ = self.flush();
        if let Some(pieces) = self.pieces.take() {
            let _ = pieces.blocking_send(Err(io::Error::new(io::ErrorKind::ConnectionAborted, "the body was cut")));
        }
    }

    fn gone() -> io::Error {
        io::Error::new(io::ErrorKind::BrokenPipe, "the client is gone")
    }
}

impl Write for BodyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.pieces.as_ref().is_none_or(mpsc::Sender::is_closed) {
            return Err(Self::gone());
        }
        self.pending.extend_from_slice(buf);
        Ok(buf.len())
    }

    /// Hands what was written to the server, waiting while the client is `PIECES_AHEAD`
    /// behind; fails once the client is gone.
    fn flush(&mut self) -> io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let piece = Bytes::from(std::mem::take(&mut self.pending));
        let pieces = self.pieces.as_ref().ok_or_else(Self::gone)?;
        pieces.blocking_send(Ok(piece)).map_err(|_| Self::gone())
    }
}

impl Drop for BodyWriter {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

/// A response body: whole, or streamed from a [`BodyWriter`].
pub struct Body(Kind);

enum Kind {
    Whole(Option<Bytes>),
    Streamed {
        waiting: mpsc::Receiver<io::Result<Bytes>>,
        /// A cut waiting for its turn: see [`Body::poll_frame`].
        failed: Option<io::Error>,
    },
}

impl hyper::body::Body for Body {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<io::Result<Frame<Bytes>>>> {
        match &mut self.0 {
            Kind::Whole(bytes) => Poll::Ready(bytes.take().map(|bytes| Ok(Frame::data(bytes)))),
            Kind::Streamed { waiting, failed } => {
                if let Some(error) = failed.take() {
                    return Poll::Ready(Some(Err(error)));
                }
                match ready!(waiting.poll_recv(cx)) {
                    Some(Ok(piece)) => Poll::Ready(Some(Ok(Frame::data(piece)))),
                    // hyper drops what it has not written yet when a body fails, and it writes
                    // while the body is pending: the failure waits one turn, so that the pieces
                    // before it reach the client.
                    Some(Err(error)) => {
                        *failed = Some(error);
                        cx.waker().wake_by_ref();
                        Poll::Pending
                    }
                    None => Poll::Ready(None),
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        matches!(&self.0, Kind::Whole(None)) || matches!(&self.0, Kind::Whole(Some(bytes)) if bytes.is_empty())
    }

    fn size_hint(&self) -> SizeHint {
        match &self.0 {
            Kind::Whole(bytes) => SizeHint::with_exact(bytes.as_ref().map_or(0, |bytes| bytes.len() as u64)),
            Kind::Streamed { .. } => SizeHint::default(),
        }
    }
}
