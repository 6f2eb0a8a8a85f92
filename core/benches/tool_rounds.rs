//! Microseconds per tool round of a scripted session: each round the model streams one
//! `read_file` call for a 10 KB file (start, tool-call start/delta/end, finish), the session runs
//! it and records the result. Sessions of 200, 1000 and 2000 rounds show whether a round's cost
//! grows with the history (it should not). Compaction is left on with a window no session here
//! fills, so the context estimate runs every round; the same sizes with compaction off show what
//! the estimate costs.
//!
//! Then a session saved and restored: the 2000-round one (20 MB of history, as compaction off
//! leaves it), and one whose 2000 rounds were compacted in a 128k-token window as they went.
//!
//! Natively: `cargo bench -p openagent-core --bench tool_rounds`.
//! Under wasm in Node, and natively: `scripts/bench` (under wasm it is the same code run as a
//! wasm-bindgen test).

#![cfg_attr(target_arch = "wasm32", no_main)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use async_trait::async_trait;
use futures::future::join;
use futures::StreamExt;
use openagent_core::llm::{
    stream_events, EventStream, FinishReason, LlmClient, LlmError, Message, Reason, Request, Response, ScriptStep,
    ScriptedClient, StreamEvent, ToolCall, Usage,
};
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::{EventData, SessionBuilder, SessionSnapshot};
use openagent_core::tools::{register_core_tools, ToolRegistry};
use openagent_core::{CoreProfile, ExecutionEnvironment, Session, SessionConfig};
use openagent_memenv::MemoryEnvironment;
use serde_json::json;

const SIZES: [usize; 3] = [200, 1000, 2000];

fn read_round(i: usize, path: &str) -> ScriptStep {
    let call_id = format!("call_{i}");
    // Each round's call differs (its line limit, far above the file's length): the same call
    // again would be a repeat, which the session answers with a note instead of the file.
    let args = json!({ "file_path": path, "limit": 1000 + i }).to_string();
    let (head, tail) = args.split_at(args.len() / 2);
    ScriptStep::Events(vec![
        StreamEvent::StreamStart { id: Some(format!("resp_{i}")), model: Some("bench".into()), warnings: vec![] },
        StreamEvent::ToolCallStart { call_id: call_id.clone(), name: "read_file".into() },
        StreamEvent::ToolCallDelta { call_id: call_id.clone(), delta: head.into() },
        StreamEvent::ToolCallDelta { call_id: call_id.clone(), delta: tail.into() },
        StreamEvent::ToolCallEnd { tool_call: ToolCall::from_raw(call_id, "read_file", args.clone()) },
        StreamEvent::Finish { finish_reason: FinishReason::new(Reason::ToolCalls, Some("tool_use")), usage: Usage::new(100, 20) },
    ])
}

/// Compaction on, in a window these sessions never fill: the estimate runs, nothing compacts.
fn estimating() -> SessionConfig {
    SessionConfig { context_window: Some(usize::MAX), ..SessionConfig::default() }
}

fn compaction_off() -> SessionConfig {
    SessionConfig { compaction_threshold_percent: 0, ..SessionConfig::default() }
}

/// A session over an in-memory project with one 10 KB file, and `client` as its model.
fn builder(client: impl LlmClient + 'static, config: SessionConfig) -> SessionBuilder {
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    let line = "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 abcdefghijklmnopqrs\n";
    let file: String = line.repeat(10_240 / line.len() + 1)[..10_240].to_owned();
    futures::executor::block_on(env.write_file("src/data.txt", &file)).expect("seed file");
    futures::executor::block_on(env.write_file("src/small.txt", &file[..1_024])).expect("seed file");
    let mut registry = ToolRegistry::new();
    register_core_tools(&mut registry);
    let profile = Rc::new(CoreProfile::new("bench", registry).with_context_window_size(128_000));
    Session::builder(profile, env, Rc::new(client), runtime).config(config).id("bench")
}

/// Builds a session scripted for `rounds` rounds; returns it and a future that runs it to the end
/// while draining its events, as a host would.
fn scenario(rounds: usize, config: SessionConfig) -> (Session, impl std::future::Future<Output = usize>) {
    run(builder(script(rounds), config).build())
}

