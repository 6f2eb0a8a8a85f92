//! [`BodyEvents`]: a streamed response body decoded into events as its chunks come.

use std::pin::Pin;
use std::task::{Context, Poll};

use futures::{Stream, StreamExt};

use super::codec::StreamDecoder;
use super::error::LlmError;
use super::http::{ByteStream, HttpError};
use super::stream::StreamEvent;

/// The events of `body`, through `decoder`. A body over `max` bytes, a broken one or a decoder
/// error ends the stream with an `Error` event after the events decoded before it.
///
/// A `Stream` of its own rather than `unfold` and `flat_map` over the body: those combinators'
/// generic state machines weighed more in the browser bundle than this loop.
pub(crate) struct BodyEvents {
    /// `None` once the body has ended or failed.
    body: Option<ByteStream>,
    decoder: Box<dyn StreamDecoder>,
    read: usize,
    max: usize,
    provider: String,
    too_large: LlmError,
    /// Decoded and not yet taken.
    ready: std::vec::IntoIter<StreamEvent>,
}

impl BodyEvents {
    /// `head`, the body's first bytes, already read off `body`, is decoded first.
    pub(crate) fn new(
        head: Vec<u8>,
        body: ByteStream,
        decoder: Box<dyn StreamDecoder>,
        max: usize,
        provider: String,
        too_large: LlmError,
    ) -> Self {
        let mut events = Self { body: Some(body), decoder, read: 0, max, provider, too_large, ready: Vec::new().into_iter() };
        events.decode(Some(Ok(head)));
        events
    }

    /// Decodes the body's next item (`None`: its end) into `ready`.
    fn decode(&mut self, item: Option<Result<Vec<u8>, HttpError>>) {
        let mut out = Vec::new();
        let result = match item {
            Some(Ok(chunk)) if self.read + chunk.len() > self.max => Err(self.too_large.clone()),
            Some(Ok(chunk)) => {
                self.read += chunk.len();
                self.decoder.feed(&chunk, &mut out)
            }
            Some(Err(error)) => Err(super::codec::stream_broken(&self.provider, error)),
            None => {
                self.body = None;
                self.decoder.end(&mut out)
            }
        };
        if let Err(error) = result {
            out.push(StreamEvent::Error { error });
            self.body = None;
        }
        self.ready = out.into_iter();
    }
}

impl Stream for BodyEvents {
    type Item = StreamEvent;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<StreamEvent>> {
        let this = self.get_mut();
        loop {
            if let Some(event) = this.ready.next() {
                return Poll::Ready(Some(event));
            }
            let Some(body) = &mut this.body else { return Poll::Ready(None) };
            match body.poll_next_unpin(cx) {
                Poll::Ready(item) => this.decode(item),
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use futures::executor::block_on;
    use futures::stream;

    use super::*;
    use crate::error::ErrorKind;
    use crate::http::HttpErrorKind;

    /// One text delta per complete line; a line left open at the end is an error.
    #[derive(Default)]
    struct Lines(Vec<u8>);

    impl StreamDecoder for Lines {
        fn feed(&mut self, bytes: &[u8], out: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
            self.0.extend_from_slice(bytes);
            while let Some(end) = self.0.iter().position(|&b| b == b'\n') {
                let line: Vec<u8> = self.0.drain(..=end).collect();
                let delta = String::from_utf8_lossy(&line[..end]).into_owned();
                out.push(StreamEvent::TextDelta { text_id: "t".into(), delta });
            }
            Ok(())
        }

        fn end(&mut self, _: &mut Vec<StreamEvent>) -> Result<(), LlmError> {
            match self.0.is_empty() {
                true => Ok(()),
                false => Err(LlmError::new(ErrorKind::Server, "cut mid-line")),
            }
        }
    }

    fn events(head: &str, chunks: Vec<Result<&str, HttpError>>, max: usize) -> Vec<String> {
        let chunks: Vec<_> = chunks.into_iter().map(|chunk| chunk.map(|text| text.as_bytes().to_vec())).collect();
        let too_large = LlmError::new(ErrorKind::Server, "too large");
        let body =
            BodyEvents::new(head.into(), Box::pin(stream::iter(chunks)), Box::new(Lines::default()), max, "p".into(), too_large);
        block_on(body.collect::<Vec<_>>())
            .into_iter()
            .map(|event| match event {
                StreamEvent::TextDelta { delta, .. } => delta,
                StreamEvent::Error { error } => format!("error: {}", error.message),
                other => panic!("unexpected {other:?}"),
            })
            .collect()
    }

    #[test]
    fn the_head_and_then_every_chunk_are_decoded_in_order() {
        assert_eq!(events("a\nb", vec![Ok("\nc\n"), Ok(""), Ok("d\n")], 100), ["a", "b", "c", "d"]);
        assert_eq!(events("", vec![], 100), Vec::<String>::new());
    }

    #[test]
    fn an_error_ends_the_stream_after_the_events_before_it() {
        assert_eq!(events("a\nb", vec![], 100), ["a", "error: cut mid-line"]);
        let broken = HttpError::new(HttpErrorKind::Body, "reset");
        let got = events("a\n", vec![Ok("b\n"), Err(broken), Ok("never\n")], 100);
        assert_eq!(got[..2], ["a", "b"]);
        assert!(got[2].starts_with("error: ") && got[2].contains("reset"), "{got:?}");
        assert_eq!(got.len(), 3);
    }

    #[test]
    fn a_body_over_the_cap_ends_with_the_cap_error_and_reads_no_further() {
        assert_eq!(events("a\n", vec![Ok("b\n"), Ok("c\n"), Ok("d\n")], 5), ["a", "b", "error: too large"]);
        assert_eq!(events("a\nb\nc\n", vec![Ok("d\n")], 5), ["error: too large"]);
    }
}
