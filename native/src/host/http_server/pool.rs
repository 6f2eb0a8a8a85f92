//! The connections of a server: one accept thread hands each connection to a fixed pool of worker
//! threads through a bounded queue, so a flood of clients costs file descriptors for a moment, not
//! threads. When every worker is busy and the queue is full, the accept thread answers `503` with
//! `Retry-After` itself, without waiting on the client, and closes.
//!
//! A worker reads its request under deadlines that count from the start, not from the last byte:
//! the whole head within [`Limits::head_within`], then the body within [`Limits::body_within`]. A
//! client that sends a byte now and then cannot keep a worker longer than that; it is answered
//! `408` and closed. A worker stays with its connection until the answer is written, so an
//! answer that streams (server-sent events) holds its worker for as long as it streams.

use std::io::{self, BufReader, Read};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread;
use std::time::{Duration, Instant};

use super::{read_body, read_head, respond, BadRequest, Gate, Request};

/// How many connections a server works on at once, how many wait, and how long a client may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// The worker threads, started with the server: the most connections served at once.
    pub workers: usize,
    /// Accepted connections waiting for a worker; one more is answered 503.
    pub queue: usize,
    /// The whole request head must arrive within this, counted from when a worker takes the
    /// connection.
    pub head_within: Duration,
    /// The body must arrive within this once the head is in.
    pub body_within: Duration,
    /// The largest body taken (413 beyond).
    pub max_body: usize,
}

impl Default for Limits {
    /// 64 workers and 64 waiting; 10 s for a head and 30 s for a body, which a local client
    /// sending a megabyte meets with room to spare.
    fn default() -> Self {
        Self {
            workers: 64,
            queue: 64,
            head_within: Duration::from_secs(10),
            body_within: Duration::from_secs(30),
            max_body: 1024 * 1024,
        }
    }
}

/// How long a single write of the answer may wait on a client that stopped reading.
const WRITE_TIMEOUT: Duration = Duration::from_secs(30);

/// What is read and dropped of a refused request, at most, and for how long: enough for any body
/// a local client sends before reading the answer, little enough that a flood ends soon.
const DISCARD_LIMIT: u64 = 16 * 1024 * 1024;
const DISCARD_WITHIN: Duration = Duration::from_secs(2);

/// What a turned-away client is told. JSON, as every error of the sessions API is.
const BUSY: &str =
    r#"{"error":"the server is busy: every worker is serving a connection and the queue is full; retry in a second"}"#;

/// A pause after a failed accept (out of file descriptors, say), so that the accept thread lets
/// connections close instead of spinning on the error.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(10);

/// [`spawn_with`] the default [`Limits`] and a body of at most `max_body` bytes.
pub fn spawn<A>(listener: TcpListener, name: &str, max_body: usize, gate: Box<Gate>, answer: A) -> io::Result<()>
where
    A: Fn(Result<Request, BadRequest>, &mut TcpStream) + Send + Sync + 'static,
{
    spawn_with(listener, name, Limits { max_body, ..Limits::default() }, gate, answer)
}

/// Serves `listener` from a thread named `name` and `limits.workers` threads named
/// `<name>-worker`: each request (its body read once `gate` let its head through) is handed to
/// `answer` with the socket to answer on, or, when it cannot be read, came too slowly or was
/// refused, why not (the status to answer with and a message). The connection closes when
/// `answer` returns.
pub fn spawn_with<A>(listener: TcpListener, name: &str, limits: Limits, gate: Box<Gate>, answer: A) -> io::Result<()>
where
    A: Fn(Result<Request, BadRequest>, &mut TcpStream) + Send + Sync + 'static,
{
    let (queue, waiting) = mpsc::sync_channel(limits.queue);
    let waiting = Arc::new(Mutex::new(waiting));
    let answer = Arc::new(answer);
    let gate: Arc<Gate> = Arc::from(gate);
    for _ in 0..limits.workers.max(1) {
        let (waiting, answer, gate) = (waiting.clone(), answer.clone(), gate.clone());
        // Should one fail to start, the queue's sender is dropped on return and the started
        // workers end.
        thread::Builder::new().name(format!("{name}-worker")).spawn(move || work(&waiting, &limits, &*gate, &*answer))?;
    }
    thread::Builder::new().name(name.to_owned()).spawn(move || accept(&listener, &queue))?;
    Ok(())
}

fn accept(listener: &TcpListener, queue: &SyncSender<TcpStream>) {
    for socket in listener.incoming() {
        match socket {
            Ok(socket) => match queue.try_send(socket) {
                Ok(()) => {}
                Err(TrySendError::Full(socket)) => turn_away(socket),
                // Every worker is gone; so is the server.
                Err(TrySendError::Disconnected(_)) => return,
            },
            Err(_) => thread::sleep(ACCEPT_BACKOFF),
        }
    }
}

