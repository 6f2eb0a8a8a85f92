//! Time from process start to the first LLM request: `openagent run` is spawned against a
//! loopback server that notes when the request's first bytes arrive, then answers with a
//! one-word streamed reply so the run ends cleanly. Beside it, the time to spawn and reap
//! `/bin/true`, the floor any process start pays on this machine.
//!
//! `cargo bench -p openagent-cli --bench first_request` (the goal is under 20 ms; build
//! with `--release` figures, which `cargo bench` does).

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const RUNS: usize = 20;

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

    let mut to_request = Vec::with_capacity(RUNS);
    let mut whole_run = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let started = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_openagent"))
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
        let (mut stream, _) = listener.accept().expect("the run connects");
        let mut first = [0u8; 1];
        stream.read_exact(&mut first).expect("the request's first byte");
        to_request.push(started.elapsed());
        // Read the rest of the request (until the body is in), then answer.
        stream.set_read_timeout(Some(Duration::from_millis(200))).unwrap();
        let mut rest = vec![0u8; 64 * 1024];
        let _ = stream.read(&mut rest);
        stream.write_all(REPLY.as_bytes()).expect("the reply is sent");
        drop(stream);
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
    report("start to first LLM request", &mut to_request);
    report("start to exit (whole run)", &mut whole_run);
    report("spawn and reap /bin/true", &mut spawn_floor);
    let median = to_request[RUNS / 2].as_secs_f64() * 1000.0;
    println!("goal: first request under 20 ms: {}", if median < 20.0 { "met" } else { "NOT met" });
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sorts `times` and prints min, median and max in milliseconds.
fn report(label: &str, times: &mut [Duration]) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("  {label:<28} {:7.2} / {:7.2} / {:7.2} ms", ms(times[0]), ms(times[times.len() / 2]), ms(times[times.len() - 1]));
}
