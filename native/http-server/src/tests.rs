//! The server over real sockets: what it reads, how it refuses, its deadlines and bounds, and
//! answers that stream.

use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::*;

/// Answers `GET /hold` once it was let go, streams `/stream` in two pieces with a pause between
/// them, cuts `/cut`, panics on `/panic`, and echoes anything else; a request with `x-refuse` is
/// refused from its head.
struct Echo {
    held: Mutex<Sender<()>>,
    release: Mutex<Receiver<()>>,
}

impl Service for Echo {
    fn gate(&self, request: &Request) -> Option<BadRequest> {
        request.header("x-refuse").map(|_| BadRequest::new(401, "refused from the head"))
    }

    fn refuse(&self, refused: &BadRequest) -> Answer {
        Answer::new(refused.status, refused.message.clone())
    }

    fn answer(&self, request: Request, responder: Responder) {
        let wait = || {
            let _ = self.held.lock().expect("held").send(());
            let _ = self.release.lock().expect("release").recv();
        };
        match request.path() {
            "/hold" => wait(),
            "/panic" => panic!("this answer panics on purpose"),
            "/stream" => {
                let mut out = responder.stream(Answer::new(200, "first;"));
                wait();
                let _ = out.write_all(b"second");
                return;
            }
            "/cut" => {
                let mut out = responder.stream(Answer::new(200, "part;").header("content-length", "100"));
                let _ = out.write_all(b"more;");
                return out.cut();
            }
            _ => {}
        }
        let query: Vec<String> = request.query().iter().map(|(name, value)| format!("{name}={value}")).collect();
        let seen =
            format!("{} {} {} {}", request.method, request.path(), query.join("&"), String::from_utf8_lossy(&request.body));
        responder.send(Answer::new(200, seen).header("x-auth", request.header("authorization").unwrap_or("none")));
    }
}

/// A server with `limits`; `held` hears of each request that waits, `release` lets one go.
fn server(limits: Limits) -> (SocketAddr, Serving, Receiver<()>, Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let addr = listener.local_addr().expect("an address");
    let ((held, holding), (release, released)) = (mpsc::channel(), mpsc::channel());
    let service = Echo { held: Mutex::new(held), release: Mutex::new(released) };
    (addr, spawn(listener, "test-server", limits, service).expect("the server starts"), holding, release)
}

/// Sends `request` and reads the answer until the server closes.
fn ask(addr: SocketAddr, request: &str) -> String {
    let mut socket = TcpStream::connect(addr).expect("the server accepts");
    socket.set_read_timeout(Some(Duration::from_secs(10))).expect("a timeout");
    socket.write_all(request.as_bytes()).expect("the request is sent");
    read_all(socket)
}

fn read_all(mut socket: TcpStream) -> String {
    socket.set_read_timeout(Some(Duration::from_secs(10))).expect("a timeout");
    let mut answer = Vec::new();
    let _ = socket.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer).into_owned()
}

const GET: &str = "GET /ok HTTP/1.1\r\n\r\n";

#[test]
fn reads_a_request_with_its_headers_query_and_body() {
    let (addr, _server, ..) = server(Limits::default());
    let answer = ask(
        addr,
        "POST /sessions?limit=5&status=run+ning&id=r_1%2Fa HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\nAuthorization: Bearer t\r\n\r\n{}",
    );
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(answer.contains("x-auth: Bearer t\r\n"), "{answer}");
    assert!(answer.ends_with("POST /sessions limit=5&status=run ning&id=r_1/a {}"), "{answer}");
    let chunked = ask(addr, "POST /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n1\r\nc\r\n0\r\n\r\n");
    assert!(chunked.ends_with("POST /c  abc"), "a chunked body is read too: {chunked}");
}

#[test]
fn an_answer_has_its_length_and_closes_the_connection() {
    let (addr, _server, ..) = server(Limits::default());
    let answer = ask(addr, GET);
    assert!(answer.contains("\r\ncontent-length: 9\r\n") && answer.contains("\r\nconnection: close\r\n"), "{answer}");
    assert!(answer.ends_with("\r\n\r\nGET /ok  "), "{answer}");
}