/// Answers 503 on a connection no worker can take. The accept thread never waits on a client:
/// the socket is non-blocking, and a client that cannot take the short answer at once loses it.
fn turn_away(mut socket: TcpStream) {
    if socket.set_nonblocking(true).is_err() {
        return;
    }
    let headers = [("content-type", "application/json"), ("cache-control", "no-store"), ("retry-after", "1")];
    let _ = respond(&mut socket, 503, &headers, BUSY.as_bytes(), false);
    let _ = socket.shutdown(Shutdown::Write);
    // What the client sent already is read and dropped: closing on unread input resets the
    // connection, and the client could lose the answer with it.
    let _ = io::copy(&mut (&socket).take(64 * 1024), &mut io::sink());
}

fn work(
    waiting: &Mutex<Receiver<TcpStream>>,
    limits: &Limits,
    gate: &Gate,
    answer: &impl Fn(Result<Request, BadRequest>, &mut TcpStream),
) {
    loop {
        // The lock is held while this worker waits for a connection, and let go as it takes one.
        let next = waiting.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(socket) = next else { return };
        // A panic costs its connection, not a worker: the pool keeps its size.
        let _ = panic::catch_unwind(AssertUnwindSafe(|| connection(socket, limits, gate, answer)));
    }
}

fn connection(socket: TcpStream, limits: &Limits, gate: &Gate, answer: &impl Fn(Result<Request, BadRequest>, &mut TcpStream)) {
    // Failing to set it leaves the default (none): the connection still works.
    let _ = socket.set_write_timeout(Some(WRITE_TIMEOUT));
    let Ok(read_half) = socket.try_clone() else { return };
    let mut out = socket;
    let mut reader = BufReader::new(Deadline::new(read_half, "the request head", limits.head_within));
    let read = match read_head(&mut reader) {
        Ok(Some(mut request)) => {
            reader.get_mut().restart("the request body", limits.body_within);
            read_body(&mut reader, &mut request, limits.max_body, gate).map(|()| Some(request))
        }
        other => other,
    };
    match read {
        Ok(None) => {}
        Ok(Some(request)) => answer(Ok(request), &mut out),
        Err(bad) => {
            answer(Err(bad), &mut out);
            // The body was not read: the client may still be sending it. Closing a socket with
            // unread input resets the connection, and the client would lose the answer with it;
            // so the answer is ended and the rest read and dropped, for a short while. Errors
            // here mean the client is gone already.
            let _ = out.shutdown(Shutdown::Write);
            reader.get_mut().restart("the rest of a refused request", DISCARD_WITHIN);
            let _ = io::copy(&mut reader.take(DISCARD_LIMIT), &mut io::sink());
        }
    }
}

/// A socket whose reads must all be done by one instant. A read timeout alone restarts with
/// every byte, so a client dribbling a byte at a time could hold a worker forever; here each read
/// waits only for what is left of the deadline.
struct Deadline {
    socket: TcpStream,
    /// What is being read, for the error: "the request head".
    what: &'static str,
    within: Duration,
    until: Instant,
}

impl Deadline {
    fn new(socket: TcpStream, what: &'static str, within: Duration) -> Self {
        Self { socket, what, within, until: Instant::now() + within }
    }

    /// A new deadline from now, for the next part of the request.
    fn restart(&mut self, what: &'static str, within: Duration) {
        (self.what, self.within, self.until) = (what, within, Instant::now() + within);
    }

    fn late(&self) -> io::Error {
        io::Error::new(io::ErrorKind::TimedOut, format!("{} did not arrive within {:?}", self.what, self.within))
    }
}