/// The same rounds, compacting in a 128k-token window as they go; the model writes the summaries.
fn compacted(rounds: usize) -> (Session, impl std::future::Future<Output = usize>) {
    run(builder(Summarising(script(rounds)), SessionConfig::default()).build())
}

fn script(rounds: usize) -> ScriptedClient {
    script_reading(rounds, "src/data.txt")
}

fn script_reading(rounds: usize, path: &str) -> ScriptedClient {
    let mut steps: Vec<ScriptStep> = (0..rounds).map(|i| read_round(i, path)).collect();
    steps.push(ScriptStep::text("done"));
    ScriptedClient::new(steps).without_recording()
}

/// Answers a summary request (one without tools) itself, and every other request from the script.
struct Summarising(ScriptedClient);

#[async_trait(?Send)]
impl LlmClient for Summarising {
    fn provider(&self) -> &str {
        self.0.provider()
    }

    async fn complete(&self, request: &Request) -> Result<Response, LlmError> {
        self.0.complete(request).await
    }

    async fn stream(&self, request: &Request) -> Result<EventStream, LlmError> {
        if request.tools.is_empty() {
            let summary = Message::assistant("The agent read src/data.txt many times; it holds 10 KB of letters and digits.");
            let response = Response {
                id: "summary".into(),
                model: "bench".into(),
                provider: "bench".into(),
                message: summary,
                finish_reason: FinishReason::new(Reason::Stop, None),
                usage: Usage::new(30_000, 40),
                raw: None,
                warnings: vec![],
                rate_limit: None,
            };
            return Ok(Box::pin(futures::stream::iter(stream_events(&response))));
        }
        self.0.stream(request).await
    }
}

/// A future that submits the task and drains the events while it runs, as a host would.
fn run(session: Session) -> (Session, impl std::future::Future<Output = usize>) {
    let mut events = session.events();
    let run = {
        let session = session.clone();
        async move {
            let drain = async {
                let mut count = 0;
                while let Some(event) = events.next().await {
                    count += 1;
                    if matches!(event.data, EventData::ProcessingEnd { .. }) {
                        break;
                    }
                }
                count
            };
            let (result, count) = join(session.submit("read the data file many times"), drain).await;
            result.expect("the scripted run completes");
            count
        }
    };
    (session, run)
}

/// Runs each size and reports µs per round through `now_ms` (a clock in milliseconds).
fn run_all(now_ms: impl Fn() -> f64, print: impl Fn(String)) {
    // Warm up the allocator, the caches and, under wasm, V8's optimising tiers, which compile in
    // the background: for a second, as one 1000-round run left the first measured size three to
    // eight times as slow in Node.
    let warm_up = now_ms();
    while now_ms() - warm_up < 1000.0 {
        let (_s, run) = scenario(1000, estimating());
        futures::executor::block_on(run);
    }
    let mut figures = Vec::new();
    for (label, config) in [("", estimating as fn() -> SessionConfig), (" (compaction off)", compaction_off)] {
        let mut per_round = Vec::new();
        for rounds in SIZES {
            // The best of five runs: the figure least disturbed by the rest of the machine (on a
            // shared one, runs of the same build differ by a fifth).
            let mut best = f64::MAX;
            let mut events = 0;
            for _ in 0..5 {
                let (_session, run) = scenario(rounds, config());
                let start = now_ms();
                events = futures::executor::block_on(run);
                best = best.min((now_ms() - start) * 1000.0 / rounds as f64);
            }
            per_round.push(best);
            print(format!("tool_rounds: {rounds:>5} rounds  {best:>8.2} µs/round  ({events} events, best of 5){label}"));
        }
        print(format!("tool_rounds: 2000-round / 200-round cost per round = {:.2}{label}", per_round[2] / per_round[0]));
        figures.push(per_round);
    }
    let ratio = |i: usize| figures[0][i] / figures[1][i];
    print(format!(
        "tool_rounds: the context estimate's cost: with / without = {:.3}, {:.3}, {:.3} at {:?} rounds",
        ratio(0),
        ratio(1),
        ratio(2),
        SIZES
    ));

    COUNTING.store(true, Ordering::Relaxed);
    let before = LIVE.load(Ordering::Relaxed);
    let (session, run) = scenario(2000, compaction_off());
    futures::executor::block_on(run);
    let held = LIVE.load(Ordering::Relaxed).saturating_sub(before) as f64 / 1e6;
    COUNTING.store(false, Ordering::Relaxed);
    print(format!(
        "memory: 2000 rounds, 10 KB of tool output each (20.5 MB): the session holds {held:.1} MB, {:.1} MB per 1000 rounds; \
         {}",
        held / 2.0,
        resident()
    ));
    print(save_and_restore("2000 rounds, 10 KB each, not compacted", &session, &now_ms));
    let (session, run) = self::run(builder(script_reading(2000, "src/small.txt"), compaction_off()).build());
    futures::executor::block_on(run);
    print(save_and_restore("2000 rounds, 1 KB each, not compacted", &session, &now_ms));
    let (session, run) = compacted(2000);
    futures::executor::block_on(run);
    print(save_and_restore("2000 rounds, 10 KB each, compacted in a 128k window", &session, &now_ms));
}

