//! `openagent serve` over loopback: what its HTTP server costs, from outside the process.
//!
//! - small requests (`GET /health`, which the API answers 404 with a JSON error: the token
//!   check, the routing and a JSON answer, no store) from a few clients at once, one request per
//!   connection: requests a second and the latency's median and 99th percentile;
//! - the server's memory (RSS) and threads with 1,000 idle connections open;
//! - from asking for a session's event stream to its first event.
//!
//! `cargo bench -p openagent-cli --bench serve_http`. Each figure is taken three times; on a
//! busy machine they are slower, not wrong.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::{Duration, Instant};

const TOKEN: &str = "bench-token";
const ROUNDS: usize = 3;
const CLIENTS: usize = 8;
/// Requests a client sends a round: every request is a connection of its own, and the loopback
/// has fewer than 30,000 ports to give (each stays in TIME_WAIT for a minute), so a round is
/// counted, not timed.
const REQUESTS_EACH: usize = 1500;
const IDLE: usize = 1000;
const STREAMS: usize = 10;

/// A one-word streamed OpenAI-compatible answer, so that each session the bench starts ends.
const REPLY: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n\
data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":null}]}\n\n\
data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
data: [DONE]\n\n";

/// `openagent serve` on a free port, killed when dropped.
struct Serve {
    child: Child,
    addr: String,
    /// Kept open: the server prints more lines, and dies of a closed pipe.
    _stdout: BufReader<std::process::ChildStdout>,
}

