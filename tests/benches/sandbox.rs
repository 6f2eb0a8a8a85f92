//! The sandbox's costs beside a native run's, against the mock LLM server on 127.0.0.1: start-up
//! (a one-answer task, from nothing to its end), the cost of each further tool round, and the
//! guest's one-off compile (what the `.cwasm` cache saves). Figures, not assertions.
//!
//! `cargo bench -p openagent-tests --features sandbox --bench sandbox` (scripts/bench), or, to
//! reuse the debug build of wasmtime the tests made, `cargo test -p openagent-tests --features
//! sandbox --bench sandbox` (slower host code; the guest's machine code is the same).
//! `OPENAGENT_SANDBOX_GUEST` names the guest; by default cargo's wasm32-wasip1/release one.

use std::path::PathBuf;
use std::rc::Rc;
use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt};
use openagent_core::setup::{profile, ProviderSettings};
use openagent_core::Session;
use openagent_host::{LocalEnvironment, NativeHttpClient, NativeRuntime};
use openagent_runner::{drive, Wake};
use openagent_sandbox_host::{Sandbox, SandboxEnd, SandboxLimits, SandboxRun};
use openagent_tests::{MockServer, Reply, Script, Step};
use serde_json::json;

const ROUNDS: usize = 20;
const REPEATS: usize = 5;

fn script(rounds: usize) -> MockServer {
    let reads = (0..rounds).map(|_| Step::reply(Reply::default().with_tool_call("read_file", json!({"file_path": "notes.txt"}))));
    MockServer::start(Script::new(reads.chain([Step::reply(Reply::text("done"))]))).expect("a loopback port")
}

fn settings(server: &MockServer) -> ProviderSettings {
    let vars = |name: &str| (name == "ANTHROPIC_API_KEY").then(|| "bench-key".to_owned());
    ProviderSettings::resolve(Some("anthropic"), Some("claude-bench"), Some(&server.base_url()), vars).expect("settings")
}

fn native(dir: &std::path::Path, rounds: usize) -> Duration {
    let server = script(rounds);
    let started = Instant::now();
    let runtime = Rc::new(NativeRuntime::new());
    let settings = settings(&server);
    let session = Session::builder(
        profile(settings.kind, "claude-bench", openagent_core::llm::catalog::Catalog::builtin()),
        Rc::new(LocalEnvironment::new(dir).expect("the directory")),
        settings.client(Rc::new(NativeHttpClient::new()), false),
        runtime.clone(),
    )
    .build();
    let result =
        runtime.block_on(drive(&session, session.submit("read"), &runtime, stream::pending().boxed_local(), |_: Wake<()>| {}));
    assert!(result.is_ok(), "{result:?}");
    started.elapsed()
}

fn sandboxed(guest: &std::path::Path, dir: &std::path::Path, rounds: usize) -> Duration {
    let server = script(rounds);
    let started = Instant::now();
    let sandbox = Sandbox::load(guest).expect("the guest loads");
    let end = sandbox.run(&SandboxRun::new(dir, "read", settings(&server), "claude-bench"), &SandboxLimits::default(), |_| {});
    assert!(matches!(end, SandboxEnd::Finished(_)), "{end:?}");
    started.elapsed()
}

/// The median of `REPEATS` runs.
fn median(mut run: impl FnMut() -> Duration) -> Duration {
    let mut times: Vec<Duration> = (0..REPEATS).map(|_| run()).collect();
    times.sort();
    times[REPEATS / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn main() {
    let guest = std::env::var_os("OPENAGENT_SANDBOX_GUEST").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/wasm32-wasip1/release/openagent-sandbox-guest.wasm")
    });
    let bytes = std::fs::read(&guest).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; build it with `cargo build -p openagent-sandbox-guest --release --target wasm32-wasip1`",
            guest.display()
        )
    });
    let dir = std::env::temp_dir().join(format!("openagent-bench-sandbox-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    std::fs::write(dir.join("notes.txt"), "hello\n".repeat(50)).expect("a file");

    let compile = Instant::now();
    Sandbox::from_bytes(&bytes).expect("the guest compiles");
    println!("sandbox: compiling the guest ({} KB) once, without the cache: {}", bytes.len() / 1024, ms(compile.elapsed()));
    sandboxed(&guest, &dir, 0); // fills the cache

    let (native_start, sandbox_start) = (median(|| native(&dir, 0)), median(|| sandboxed(&guest, &dir, 0)));
    let (native_many, sandbox_many) = (median(|| native(&dir, ROUNDS)), median(|| sandboxed(&guest, &dir, ROUNDS)));
    let per_round = |many: Duration, one: Duration| many.saturating_sub(one) / ROUNDS as u32;
    println!("start-up (a one-answer task, start to end, median of {REPEATS}):");
    println!("  native  {}", ms(native_start));
    println!("  sandbox {}  (+{})", ms(sandbox_start), ms(sandbox_start.saturating_sub(native_start)));
    println!("per tool round (read_file, {ROUNDS} rounds):");
    let (native_round, sandbox_round) = (per_round(native_many, native_start), per_round(sandbox_many, sandbox_start));
    println!("  native  {}", ms(native_round));
    println!("  sandbox {}  (+{})", ms(sandbox_round), ms(sandbox_round.saturating_sub(native_round)));
    let _ = std::fs::remove_dir_all(&dir);
}