impl Read for Deadline {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let left = self.until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.late());
        }
        self.socket.set_read_timeout(Some(left))?;
        match self.socket.read(buf) {
            Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => Err(self.late()),
            read => read,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::net::SocketAddr;
    use std::sync::mpsc::Sender;

    use super::*;

    /// A server with `limits` answering every request 200 with its path, and a refusal with its
    /// status; a request for `/hold` first says so on `held`, then waits for `release`.
    fn server(limits: Limits, held: Sender<()>, release: Receiver<()>) -> SocketAddr {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let addr = listener.local_addr().expect("an address");
        let (held, release) = (Mutex::new(held), Mutex::new(release));
        spawn_with(listener, "test-server", limits, Box::new(|_| None), move |request, out| {
            let _ = match request {
                Ok(request) => {
                    if request.path() == "/hold" {
                        let _ = held.lock().expect("held").send(());
                        let _ = release.lock().expect("release").recv();
                    }
                    respond(out, 200, &[], request.path().as_bytes(), false)
                }
                Err(bad) => respond(out, bad.status, &[], bad.message.as_bytes(), false),
            };
        })
        .expect("the server starts");
        addr
    }

    fn quick(limits: Limits) -> SocketAddr {
        let (held, _) = mpsc::channel();
        server(limits, held, mpsc::channel().1)
    }

    /// Sends `request` and reads the answer until the server closes.
    fn ask(addr: SocketAddr, request: &str) -> String {
        let mut socket = TcpStream::connect(addr).expect("the server accepts");
        socket.set_read_timeout(Some(Duration::from_secs(10))).expect("a timeout");
        socket.write_all(request.as_bytes()).expect("the request is sent");
        let mut answer = String::new();
        let _ = socket.read_to_string(&mut answer);
        answer
    }

    const GET: &str = "GET /ok HTTP/1.1\r\n\r\n";

    #[test]
    fn a_head_sent_a_byte_at_a_time_is_cut_at_its_deadline_with_408() {
        let within = Duration::from_millis(300);
        let addr = quick(Limits { head_within: within, ..Limits::default() });
        let mut socket = TcpStream::connect(addr).expect("the server accepts");
        socket.set_read_timeout(Some(Duration::from_millis(50))).expect("a timeout");
        socket.write_all(b"GET / HTTP/1.1\r\nX-Slow: ").expect("the start of a head");
        let started = Instant::now();
        let mut answer = Vec::new();
        // A byte every 50 ms: each comes well within any per-read timeout.
        while started.elapsed() < Duration::from_secs(5) && socket.write_all(b"a").is_ok() {
            let mut buf = [0; 512];
            match socket.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => answer.extend_from_slice(&buf[..n]),
                Err(e) if matches!(e.kind(), io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut) => {}
                Err(_) => break,
            }
        }
        let answer = String::from_utf8_lossy(&answer);
        assert!(answer.starts_with("HTTP/1.1 408 Request Timeout"), "{answer}");
        assert!(answer.ends_with("the request head did not arrive within 300ms"), "{answer}");
        assert!(started.elapsed() < Duration::from_secs(3), "cut after {:?}", started.elapsed());
    }

    #[test]
    fn a_body_that_stops_coming_is_cut_at_its_deadline_with_408() {
        let addr = quick(Limits { body_within: Duration::from_millis(200), ..Limits::default() });
        let started = Instant::now();
        let answer = ask(addr, "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nab");
        assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
        assert!(answer.ends_with("the request body did not arrive within 200ms"), "{answer}");
        assert!(started.elapsed() < Duration::from_secs(5));
    }

    #[test]
    fn with_every_worker_busy_and_the_queue_full_a_connection_is_turned_away_with_503() {
        let (held, holding) = mpsc::channel();
        let (release, released) = mpsc::channel();
        let addr = server(Limits { workers: 1, queue: 1, ..Limits::default() }, held, released);
        let busy = std::thread::spawn(move || ask(addr, "GET /hold HTTP/1.1\r\n\r\n"));
        holding.recv_timeout(Duration::from_secs(10)).expect("the worker holds the first request");
        let waiting = std::thread::spawn(move || ask(addr, GET));
        std::thread::sleep(Duration::from_millis(100)); // the accept thread queues it

        let started = Instant::now();
        let turned_away = ask(addr, GET);
        assert!(started.elapsed() < Duration::from_secs(2), "answered at once");
        assert!(turned_away.starts_with("HTTP/1.1 503 Service Unavailable\r\n"), "{turned_away}");
        assert!(turned_away.contains("retry-after: 1\r\n") && turned_away.contains("the server is busy"), "{turned_away}");

        release.send(()).expect("the worker waits");
        assert!(busy.join().expect("answered").ends_with("/hold"));
        assert!(waiting.join().expect("answered").ends_with("/ok"), "the queued connection is served next");
        assert!(ask(addr, GET).starts_with("HTTP/1.1 200"), "the pool is free again");
    }

    #[test]
    fn a_panicking_answer_costs_its_connection_not_a_worker() {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
        let addr = listener.local_addr().expect("an address");
        let limits = Limits { workers: 1, ..Limits::default() };
        spawn_with(listener, "test-server", limits, Box::new(|_| None), |request, out| {
            let request = request.expect("a request");
            assert_ne!(request.path(), "/panic", "this answer panics on purpose");
            let _ = respond(out, 200, &[], b"fine", false);
        })
        .expect("the server starts");
        assert_eq!(ask(addr, "GET /panic HTTP/1.1\r\n\r\n"), "", "the connection closes without an answer");
        assert!(ask(addr, GET).ends_with("fine"), "the one worker still serves");
    }
}