/// Times `Session::snapshot` with its JSON, then reading the JSON back and building the restored
/// session (best of three each).
fn save_and_restore(label: &str, session: &Session, now_ms: &impl Fn() -> f64) -> String {
    let (mut save, mut restore, mut size) = (f64::MAX, f64::MAX, 0);
    for _ in 0..3 {
        let start = now_ms();
        let json = session.snapshot().to_json();
        let saved = now_ms();
        let snapshot = SessionSnapshot::from_json(&json).expect("its own snapshot reads back");
        let restored = builder(ScriptedClient::new([]), SessionConfig::default()).restore(snapshot).build();
        let done = now_ms();
        assert_eq!(restored.history().len(), session.history().len());
        (save, restore, size) = (save.min(saved - start), restore.min(done - saved), json.len());
    }
    format!(
        "snapshot: {label}: {} turns, {:.1} MB: snapshot {save:.1} ms + restore {restore:.1} ms = {:.1} ms (best of 3)",
        session.history().len(),
        size as f64 / 1e6,
        save + restore
    )
}

/// Counts the bytes allocated and not yet freed while `COUNTING` is on, so a figure says what the
/// session itself holds (resident memory also counts what the allocator keeps for later). Off
/// while rounds are timed: an atomic add on every allocation was a tenth of a round.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static COUNTING: AtomicBool = AtomicBool::new(false);

fn count(grown: usize, shrunk: usize) {
    if COUNTING.load(Ordering::Relaxed) {
        LIVE.fetch_add(grown, Ordering::Relaxed);
        LIVE.fetch_sub(shrunk, Ordering::Relaxed);
    }
}

// SAFETY: every call goes to the system allocator unchanged; only the count is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size(), 0);
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(0, layout.size());
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size, layout.size());
        System.realloc(ptr, layout, new_size)
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The process's resident memory (Linux), or the wasm module's linear memory.
#[cfg(not(target_arch = "wasm32"))]
fn resident() -> String {
    let pages = std::fs::read_to_string("/proc/self/statm").ok().and_then(|s| s.split(' ').nth(1)?.parse::<f64>().ok());
    pages.map_or("resident memory unknown here".into(), |pages| format!("the process is {:.1} MB resident", pages * 4096.0 / 1e6))
}

#[cfg(target_arch = "wasm32")]
fn resident() -> String {
    format!("the linear memory is {:.1} MB", (core::arch::wasm32::memory_size(0) * 65536) as f64 / 1e6)
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    let origin = std::time::Instant::now();
    run_all(move || origin.elapsed().as_secs_f64() * 1000.0, |line| println!("{line}"));
}

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen_test::wasm_bindgen_test]
fn tool_rounds() {
    // performance.now(): sub-millisecond, in browsers and in Node alike.
    let global = js_sys::global();
    let performance = js_sys::Reflect::get(&global, &"performance".into()).expect("performance");
    let now: js_sys::Function = js_sys::Reflect::get(&performance, &"now".into()).expect("performance.now").into();
    let now_ms = move || now.call0(&performance).ok().and_then(|v| v.as_f64()).unwrap_or(0.0);
    run_all(now_ms, |line| wasm_bindgen_test::console_log!("{}", line));
}
