//! What the session store costs a run: opening it and creating the session (paid before the
//! first model request), closing it (paid after the run), and appending one event, each its own transaction in WAL mode with
//! `synchronous=NORMAL`, as `openagent run` does for every event. Beside it, the same lines
//! written and flushed to a file, as `--events` does.
//!
//! `cargo bench -p openagent-store --bench store_append`

use std::io::{BufWriter, Write};
use std::time::Instant;

use openagent_core::session::{EventData, SessionEvent};
use openagent_store::{SessionInfo, Store};

const EVENTS: usize = 5_000;
const OPENS: usize = 20;

fn main() {
    let dir = std::env::temp_dir().join(format!("openagent-store-bench-{}", std::process::id()));
    let session = |id: String| SessionInfo {
        id,
        parent_id: None,
        task: "summarise the notes".into(),
        provider: "anthropic".into(),
        model: "claude-sonnet-4-5".into(),
        working_directory: "/work".into(),
        created_at: "2026-01-01T00:00:00.000Z".into(),
        config: None,
    };

    // Kept open: a run closes its store only when it ends (closing leaves the log for the next
    // run, and is timed below).
    let mut open = Vec::with_capacity(OPENS);
    let started = Instant::now();
    for n in 0..OPENS {
        let mut store = Store::open(&dir).expect("the store opens");
        store.create_session(&session(format!("r_open_{n}"))).expect("a session");
        open.push(store);
    }
    let open_us = started.elapsed().as_secs_f64() * 1e6 / OPENS as f64;
    let started = Instant::now();
    drop(open);
    let close_us = started.elapsed().as_secs_f64() * 1e6 / OPENS as f64;

    // A streamed answer's deltas: the most frequent event, and a small one.
    let events: Vec<(SessionEvent, String)> = (0..EVENTS)
        .map(|n| {
            let delta = format!("word{n} ");
            let event = SessionEvent {
                timestamp: "2026-01-01T00:00:01.000Z".into(),
                session_id: "r_bench".into(),
                data: EventData::AssistantTextDelta { delta },
            };
            let json = serde_json::to_string(&event).expect("events serialise");
            (event, json)
        })
        .collect();

    let mut store = Store::open(&dir).expect("the store opens");
    store.create_session(&session("r_bench".into())).expect("a session");
    let started = Instant::now();
    for (seq, (event, json)) in (1..).zip(&events) {
        store.append_event("r_bench", seq, event, json).expect("an event");
    }
    let append_us = started.elapsed().as_secs_f64() * 1e6 / EVENTS as f64;

    let mut file = BufWriter::new(std::fs::File::create(dir.join("events.jsonl")).expect("a file"));
    let started = Instant::now();
    for (_, json) in &events {
        writeln!(file, "{json}").and_then(|()| file.flush()).expect("a line");
    }
    let file_us = started.elapsed().as_secs_f64() * 1e6 / EVENTS as f64;

    println!("store_append: open + create session {open_us:.0} µs; close {close_us:.0} µs");
    println!("store_append: one event, one transaction: {append_us:.1} µs ({EVENTS} events)");
    println!("store_append: the same line to a flushed file: {file_us:.1} µs");
    let _ = std::fs::remove_dir_all(&dir);
}
