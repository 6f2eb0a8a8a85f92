//! Time from process start to the first LLM request: `openagent run` is spawned against a
//! loopback server that notes when each request's first bytes arrive: it answers the listing of
//! its models (which an OpenAI-compatible provider is asked first), then the model call with a
//! one-word streamed reply so the run ends cleanly. `OPENAGENT_BIN=PATH` measures that binary. Beside it, the time to spawn and reap
//! `/bin/true`, the floor any process start pays on this machine.
//!
//! `cargo bench -p openagent-cli --bench first_request` (the goal is under 20 ms; build
//! with `--release` figures, which `cargo bench` does).

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 20;

/// The server's model list: the one model the run asks for.
const MODELS: &str = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 41\r\nconnection: close\r\n\r\n\
{\"object\":\"list\",\"data\":[{\"id\":\"bench\"}]}";

/// An OpenAI-compatible streamed answer: one word, then the end.
const REPLY: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n\
data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"ok\"},\"finish_reason\":null}]}\n\n\
data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n\
data: [DONE]\n\n";

fn main() {
    let dir = std::env::temp_dir().join(format!("openagent-first-request-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    let base_url = format!("http://{}/v1", listener.local_addr().unwrap());

    // `OPENAGENT_BIN` measures another build (an older one, to compare) with the same harness.
    let binary = std::env::var_os("OPENAGENT_BIN").map_or_else(|| env!("CARGO_BIN_EXE_openagent").into(), PathBuf::from);
    let mut to_listing = Vec::with_capacity(RUNS);
    let mut to_request = Vec::with_capacity(RUNS);
    let mut whole_run = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        let mut child = Command::new(&binary)
            .args(["run", "say ok", "--provider", "openai-compatible", "--model", "bench", "--base-url", &base_url])
            .arg("--data-dir")
            .arg(dir.join("data"))
            .current_dir(&dir)
            .env_remove("OPENAI_API_KEY")
            .env_remove("ANTHROPIC_API_KEY")
            .env_remove("GEMINI_API_KEY")
            .env_remove("GOOGLE_API_KEY")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the openagent binary runs");
        // An OpenAI-compatible server is asked for its models (the window it serves) before the
        // first model call: that listing is answered, then the call.
        loop {
            let (mut stream, _) = listener.accept().expect("the run connects");
            let (head, at) = read_request(&mut stream);
            if head.starts_with("GET") {
                to_listing.push(at - started);
                stream.write_all(MODELS.as_bytes()).expect("the listing is sent");
                continue;
            }
            to_request.push(at - started);
            stream.write_all(REPLY.as_bytes()).expect("the reply is sent");
            break;
        }
        let status = child.wait().expect("the run ends");
        assert!(status.success(), "the run failed: {status}");
        whole_run.push(started.elapsed());
    }

    let mut spawn_floor = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        Command::new("/bin/true").status().expect("/bin/true runs");
        spawn_floor.push(started.elapsed());
    }

    println!("openagent run, {RUNS} runs (min / median / max):");
    report("start to GET /models", &mut to_listing);
    report("start to first LLM request", &mut to_request);
    report("start to exit (whole run)", &mut whole_run);
    report("spawn and reap /bin/true", &mut spawn_floor);
    let median = to_request[RUNS / 2].as_secs_f64() * 1000.0;
    println!("goal: first request under 20 ms: {}", if median < 20.0 { "met" } else { "NOT met" });
    let _ = std::fs::remove_dir_all(&dir);
}

/// Reads one request (its head, then as much body as it declares); gives its head and when its
/// first byte came.
fn read_request(stream: &mut TcpStream) -> (String, Instant) {
    let mut bytes = Vec::new();
    let mut buf = [0u8; 16 * 1024];
    let mut first = None;
    loop {
        let n = stream.read(&mut buf).expect("the request is read");
        first.get_or_insert_with(Instant::now);
        bytes.extend_from_slice(&buf[..n]);
        let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") else {
            assert!(n > 0, "the run closed the connection mid-request");
            continue;
        };
        let head = String::from_utf8_lossy(&bytes[..end]).to_string();
        let length = head
            .lines()
            .find_map(|line| line.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap_or(0)))
            .unwrap_or(0);
        if bytes.len() >= end + 4 + length || n == 0 {
            return (head, first.expect("a byte came"));
        }
    }
}

/// Sorts `times` and prints min, median and max in milliseconds.
fn report(label: &str, times: &mut [Duration]) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("  {label:<28} {:7.2} / {:7.2} / {:7.2} ms", ms(times[0]), ms(times[times.len() / 2]), ms(times[times.len() - 1]));
}
