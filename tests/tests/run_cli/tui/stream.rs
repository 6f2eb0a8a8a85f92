//! The screen in the middle of a stream: thinking shown as it comes, before the answer; the
//! status line while the answer is written; a resize while it streams. The mock sends a stream's
//! events at once, so these answers come from a small server of the test's own that pauses
//! between them (the mock's own Anthropic encoder writes the events).

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::time::Duration;

use openagent_tests::cli::Sandbox;
use openagent_tests::{anthropic, Call, Ids, Reply, WireBody};
use serde_json::Value;

use super::{ready, rules};
use crate::tmux::Tmux;

/// Serves `replies` in Anthropic's SSE, one per request, with `pause` between events; gives
/// its base URL.
fn slow_server(replies: Vec<Reply>, pause: Duration) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a port");
    let url = format!("http://{}", listener.local_addr().expect("an address"));
    std::thread::spawn(move || {
        let mut ids = Ids::new(7);
        for (reply, connection) in replies.into_iter().zip(listener.incoming()) {
            let Ok(mut connection) = connection else { return };
            let body = read_body(&mut connection);
            let call = Call { model: body["model"].as_str().unwrap_or("model"), body: &body };
            let wire = WireBody::sse_named(&anthropic::events(&reply, &call, &mut ids));
            let head =
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
            let mut sent = connection.write_all(head.as_bytes());
            for frame in &wire.frames {
                sent = sent
                    .and_then(|()| write!(connection, "{:x}\r\n", frame.len()))
                    .and_then(|()| connection.write_all(frame))
                    .and_then(|()| connection.write_all(b"\r\n"))
                    .and_then(|()| connection.flush());
                std::thread::sleep(pause);
            }
            // The client went away: nobody to finish for.
            let _ = sent.and_then(|()| connection.write_all(b"0\r\n\r\n"));
        }
    });
    url
}

/// The JSON body of the request on `connection`.
fn read_body(connection: &mut std::net::TcpStream) -> Value {
    let mut reader = BufReader::new(connection);
    let mut length = 0;
    let mut line = String::new();
    while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
        if let Some((name, value)) = line.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        line.clear();
    }
    let mut body = vec![0; length];
    let _ = reader.read_exact(&mut body);
    serde_json::from_slice(&body).unwrap_or(Value::Null)
}

/// `openagent` in `sandbox` against the server at `url`.
fn against(sandbox: &Sandbox, url: &str) -> std::process::Command {
    let mut command = sandbox.openagent(None, &[]);
    command.env("ANTHROPIC_API_KEY", "sk-ant-test").env("ANTHROPIC_BASE_URL", url);
    command
}

/// The model's thinking shows, dimmed, as it streams and before any of its answer; while the
/// answer streams the status line says so; a resize in the middle lays out what came so far and
/// what comes after at the new width, words whole.
#[test]
fn thinking_streams_before_the_answer_and_a_resize_mid_stream_lays_it_out_again() {
    if !Tmux::available("thinking_streams_before_the_answer") {
        return;
    }
    let sandbox = Sandbox::new();
    let words: Vec<String> = (1..=60).map(|n| format!("word{n:02}")).collect();
    let reply = Reply::text(words.join(" ")).with_reasoning("first I read the question\nthen I answer it plainly");
    let url = slow_server(vec![reply], Duration::from_millis(60));
    let tmux = Tmux::start(&against(&sandbox, &url), 100, 30, "true");
    ready(&tmux);
    tmux.send_line("answer at length");
    let screen = tmux.wait_for("first I read the question");
    assert!(screen.contains("✻ thinking") && !screen.contains("word01"), "thinking first, as it comes:\n{screen}");
    assert!(tmux.screen_in_colour().contains("\x1b[2m"), "dimmed");
    let screen = tmux.wait_until("the answer streaming", |screen| screen.contains("word01") && !screen.contains("word60"));
    let status = screen.lines().rev().find(|line| !line.is_empty()).unwrap_or("");
    assert!(status.ends_with("· writing"), "the status line says what goes on: {status:?}");
    tmux.resize(43, 30);
    let screen = tmux.wait_for("✓ completed");
    let thinking = screen.find("then I answer it plainly").expect("the thinking stays");
    assert!(thinking < screen.find("word01").expect("the answer"), "the thinking above the answer:\n{screen}");
    let answer: Vec<&str> = screen.lines().filter(|line| line.starts_with("word")).collect();
    let shown: Vec<&str> = answer.iter().flat_map(|line| line.split_whitespace()).collect();
    assert_eq!(shown, words, "every word once, in order, none cut:\n{screen}");
    assert!(answer.len() > 60 * 7 / 43, "laid out at 43 columns:\n{screen}");
    assert_eq!((screen.matches("✓ completed").count(), rules(&screen)), (1, 2), "{screen}");
}
