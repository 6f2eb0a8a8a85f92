//! The sandboxed host (`openagent-sandbox-host`, the tests' `sandbox` feature) with the real guest
//! (`openagent-sandbox-guest` built for wasm32-wasip1) against the mock LLM server: what the
//! agent inside can reach and what it cannot, the caps, and that its events are a native run's.
//!
//! Run with `cargo test -p openagent-tests --features sandbox --test sandbox`. The guest is built
//! by [`guest`] (a no-op when fresh), so the suite needs only the wasm32-wasip1 target installed.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::rc::Rc;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use futures::stream::{self, StreamExt};
use openagent_core::approval::ApprovalMode;
use openagent_core::session::{EventData, SessionEvent};
use openagent_core::setup::{profile, ProviderSettings};
use openagent_core::{Session, SessionConfig};
use openagent_host::{LocalEnvironment, NativeHttpClient, NativeRuntime};
use openagent_runner::{drive, AgentOptions, LimitFlags, OutputMode, Projector, RunArgs, RunInfo, Wake};
use openagent_sandbox_host::{run_cli, Sandbox, SandboxArgs, SandboxEnd, SandboxLimits, SandboxRun};
use openagent_store::{SessionFilter, Status, Store};
use openagent_tests::over_http::{serve, KEY};
use openagent_tests::{MockServer, Reply, Step, ToolCall};
use serde_json::{json, Value};

const SECRET: &str = "outside-secret-7c1f";

/// The guest module's file, built once per test process with the cargo running the tests.
fn guest_path() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| {
        let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cargo.args(["build", "--quiet", "--message-format=json", "-p", "openagent-sandbox-guest", "--release"]);
        cargo.args(["--target", "wasm32-wasip1"]).current_dir(env!("CARGO_MANIFEST_DIR"));
        // As in src/cli.rs: a nested cargo must not see this crate's per-crate variables.
        for (name, _) in std::env::vars_os() {
            let name = name.to_string_lossy();
            if ["CARGO_PKG_", "CARGO_MANIFEST_", "CARGO_BIN_EXE_"].iter().any(|p| name.starts_with(p))
                || ["CARGO_CRATE_NAME", "CARGO_PRIMARY_PACKAGE", "CARGO_TARGET_TMPDIR", "OUT_DIR"].contains(&&*name)
            {
                cargo.env_remove(&*name);
            }
        }
        let output = cargo.stderr(Stdio::inherit()).output().expect("cargo runs");
        assert!(output.status.success(), "building the guest failed (its errors are above)");
        String::from_utf8_lossy(&output.stdout)
            .lines()
            .filter_map(|line| serde_json::from_str::<Value>(line).ok())
            .filter(|m| m["reason"] == "compiler-artifact" && m["target"]["name"] == "openagent-sandbox-guest")
            .flat_map(|m| m["filenames"].as_array().cloned().unwrap_or_default())
            .filter_map(|f| f.as_str().map(PathBuf::from))
            .find(|f| f.extension().is_some_and(|e| e == "wasm"))
            .expect("cargo reported the guest's .wasm")
    })
}

/// The guest module, compiled once per test process.
fn guest() -> &'static Sandbox {
    static GUEST: OnceLock<Sandbox> = OnceLock::new();
    GUEST.get_or_init(|| Sandbox::load(guest_path()).expect("the guest compiles"))
}

/// A directory for one test: `dir/` is the agent's, `secret.txt` sits beside it.
struct Place(PathBuf);