impl Serve {
    fn start(dir: &std::path::Path, base_url: &str, max_connections: usize) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_openagent"))
            .args(["serve", "--port", "0", "--token", TOKEN, "--allow-base-url", base_url])
            .args(["--max-connections", &max_connections.to_string()])
            .arg("--data-dir")
            .arg(dir.join("data"))
            .arg("--cwd")
            .arg(dir)
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .env_remove("GOOGLE_API_KEY")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the openagent binary runs");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut line = String::new();
        stdout.read_line(&mut line).expect("the URL line");
        let addr = line.trim().strip_prefix("OpenAgent API: http://").expect("the URL").to_owned();
        Self { child, addr, _stdout: stdout }
    }

    /// One request on a connection of its own; the whole answer, read until the server closes.
    fn call(&self, method: &str, path: &str, body: &str) -> String {
        let mut socket = connect_patiently(&self.addr);
        let head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {TOKEN}\r\nContent-Length: {}\r\n\r\n",
            self.addr,
            body.len()
        );
        socket.write_all(format!("{head}{body}").as_bytes()).expect("the request is sent");
        let mut answer = String::new();
        match socket.read_to_string(&mut answer) {
            Ok(_) => answer,
            Err(e) => format!("{answer}[{e}]"),
        }
    }

    /// `Threads:` and `VmRSS:` (KiB) from /proc.
    fn threads_and_rss(&self) -> (usize, usize) {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).expect("the server's status");
        let field = |name: &str| {
            let line = status.lines().find_map(|line| line.strip_prefix(name)).expect("the field");
            line.split_whitespace().next().and_then(|n| n.parse().ok()).expect("a number")
        };
        (field("Threads:"), field("VmRSS:"))
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn main() {
    let dir = std::env::temp_dir().join(format!("openagent-serve-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let base_url = fake_model();

    println!("openagent serve, {ROUNDS} rounds each");
    // First, while the loopback has all its ports: enough connections that the server holds all
    // 1,000 rather than turning most away.
    let serve = Serve::start(&dir, &base_url, IDLE / 2);
    for round in 1..=ROUNDS {
        idle(&serve, round);
    }
    drop(serve);
    let serve = Serve::start(&dir, &base_url, 64);
    let (threads, rss) = serve.threads_and_rss();
    println!("  at rest, --max-connections 64: {threads} threads, RSS {:.1} MiB", rss as f64 / 1024.0);
    for round in 1..=ROUNDS {
        load(&serve, round);
    }
    for round in 1..=ROUNDS {
        first_event(&serve, &base_url, round);
    }
    drop(serve);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `CLIENTS` clients asking `GET /health` `REQUESTS_EACH` times each, as fast as they can.
fn load(serve: &Serve, round: usize) {
    let started = Instant::now();
    let failed = std::sync::Mutex::new(Vec::new());
    let mut latencies: Vec<Duration> = thread::scope(|scope| {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|_| {
                scope.spawn(|| {
                    let mut latencies = Vec::new();
                    for _ in 0..REQUESTS_EACH {
                        let sent = Instant::now();
                        let answer = serve.call("GET", "/health", "");
                        if answer.starts_with("HTTP/1.1 404") {
                            latencies.push(sent.elapsed());
                        } else {
                            failed.lock().expect("failed").push(answer);
                        }
                    }
                    latencies
                })
            })
            .collect();
        clients.into_iter().flat_map(|client| client.join().expect("a client")).collect()
    });
    let elapsed = started.elapsed().as_secs_f64();
    let failed = failed.into_inner().expect("failed");
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0;
    println!(
        "  [{round}] GET /health, {CLIENTS} clients: {:6.0} req/s, p50 {:5.2} ms, p99 {:5.2} ms ({} requests, {} failed)",
        latencies.len() as f64 / elapsed,
        at(0.50),
        at(0.99),
        latencies.len(),
        failed.len()
    );
    if let Some(first) = failed.first() {
        println!("      first failure: {first:?}");
    }
}

/// RSS and threads before and with `IDLE` connections open that send nothing.
fn idle(serve: &Serve, round: usize) {
    let (threads, rss) = serve.threads_and_rss();
    let open: Vec<TcpStream> = (0..IDLE).map(|_| connect_patiently(&serve.addr)).collect();
    thread::sleep(Duration::from_millis(500));
    let (threads_idle, rss_idle) = serve.threads_and_rss();
    drop(open);
    thread::sleep(Duration::from_millis(300));
    println!(
        "  [{round}] {IDLE} idle connections: threads {threads} -> {threads_idle}, RSS {:.1} -> {:.1} MiB",
        rss as f64 / 1024.0,
        rss_idle as f64 / 1024.0
    );
}

/// A connection, retried for a while: a burst of connects can overflow the listen backlog.
fn connect_patiently(addr: &str) -> TcpStream {
    for _ in 0..100 {
        if let Ok(socket) = TcpStream::connect(addr) {
            return socket;
        }
        thread::sleep(Duration::from_millis(10));
    }
    TcpStream::connect(addr).expect("the server accepts")
}

/// Starts `STREAMS` sessions; for each, the time from connecting for its event stream to the
/// first event's arrival.
fn first_event(serve: &Serve, base_url: &str, round: usize) {
    let body = format!(r#"{{"task": "say ok", "provider": "openai-compatible", "model": "bench", "base_url": "{base_url}"}}"#);
    let mut times = Vec::new();
    for _ in 0..STREAMS {
        let created = serve.call("POST", "/sessions", &body);
        let id = created.split("\"id\":\"").nth(1).and_then(|rest| rest.split('"').next()).expect("a session id").to_owned();
        let asked = Instant::now();
        let mut socket = connect_patiently(&serve.addr);
        let request = format!("GET /sessions/{id}/events HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {TOKEN}\r\n\r\n");
        socket.write_all(request.as_bytes()).expect("the request is sent");
        let mut seen = Vec::new();
        let mut buf = [0; 4096];
        // The first event is whole once its blank line follows an `id:` line.
        while !String::from_utf8_lossy(&seen).split_once("id: ").is_some_and(|(_, event)| event.contains("\n\n")) {
            let n = socket.read(&mut buf).expect("the stream reads");
            assert!(n > 0, "the stream ended before an event: {}", String::from_utf8_lossy(&seen));
            seen.extend_from_slice(&buf[..n]);
        }
        times.push(asked.elapsed());
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "  [{round}] first event of a stream, {STREAMS} streams: min {:5.2} / median {:5.2} / max {:5.2} ms",
        ms(times[0]),
        ms(times[STREAMS / 2]),
        ms(times[STREAMS - 1])
    );
}

/// A loopback model server that answers every request with [`REPLY`]; its base URL.
fn fake_model() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let base_url = format!("http://{}/v1", listener.local_addr().expect("an address"));
    thread::spawn(move || {
        for socket in listener.incoming().flatten() {
            thread::spawn(move || answer_model_call(socket));
        }
    });
    base_url
}

/// Reads a request (its head and its `Content-Length` body), then answers it.
fn answer_model_call(mut socket: TcpStream) {
    let mut seen = Vec::new();
    let mut buf = [0; 8192];
    loop {
        let Ok(n) = socket.read(&mut buf) else { return };
        if n == 0 {
            return;
        }
        seen.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&seen).to_ascii_lowercase();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length = head
                .lines()
                .find_map(|line| line.strip_prefix("content-length:"))
                .and_then(|n| n.trim().parse::<usize>().ok())
                .unwrap_or(0);
            if body.len() >= length {
                break;
            }
        }
    }
    let _ = socket.write_all(REPLY.as_bytes());
}
