//! `GET /sessions/{id}/events`: a session's events as server-sent events, first those already
//! stored, then the new ones as its run thread stores them, until the session stops running and
//! every event is sent. The stream reads the store, not the session: the store is the one source
//! of truth, a reader never slows the run down, and a reader of a session that another process
//! runs (`openagent run`) is served the same way.
//!
//! Each event is `id: <seq>`, `event: <kind>`, `data: <the internal event as JSON>`. A client
//! that reconnects with `Last-Event-ID: <seq>` (or `?after=<seq>`) gets what came after it.
//!
//! A stream holds one of the server's worker threads for as long as it streams (it reads the
//! store, which blocks), so [`Streams`] keeps a quarter of them from streams: however many
//! clients follow sessions, a steer, an abort or a result still finds a worker.

use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::json;

use openagent_http_server::{Answer, Responder};
use openagent_store::{Status, Store, StoreError, StoredEvent};

/// How often the store is asked for new events: short enough to feel live, long enough that an
/// idle stream costs nothing worth measuring.
const POLL: Duration = Duration::from_millis(50);

/// A comment is sent after this much silence, so that a client that went away is noticed (the
/// write fails) and its thread ends, and proxies do not close a quiet stream.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// Events read from the store at once; a long history is sent in slices of this many.
const BATCH: usize = 500;

/// How many event streams may be open at once: all of the server's workers but a quarter (at
/// least one), which are left for the other requests.
pub struct Streams {
    open: AtomicUsize,
    max: usize,
}

impl Streams {
    pub fn for_workers(workers: usize) -> Self {
        Self { open: AtomicUsize::new(0), max: workers.saturating_sub(workers.div_ceil(4).max(1)) }
    }

    /// A place for one more stream, given back when the guard is dropped; `None` when every
    /// place is taken.
    pub fn take(&self) -> Option<StreamGuard<'_>> {
        self.open.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |open| (open < self.max).then_some(open + 1)).ok()?;
        Some(StreamGuard(self))
    }

    /// Why a stream was refused, and what to do.
    pub fn full(&self) -> String {
        format!(
            "{} event streams are open, as many as this server keeps for streams so that other requests always find a worker; \
             retry once one has ended, or start the server with a larger --max-connections",
            self.max
        )
    }
}

/// One open stream's place in [`Streams`].
pub struct StreamGuard<'a>(&'a Streams);

impl Drop for StreamGuard<'_> {
    fn drop(&mut self) {
        self.0.open.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Streams session `id`'s events after number `after` through `responder`. The session exists:
/// the caller checked, and answered 404 otherwise.
pub fn stream(responder: Responder, store: &Store, id: &str, after: i64) -> io::Result<()> {
    let head = Answer::new(200, Vec::new()).header("content-type", "text/event-stream").header("cache-control", "no-store");
    let out = &mut responder.stream(head.header("x-content-type-options", "nosniff"));
    let mut last = after;
    let mut quiet_since = Instant::now();
    loop {
        let sent = match send_new(out, store, id, &mut last) {
            Ok(sent) => sent,
            Err(Failure::Io(e)) => return Err(e),
            Err(Failure::Store(e)) => return send_error(out, &e),
        };
        if sent > 0 {
            quiet_since = Instant::now();
            continue;
        }
        let status = match store.session(id) {
            Ok(session) => session.status,
            Err(e) => return send_error(out, &e),
        };
        if status != Status::Running {
            // Events stored between the last read and the status check come first: the run
            // thread stores every event of an input before it records how the input ended.
            return match send_new(out, store, id, &mut last) {
                Ok(_) => Ok(()),
                Err(Failure::Io(e)) => Err(e),
                Err(Failure::Store(e)) => send_error(out, &e),
            };
        }
        if quiet_since.elapsed() >= KEEP_ALIVE {
            out.write_all(b": keep-alive\n\n")?;
            out.flush()?;
            quiet_since = Instant::now();
        }
        std::thread::sleep(POLL);
    }
}

enum Failure {
    Io(io::Error),
    Store(StoreError),
}

/// Sends the events after `last` (one batch), moving `last` on; returns how many were sent.
fn send_new(out: &mut impl Write, store: &Store, id: &str, last: &mut i64) -> Result<usize, Failure> {
    let events = store.events_after(id, *last, Some(BATCH)).map_err(Failure::Store)?;
    for event in &events {
        out.write_all(frame(event).as_bytes()).map_err(Failure::Io)?;
        *last = event.seq;
    }
    out.flush().map_err(Failure::Io)?;
    Ok(events.len())
}

/// One event in the SSE format. The data is one line of JSON; were it ever more, each line
/// would be its own `data:` field, as the format wants.
fn frame(event: &StoredEvent) -> String {
    let data: String = event.data.lines().map(|line| format!("data: {line}\n")).collect();
    format!("id: {}\nevent: {}\n{data}\n", event.seq, event.kind)
}

/// The store failed mid-stream: the client is told why in an `error` event, and the stream ends.
fn send_error(out: &mut impl Write, error: &StoreError) -> io::Result<()> {
    let data = json!({ "error": error.to_string() });
    write!(out, "event: error\ndata: {data}\n\n")?;
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_leave_a_quarter_of_the_workers_to_other_requests() {
        assert_eq!([2, 4, 5, 64].map(|workers| Streams::for_workers(workers).max), [1, 3, 3, 48]);
        let streams = Streams::for_workers(4);
        let held: Vec<_> = (0..3).map(|_| streams.take().expect("a place")).collect();
        assert!(streams.take().is_none(), "the fourth worker is kept");
        drop(held);
        assert!(streams.take().is_some(), "places come back when streams end");
    }

    #[test]
    fn an_event_is_its_seq_kind_and_data() {
        let event = StoredEvent {
            session_id: "r_1".into(),
            seq: 7,
            kind: "turn_start".into(),
            timestamp: "2026-01-01T00:00:00.000Z".into(),
            data: r#"{"kind":"turn_start","data":{"turn":1}}"#.into(),
        };
        assert_eq!(frame(&event), "id: 7\nevent: turn_start\ndata: {\"kind\":\"turn_start\",\"data\":{\"turn\":1}}\n\n");
        let two_lines = StoredEvent { data: "{\n}".into(), ..event };
        assert_eq!(frame(&two_lines), "id: 7\nevent: turn_start\ndata: {\ndata: }\n\n");
    }
}
