//! What resuming costs a run while it goes: at each turn's start the host takes the session's
//! snapshot, serialises it and replaces the rolling snapshot row in the store (one transaction),
//! so that a run killed with SIGKILL resumes from its last complete turn. The cost grows with the
//! history, which compaction bounds by the context window; this prints it for histories of
//! several sizes (each round an assistant message and a 2 KB tool output, as the model is sent
//! it after truncation), and what restoring such a snapshot costs.
//!
//! `cargo bench -p openagent-store --bench store_snapshot`

use std::rc::Rc;
use std::time::Instant;

use openagent_core::llm::http::HttpClient;
use openagent_core::llm::{Message, ToolResult, Usage};
use openagent_core::session::{Session, SessionSnapshot, Turn};
use openagent_core::setup::{profile, ProviderSettings};
use openagent_host::{LocalEnvironment, NativeHttpClient, NativeRuntime};
use openagent_store::{SessionInfo, Store};

const ROUNDS: [usize; 4] = [10, 100, 500, 2000];
const OUTPUT_BYTES: usize = 2_000;
const REPEATS: usize = 20;

fn main() {
    let dir = std::env::temp_dir().join(format!("openagent-snapshot-bench-{}", std::process::id()));
    let settings = ProviderSettings::resolve(Some("anthropic"), Some("claude-sonnet-4-5"), Some("http://127.0.0.1:9"), |_| {
        Some("bench-key".to_owned())
    })
    .expect("settings");
    let runtime = Rc::new(NativeRuntime::new());
    let env = Rc::new(LocalEnvironment::new(std::env::temp_dir()).expect("an environment"));
    let http: Rc<dyn HttpClient> = Rc::new(NativeHttpClient::new());
    let build = |snapshot: Option<SessionSnapshot>| {
        let builder = Session::builder(
            profile(settings.kind, "claude-sonnet-4-5", openagent_core::llm::catalog::Catalog::builtin()),
            env.clone(),
            settings.client(http.clone(), false),
            runtime.clone(),
        );
        match snapshot {
            Some(snapshot) => builder.restore(snapshot),
            None => builder,
        }
        .id("r_bench")
        .build()
    };

    let mut store = Store::open(&dir).expect("the store opens");
    store
        .create_session(&SessionInfo {
            id: "r_bench".into(),
            parent_id: None,
            task: "fix the bug".into(),
            provider: "anthropic".into(),
            model: "claude-sonnet-4-5".into(),
            working_directory: "/work".into(),
            created_at: "2026-01-01T00:00:00.000Z".into(),
            config: None,
        })
        .expect("a session");

    for rounds in ROUNDS {
        let mut snapshot = build(None).snapshot();
        snapshot.state.history = history(rounds);
        let session = build(Some(snapshot.clone()));

        let started = Instant::now();
        let mut json = String::new();
        for _ in 0..REPEATS {
            json = session.snapshot().to_json();
        }
        let take_ms = started.elapsed().as_secs_f64() * 1e3 / REPEATS as f64;
        let started = Instant::now();
        for seq in 0..REPEATS {
            store.save_snapshot("r_bench", seq as i64, false, "2026-01-01T00:00:00.000Z", &json).expect("saved");
        }
        let save_ms = started.elapsed().as_secs_f64() * 1e3 / REPEATS as f64;
        let started = Instant::now();
        for _ in 0..REPEATS {
            let parsed = SessionSnapshot::from_json(&json).expect("a snapshot");
            std::hint::black_box(build(Some(parsed)));
        }
        let restore_ms = started.elapsed().as_secs_f64() * 1e3 / REPEATS as f64;
        println!(
            "store_snapshot: {rounds:>4} rounds ({:>5} KB): snapshot + JSON {take_ms:.2} ms, into the store {save_ms:.2} ms, \
             parse + restore {restore_ms:.2} ms",
            json.len() / 1024
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A task, then `rounds` rounds of an assistant message and a tool output.
fn history(rounds: usize) -> Vec<Turn> {
    let mut history = vec![Turn::User { content: "fix the bug".into(), images: vec![], timestamp: 0 }];
    for n in 0..rounds {
        history.push(Turn::Assistant {
            message: Message::assistant(format!("Reading part {n} of the logs to find where the bug starts.")),
            usage: Usage::default(),
            response_id: None,
            timestamp: 0,
        });
        let result = ToolResult {
            tool_call_id: format!("call_{n}"),
            content: "x".repeat(OUTPUT_BYTES).into(),
            is_error: false,
            image_data: None,
            image_media_type: None,
        };
        history.push(Turn::ToolResults { results: vec![result], timestamp: 0 });
    }
    history
}