impl Place {
    fn new(name: &str) -> Self {
        let root = std::env::temp_dir().join(format!("openagent-sandbox-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("dir")).unwrap();
        std::fs::write(root.join("secret.txt"), SECRET).unwrap();
        Self(root.canonicalize().unwrap())
    }

    fn dir(&self) -> PathBuf {
        self.0.join("dir")
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn settings(server: &MockServer) -> ProviderSettings {
    let vars = |name: &str| (name == "ANTHROPIC_API_KEY").then(|| KEY.to_owned());
    ProviderSettings::resolve(Some("anthropic"), Some("claude-test"), Some(&server.base_url()), vars).unwrap()
}

/// Runs `task` in the sandbox on `dir`, collecting the events.
fn sandboxed(dir: &Path, server: &MockServer, task: &str) -> (Vec<SessionEvent>, SandboxEnd) {
    let mut run = SandboxRun::new(dir, task, settings(server), "claude-test");
    run.config.session_id = "s_sandbox".into();
    let mut events = Vec::new();
    let end = guest().run(&run, &SandboxLimits::default(), |wake| {
        if let Wake::Event(event) = wake {
            events.push(event);
        }
    });
    (events, end)
}

/// One reply calling each of `calls` (tool, arguments), with ids `c0`, `c1`, ...
fn calls(calls: &[(&str, Value)]) -> Step {
    let tool_calls = calls
        .iter()
        .enumerate()
        .map(|(i, (name, arguments))| ToolCall { name: (*name).into(), arguments: arguments.clone(), id: Some(format!("c{i}")) })
        .collect();
    Step::reply(Reply { tool_calls, ..Reply::default() })
}

/// Each call's (output, error), by call id.
fn results(events: &[SessionEvent]) -> std::collections::HashMap<String, (Option<String>, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match &e.data {
            EventData::ToolCallEnd { call_id, output, error, .. } => {
                Some((call_id.clone(), (output.as_deref().map(str::to_owned), error.clone())))
            }
            _ => None,
        })
        .collect()
}

#[test]
fn reads_and_writes_inside_dir_and_is_refused_everything_else() {
    let place = Place::new("fs");
    let dir = place.dir();
    std::fs::write(dir.join("notes.txt"), "hello from inside\n").unwrap();
    std::os::unix::fs::symlink(place.0.join("secret.txt"), dir.join("link")).unwrap();
    let server = serve([
        calls(&[
            ("read_file", json!({"file_path": "notes.txt"})),
            ("write_file", json!({"file_path": "out/made.txt", "content": "written inside\n"})),
            ("read_file", json!({"file_path": "/etc/passwd"})),
            ("read_file", json!({"file_path": "../../../secret.txt"})),
            ("write_file", json!({"file_path": "/tmp/escape.txt", "content": "x"})),
            ("read_file", json!({"file_path": "link"})),
            ("shell", json!({"command": "cat /etc/passwd"})),
            ("shell", json!({"command": "echo overwritten > link"})),
            ("shell", json!({"command": "echo by-shell > shell.txt && ls"})),
        ]),
        Step::reply(Reply::text("done")),
    ]);
    let (events, end) = sandboxed(&dir, &server, "probe the sandbox");
    assert!(matches!(&end, SandboxEnd::Finished(guest) if guest.stop.is_some()), "{end:?}");
    let results = results(&events);
    let ok = |id: &str| results[id].0.clone().unwrap_or_else(|| panic!("{id} failed: {:?}", results[id]));
    let refused = |id: &str| {
        let (output, error) = &results[id];
        error
            .clone()
            .or_else(|| output.clone().filter(|o| o.contains("Exit code: 1")))
            .unwrap_or_else(|| panic!("{id} was not refused: {output:?}"))
    };
    assert!(ok("c0").contains("hello from inside"));
    assert_eq!(std::fs::read_to_string(dir.join("out/made.txt")).unwrap(), "written inside\n");
    assert!(refused("c2").contains("outside the sandbox"), "{}", refused("c2"));
    assert!(refused("c3").contains("escapes the environment root"), "{}", refused("c3"));
    assert!(refused("c4").contains("outside the sandbox"), "{}", refused("c4"));
    assert!(refused("c5").contains("not found"), "{}", refused("c5"));
    refused("c6");
    refused("c7");
    assert!(ok("c8").contains("shell.txt"));
    assert_eq!(std::fs::read_to_string(dir.join("shell.txt")).unwrap(), "by-shell\n");
    // Nothing outside DIR was read or changed.
    assert_eq!(std::fs::read_to_string(place.0.join("secret.txt")).unwrap(), SECRET);
    assert!(!Path::new("/tmp/escape.txt").exists());
    let all = serde_json::to_string(&events.iter().map(|e| serde_json::to_value(e).unwrap()).collect::<Vec<_>>()).unwrap();
    assert!(!all.contains(SECRET) && !all.contains("root:x:0:0"), "something from outside reached the events");
}

#[test]
fn the_key_stays_in_the_host_and_other_hosts_are_refused() {
    let place = Place::new("key");
    let server = serve([Step::reply(Reply::text("hi"))]);
    let (_, end) = sandboxed(&place.dir(), &server, "say hi");
    assert!(matches!(&end, SandboxEnd::Finished(_)), "{end:?}");
    let requests = server.requests();
    assert_eq!(requests[0].header("x-api-key"), Some(KEY), "the host adds the key");
    let run = SandboxRun::new(place.dir(), "t", settings(&server), "m");
    assert!(!serde_json::to_string(&run.config).unwrap().contains(KEY), "the guest's configuration holds no key");

    // A guest that asks the model import for another host (here a second server) gets a
    // transport error, and the other host never hears of it.
    let other = serve([Step::reply(Reply::text("never"))]);
    let request = json!({"method": "POST", "url": format!("{}/v1/messages", other.base_url()), "headers": [["x-api-key", "guest"]], "body": "{}"});
    let request = request.to_string().replace('\\', "\\\\").replace('"', "\\\"");
    let wat = format!(
        r#"(module
            (import "openagent" "model_request" (func $request (param i32 i32) (result i32)))
            (import "openagent" "model_read" (func $read (param i32 i32 i32) (result i32)))
            (memory (export "memory") 1)
            (data (i32.const 0) "{request}")
            (func (export "_start")
              (if (i32.ge_s (call $read (call $request (i32.const 0) (i32.const {len})) (i32.const 4096) (i32.const 1024)) (i32.const 0))
                (then unreachable))))"#,
        len = request.replace("\\\"", "\"").replace("\\\\", "\\").len(),
    );
    let probe = Sandbox::from_bytes(wat.as_bytes()).unwrap();
    let end = probe.run(&run, &SandboxLimits::default(), |_| {});
    // No trap (`unreachable` would say so): the read failed, and the probe ended without an end record.
    assert!(matches!(&end, SandboxEnd::Failed(m) if m.contains("without reporting")), "{end:?}");
    assert!(other.requests().is_empty(), "the other host was reached");
}

/// Runs the module `wat` as the guest; `name` names its directory (tests run at once: each its own).
fn probe(name: &str, wat: &str, limits: &SandboxLimits) -> (SandboxEnd, Duration) {
    let place = Place::new(name);
    let server = serve([]);
    let run = SandboxRun::new(place.dir(), "t", settings(&server), "m");
    // Compiled before the clock starts: wasmtime compiles on a shared thread pool, where this
    // module can wait behind the agent guest another test is compiling.
    let sandbox = Sandbox::from_bytes(wat.as_bytes()).unwrap();
    let started = Instant::now();
    let end = sandbox.run(&run, limits, |_| {});
    (end, started.elapsed())
}

#[test]
fn a_guest_stuck_in_a_loop_is_stopped_by_the_time_cap() {
    let limits = SandboxLimits { timeout: Duration::from_millis(300), ..SandboxLimits::default() };
    let (end, took) = probe("loop", r#"(module (memory (export "memory") 1) (func (export "_start") (loop (br 0))))"#, &limits);
    assert_eq!(end, SandboxEnd::TimedOut(limits.timeout));
    assert!(took < Duration::from_secs(5), "stopped after {took:?}");
}

#[test]
fn a_guest_that_allocates_without_end_is_stopped_by_the_memory_cap() {
    let limits = SandboxLimits { memory_bytes: 16 << 20, ..SandboxLimits::default() };
    let wat = r#"(module (memory (export "memory") 1)
        (func (export "_start") (loop (drop (memory.grow (i32.const 16))) (br 0))))"#;
    let (end, _) = probe("grow", wat, &limits);
    assert_eq!(end, SandboxEnd::OutOfMemory(16 << 20));
}

/// The same script, natively: the session on the local filesystem, as `openagent run` has it.
fn native(dir: &Path, server: &MockServer, task: &str) -> Vec<SessionEvent> {
    let runtime = Rc::new(NativeRuntime::new());
    let settings = settings(server);
    let session = Session::builder(
        profile(settings.kind, "claude-test", openagent_core::llm::catalog::Catalog::builtin()),
        Rc::new(LocalEnvironment::new(dir).unwrap()),
        settings.client(Rc::new(NativeHttpClient::new()), false),
        runtime.clone(),
    )
    .id("s_native")
    .config(SessionConfig::default())
    .build();
    let mut events = Vec::new();
    let result =
        runtime.block_on(drive(&session, session.submit(task), &runtime, stream::pending().boxed_local(), |wake: Wake<()>| {
            if let Wake::Event(event) = wake {
                events.push(event);
            }
        }));
    assert!(result.is_ok(), "{result:?}");
    events
}

/// An event's kind and the keys of its data, recursively: its shape, without its values.
fn shape(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(map.iter().map(|(k, v)| (k.clone(), shape(v))).collect()),
        Value::Array(items) => Value::Array(items.iter().map(shape).collect()),
        Value::Null => Value::Null,
        _ => Value::Bool(true),
    }
}

#[test]
fn its_events_have_the_shape_of_a_native_runs() {
    let script = || {
        serve([
            calls(&[
                ("read_file", json!({"file_path": "notes.txt"})),
                ("write_file", json!({"file_path": "a.txt", "content": "a"})),
            ]),
            Step::reply(Reply::text("The notes say hello.")),
        ])
    };
    let (here, there) = (Place::new("shape-native"), Place::new("shape-sandbox"));
    for place in [&here, &there] {
        std::fs::write(place.dir().join("notes.txt"), "hello\n").unwrap();
    }
    let native_events = native(&here.dir(), &script(), "summarise");
    let (sandbox_events, end) = sandboxed(&there.dir(), &script(), "summarise");
    assert!(matches!(end, SandboxEnd::Finished(_)), "{end:?}");
    let kinds = |events: &[SessionEvent]| events.iter().map(SessionEvent::kind).collect::<Vec<_>>();
    assert_eq!(kinds(&sandbox_events), kinds(&native_events));
    for (s, n) in sandbox_events.iter().zip(&native_events) {
        let (s, n) = (serde_json::to_value(s).unwrap(), serde_json::to_value(n).unwrap());
        // Environment facts differ (the working directory, the platform in the prompt): the
        // envelope and data keys may not.
        if s["kind"] != "session_start" {
            assert_eq!(shape(&s), shape(&n), "{s} vs {n}");
        }
    }
    // And the v1 projection sees the same run.
    let project = |events: &[SessionEvent]| {
        let mut projector = Projector::new("r", RunInfo::default(), false);
        events
            .iter()
            .flat_map(|e| projector.project(e))
            .map(|line| serde_json::from_str::<Value>(&line).unwrap()["type"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(project(&sandbox_events), project(&native_events));
}

/// `openagent sandbox run` as the command line calls it, against `server` (an OpenAI-compatible
/// server needs no key), keeping its artifacts and session store in `data_dir`.
fn sandbox_cli(dir: &Path, server: &MockServer, task: &str, data_dir: &Path, agent: Option<&str>) -> u8 {
    run_cli(SandboxArgs {
        run: RunArgs {
            task: task.into(),
            agent: AgentOptions {
                provider: Some("openai-compatible".into()),
                model: Some("local-model".into()),
                base_url: Some(format!("{}/v1", server.base_url())),
                cwd: Some(dir.to_owned()),
                agent: agent.map(str::to_owned),
                env_pass: Vec::new(),
                approval: None,
                default_approval: ApprovalMode::FullAuto,
                sandbox: Default::default(),
                data_dir: Some(data_dir.to_owned()),
            },
            limits: LimitFlags::default(),
            output: OutputMode::Json,
            events: None,
            stream: false,
            data_dir: data_dir.to_owned(),
            resume: None,
        },
        guest: Some(guest_path().to_owned()),
        limits: SandboxLimits::default(),
    })
}

#[test]
fn a_sandboxed_run_is_a_session_in_the_store_with_its_events_and_result() {
    let place = Place::new("store");
    std::fs::write(place.dir().join("notes.txt"), "hello\n").unwrap();
    let data_dir = place.0.join("data");
    let server =
        serve([calls(&[("read_file", json!({"file_path": "notes.txt"}))]), Step::reply(Reply::text("The notes say hello."))]);
    assert_eq!(sandbox_cli(&place.dir(), &server, "summarise the notes", &data_dir, None), 0);

    let store = Store::open(&data_dir).unwrap();
    let sessions = store.sessions(&SessionFilter::default()).unwrap();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let session = &sessions[0];
    assert_eq!((session.info.task.as_str(), session.info.provider.as_str()), ("summarise the notes", "openai-compatible"));
    assert_eq!(session.info.working_directory, place.dir().display().to_string());
    assert_eq!((session.status, session.exit_reason.as_deref()), (Status::Finished, Some("completed")));
    let config = session.info.config.as_ref().expect("the run's config is kept");
    assert_eq!(config["run_id"], json!(session.info.id));
    // The same events as the run's artifacts, in the same order.
    let stored: Vec<String> = store.events_after(&session.info.id, 0, None).unwrap().into_iter().map(|e| e.kind).collect();
    let artifacts = std::fs::read_to_string(data_dir.join("runs").join(&session.info.id).join("events.jsonl")).unwrap();
    let written: Vec<String> =
        artifacts.lines().map(|line| serde_json::from_str::<Value>(line).unwrap()["kind"].as_str().unwrap().to_owned()).collect();
    assert!(stored.contains(&"tool_call_end".to_owned()), "{stored:?}");
    assert_eq!(stored, written);
    assert_eq!(store.result(&session.info.id).unwrap().result_text, "The notes say hello.");
}

#[test]
fn an_agent_config_is_refused_before_anything_is_written() {
    let place = Place::new("agent");
    let data_dir = place.0.join("data");
    let server = serve([]);
    assert_eq!(sandbox_cli(&place.dir(), &server, "review", &data_dir, Some("reviewer")), 2);
    assert!(!data_dir.exists());
}

#[test]
fn a_directory_with_hooks_is_refused_rather_than_run_without_them() {
    let place = Place::new("hooks");
    std::fs::create_dir_all(place.dir().join(".openagent")).unwrap();
    std::fs::write(place.dir().join(".openagent/hooks.json"), r#"{"hooks": {"pre_tool_use": [{"command": "exit 2"}]}}"#).unwrap();
    let data_dir = place.0.join("data");
    let server = serve([]);
    assert_eq!(sandbox_cli(&place.dir(), &server, "review", &data_dir, None), 2);
    assert!(server.requests().is_empty(), "the model was never called");
    assert!(!data_dir.exists());
}

/// Sets `stop` after `after`, from another thread, as Ctrl-C does.
fn stop_later(stop: std::sync::Arc<std::sync::atomic::AtomicBool>, after: Duration) {
    std::thread::spawn(move || {
        std::thread::sleep(after);
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
    });
}

#[test]
fn a_stop_request_ends_a_guest_computing_or_waiting_for_the_model() {
    // Computing: the busy loop the time cap stops, stopped long before the cap.
    let place = Place::new("stop-loop");
    let server = serve([]);
    let run = SandboxRun::new(place.dir(), "t", settings(&server), "m");
    let wat = r#"(module (memory (export "memory") 1) (func (export "_start") (loop (br 0))))"#;
    // Compiled before the clock starts (see `probe`).
    let looping = Sandbox::from_bytes(wat.as_bytes()).unwrap();
    stop_later(run.stop.clone(), Duration::from_millis(200));
    let started = Instant::now();
    let end = looping.run(&run, &SandboxLimits::default(), |_| {});
    assert_eq!(end, SandboxEnd::Stopped);
    assert!(started.elapsed() < Duration::from_secs(5), "stopped after {:?}", started.elapsed());

    // Waiting: the real agent on a model that takes 30 s to answer.
    let place = Place::new("stop-wait");
    let server = serve([Step::slow_first_byte(30_000, Reply::text("too late"))]);
    let run = SandboxRun::new(place.dir(), "say hello", settings(&server), "claude-test");
    let guest = guest(); // compiled (once, for every test) before the clock starts
    stop_later(run.stop.clone(), Duration::from_millis(500));
    let started = Instant::now();
    let end = guest.run(&run, &SandboxLimits::default(), |_| {});
    assert_eq!(end, SandboxEnd::Stopped);
    assert!(started.elapsed() < Duration::from_secs(10), "stopped after {:?}", started.elapsed());
}