#[test]
fn refuses_what_it_cannot_read_with_the_status_that_says_why() {
    let (addr, _server, ..) = server(Limits { max_body: 4, ..Limits::default() });
    let status = |request: &[u8]| {
        let mut socket = TcpStream::connect(addr).expect("the server accepts");
        socket.write_all(request).expect("the request is sent");
        // The client ends its side: a body shorter than announced ends there.
        let _ = socket.shutdown(Shutdown::Write);
        read_all(socket).get(9..12).unwrap_or("none").to_owned()
    };
    assert_eq!(status(b"GARBAGE\r\n\r\n"), "400");
    assert_eq!(status(b"POST / HTTP/1.1\r\nContent-Length: 3\r\n\r\nab"), "400");
    assert_eq!(status(b"POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n"), "400");
    assert_eq!(status(b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nabcde"), "413");
    assert_eq!(status(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n0\r\n\r\n"), "413");
    assert_eq!(status(b"GET / HTTP/1.1\r\nno colon\r\n\r\n"), "400");
    let huge = [b"GET / HTTP/1.1\r\nX: ".as_slice(), &[b'a'; 70_000], b"\r\n\r\n"].concat();
    assert_eq!(status(&huge), "431");
}

#[test]
fn a_request_refused_from_its_head_is_answered_before_its_body_is_read() {
    let (addr, _server, ..) = server(Limits::default());
    let mut socket = TcpStream::connect(addr).expect("the server accepts");
    socket.set_read_timeout(Some(Duration::from_secs(5))).expect("a timeout");
    socket.write_all(b"POST / HTTP/1.1\r\nX-Refuse: 1\r\nContent-Length: 1048576\r\n\r\n").expect("the head is sent");
    let mut answer = [0; 512];
    let read = socket.read(&mut answer).expect("an answer without the body");
    let answer = String::from_utf8_lossy(&answer[..read]);
    assert!(answer.starts_with("HTTP/1.1 401 Unauthorized\r\n") && answer.ends_with("refused from the head"), "{answer}");
}

#[test]
fn percent_decoding_takes_escapes_and_refuses_broken_ones() {
    assert_eq!(percent_decode("r_1%2Fagent_1").as_deref(), Some("r_1/agent_1"));
    assert_eq!(percent_decode("caf%C3%A9").as_deref(), Some("café"));
    assert_eq!(percent_decode("%zz"), None);
    assert_eq!(percent_decode("%4"), None);
    assert_eq!(percent_decode("%FF"), None);
}

#[test]
fn a_head_sent_a_byte_at_a_time_is_cut_at_its_deadline_with_408() {
    let (addr, _server, ..) = server(Limits { head_within: Duration::from_millis(300), ..Limits::default() });
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
    assert!(answer.starts_with("HTTP/1.1 408 Request Timeout\r\n"), "{answer}");
    assert!(answer.ends_with("the request head did not arrive within 300ms"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(3), "cut after {:?}", started.elapsed());
}

#[test]
fn a_body_that_stops_coming_is_cut_at_its_deadline_with_408() {
    let (addr, _server, ..) = server(Limits { body_within: Duration::from_millis(200), ..Limits::default() });
    let started = Instant::now();
    let answer = ask(addr, "POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nab");
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.ends_with("the request body did not arrive within 200ms"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// Idle connections beyond the bound are answered 503 at once; those within it are cut at the
/// head's deadline, and then the server answers again.
#[test]
fn a_flood_of_idle_connections_is_turned_away_with_503_beyond_the_bound() {
    let within = Duration::from_millis(1500);
    let (addr, _server, ..) = server(Limits { connections: 4, head_within: within, ..Limits::default() });
    let idle: Vec<TcpStream> = (0..20).map(|_| TcpStream::connect(addr).expect("the server accepts")).collect();
    let started = Instant::now();
    let busy = ask(addr, GET);
    assert!(started.elapsed() < within, "answered at once, not at the deadline");
    assert!(busy.starts_with("HTTP/1.1 503 Service Unavailable\r\n"), "{busy}");
    assert!(busy.contains("retry-after: 1\r\n") && busy.ends_with("retry in a second"), "{busy}");

    let answers: Vec<String> = idle.into_iter().map(read_all).collect();
    let count = |status: &str| answers.iter().filter(|answer| answer.starts_with(&format!("HTTP/1.1 {status} "))).count();
    assert_eq!((count("408"), count("503")), (4, 16), "{answers:?}");
    assert!(ask(addr, GET).starts_with("HTTP/1.1 200"), "the places are free again");
}

/// With every worker answering, a request waits for one rather than being refused.
#[test]
fn with_every_worker_busy_a_request_waits_for_one() {
    let (addr, _server, holding, release) = server(Limits { workers: 1, ..Limits::default() });
    let busy = std::thread::spawn(move || ask(addr, "GET /hold HTTP/1.1\r\n\r\n"));
    holding.recv_timeout(Duration::from_secs(10)).expect("the worker holds the first request");
    let waiting = std::thread::spawn(move || ask(addr, GET));
    std::thread::sleep(Duration::from_millis(200));
    assert!(!waiting.is_finished(), "the second request waits for the one worker");
    release.send(()).expect("the worker waits");
    assert!(busy.join().expect("answered").ends_with("GET /hold  "));
    assert!(waiting.join().expect("answered").ends_with("GET /ok  "), "the waiting request is answered next");
}

/// A streaming answer holds a worker, not the server: its pieces go out as they are written, and
/// other requests are answered meanwhile.
#[test]
fn a_streaming_answer_does_not_starve_other_requests() {
    let (addr, _server, holding, release) = server(Limits { workers: 2, ..Limits::default() });
    let mut stream = TcpStream::connect(addr).expect("the server accepts");
    stream.set_read_timeout(Some(Duration::from_secs(10))).expect("a timeout");
    stream.write_all(b"GET /stream HTTP/1.1\r\n\r\n").expect("the request is sent");
    holding.recv_timeout(Duration::from_secs(10)).expect("the stream is open");
    let mut first = Vec::new();
    while !String::from_utf8_lossy(&first).contains("first;") {
        let mut buf = [0; 512];
        let n = stream.read(&mut buf).expect("the first piece comes before the stream ends");
        assert!(n > 0, "the stream ended early: {}", String::from_utf8_lossy(&first));
        first.extend_from_slice(&buf[..n]);
    }
    assert!(ask(addr, GET).ends_with("GET /ok  "), "another request is answered while the stream waits");
    release.send(()).expect("the stream waits");
    let rest = read_all(stream);
    assert!(rest.contains("second") && rest.ends_with("0\r\n\r\n"), "the stream ends properly: {rest}");
}

#[test]
fn a_cut_body_arrives_in_part_and_without_its_end() {
    let (addr, _server, ..) = server(Limits::default());
    let answer = ask(addr, "GET /cut HTTP/1.1\r\n\r\n");
    assert!(answer.starts_with("HTTP/1.1 200") && answer.contains("content-length: 100\r\n"), "{answer}");
    assert!(answer.ends_with("\r\n\r\npart;more;"), "what was written came, and nothing more: {answer}");
}

#[test]
fn a_panicking_answer_costs_its_connection_not_a_worker() {
    let (addr, _server, ..) = server(Limits { workers: 1, ..Limits::default() });
    assert_eq!(ask(addr, "GET /panic HTTP/1.1\r\n\r\n"), "", "the connection closes without an answer");
    assert!(ask(addr, GET).ends_with("GET /ok  "), "the one worker still answers");
}

#[test]
fn the_server_stops_when_dropped() {
    let (addr, server, ..) = server(Limits::default());
    assert!(ask(addr, GET).starts_with("HTTP/1.1 200"));
    drop(server);
    assert!(TcpStream::connect(addr).is_err(), "the port is closed");
}
