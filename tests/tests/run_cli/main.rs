//! `openagent run` driven as a CI pipeline drives it: the real binary, a mock LLM server on
//! 127.0.0.1, a sandboxed working and data directory. This file holds the `openagent.run_event.v1`
//! contract's integration tests, under the names its test plan gives them; `outcomes` holds the
//! rest of the CLI's behaviour (human output, `--events`, artifacts, exit codes, retries, the
//! interactive session); `sessions` the session store as `openagent sessions` reads it; `agents`
//! the agent configs (`agents list`, `run --agent`, structured results); `serve` the HTTP API of
//! `openagent serve`, through the client in `api`; `resume` sessions taken up again (resume,
//! continue, fork, after SIGKILL, over serve); `files` the file tools' guards (special files,
//! the workspace boundary); `config_files` config files that are FIFOs, devices or too large; `contract_docs` the README's table of v1 types against the core's list; `signals` how the CLI and serve end on each signal with a command
//! running; `approval` the approval policies (run, agent configs, the terminal's questions); `sandbox` the sandbox policy's flags, config, serve field and `/sandbox`; `images` the images a task attaches as `@path`; `tui` the interactive screen in tmux (`tmux`). `support` says how the binary is found.

mod agents;
mod api;
mod approval;
mod config_files;
mod confinement;
mod contract_docs;
mod files;
mod hooks;
mod images;
mod models;
mod outcomes;
mod resume;
mod sandbox;
mod secrets;
mod serve;
mod sessions;
mod signals;
mod terminal;
mod tmux;
mod tui;

use std::collections::BTreeSet;

use openagent_tests::{Reply, Step, ToolCall};
use serde_json::{json, Value};

use openagent_core::run_event::TYPES as PROJECTED_TYPES;
use openagent_tests::cli::{read_events, Finished, Pipe, Running, Sandbox, ENVELOPE};
use openagent_tests::over_http::serve;

const NOTES: &str = "notes.txt";
const TASK: &str = "summarise the notes";
const ANSWER: &str = "The notes say hello, twice.";

/// A reply calling `tool` with `arguments` under a fixed call id (the mock would number its own,
/// differently on a second run against the same server).
fn call(id: &str, tool: &str, arguments: Value) -> Step {
    Step::reply(Reply { tool_calls: vec![ToolCall { name: tool.into(), arguments, id: Some(id.into()) }], ..Reply::default() })
}

/// The model reads the notes, then answers.
fn read_notes_then_answer() -> Vec<Step> {
    vec![call("toolu_read_notes", "read_file", json!({"file_path": NOTES})), Step::reply(Reply::text(ANSWER))]
}

/// A 429 whose Retry-After (0 s) the retry obeys, then [`read_notes_then_answer`].
fn rate_limited_then_read_notes() -> Vec<Step> {
    [vec![Step::error(429, Some(0))], read_notes_then_answer()].concat()
}

/// 500s until the two retries of the default policy are spent (each wait 0 s, by Retry-After).
fn server_errors() -> [Step; 3] {
    [Step::error(500, Some(0)), Step::error(500, Some(0)), Step::error(500, Some(0))]
}

fn sandbox_with_notes() -> Sandbox {
    let sandbox = Sandbox::new();
    sandbox.write(NOTES, "hello\nhello\n");
    sandbox
}

/// `2026-01-01T00:00:00.000Z`: an RFC 3339 UTC timestamp as the CLI writes them.
fn is_rfc3339_utc(ts: &str) -> bool {
    let shape = "dddd-dd-ddTdd:dd:dd.dddZ";
    ts.len() == shape.len() && ts.chars().zip(shape.chars()).all(|(c, s)| if s == 'd' { c.is_ascii_digit() } else { c == s })
}

#[test]
fn run_json_mode_emits_parseable_event_stream() {
    let sandbox = sandbox_with_notes();
    let server = serve(read_notes_then_answer());
    let run = sandbox.run_json(&server, TASK, &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let expected = [
        "run_started",
        "step_started",
        "tool_call_detected",
        "tool_decision",
        "tool_exec_started",
        "tool_exec_finished",
        "step_started",
        "run_finished",
    ];
    assert_eq!(run.types(), expected, "{run:?}");

    let records = run.records();
    let run_id = records[0]["run_id"].as_str().expect("a run id");
    assert!(run_id.starts_with("r_"), "{run_id}");
    for record in &records {
        assert_eq!(record["schema_version"], "openagent.run_event.v1", "{record}");
        assert_eq!(record["run_id"], run_id, "{record}");
        assert!(record["ts"].as_str().is_some_and(is_rfc3339_utc), "{record}");
        assert!(record["data"].is_object(), "{record}");
    }
    let steps: Vec<_> = records.iter().map(|record| record["step"].as_u64()).collect();
    assert_eq!(steps, [0, 1, 1, 1, 1, 1, 2, 2].map(Some), "the step is the model call each record belongs to");

    let started = &records[0]["data"];
    assert_eq!((started["task"].as_str(), started["provider"].as_str()), (Some(TASK), Some("anthropic")), "{started}");
    assert_eq!(started["working_directory"].as_str(), sandbox.cwd().to_str(), "{started}");
    assert_eq!(started["output_mode"], "json");
    assert!(started["config_fingerprint"].as_str().is_some_and(|f| f.starts_with("fnv1a64:")), "{started}");
    let artifacts = sandbox.data_dir().join("runs").join(run_id);
    assert_eq!(started["artifacts_dir"].as_str(), artifacts.to_str(), "{started}");

    let detected = &records[2]["data"];
    assert_eq!((detected["call_id"].as_str(), detected["tool"].as_str()), (Some("toolu_read_notes"), Some("read_file")));
    let arguments: Value = serde_json::from_str(detected["arguments"].as_str().expect("arguments as text")).expect("JSON");
    assert_eq!(arguments, json!({"file_path": NOTES}));
    let decision = &records[3]["data"];
    assert_eq!(
        [&decision["tool"], &decision["decision"], &decision["source"], &decision["reason"]],
        [&json!("read_file"), &json!("allow"), &json!("mode"), &Value::Null]
    );
    let finished = &records[5]["data"];
    assert_eq!((finished["tool"].as_str(), finished["ok"].as_bool()), (Some("read_file"), Some(true)), "{finished}");
    assert!(finished["content_preview"].as_str().is_some_and(|p| p.contains("hello")), "{finished}");
    assert_eq!((&finished["truncated"], &finished["original_bytes"]), (&json!(false), &Value::Null));
}

#[test]
fn run_json_mode_includes_final_record() {
    let sandbox = sandbox_with_notes();
    let server = serve(read_notes_then_answer());
    let done = sandbox.run_json(&server, TASK, &[]).run_finished();
    assert_eq!(done["exit_reason"], "completed", "{done}");
    assert_eq!(done["ok"], true, "{done}");
    assert_eq!(done["final_output"], ANSWER, "{done}");
    assert!(done.get("error").is_some_and(Value::is_null), "`error` is present and null: {done}");
    // The typed outcome (seed 002): a plain answer without an output schema is `done`.
    assert_eq!(done["outcome"]["status"], "done", "{done}");
    assert_eq!(done["outcome"]["metrics"]["tool_calls"], 1, "{done}");
    assert!(done.get("result_data").is_some_and(Value::is_null), "`result_data` is present and null: {done}");

    let server = serve([Step::error(401, None)]);
    let failed = sandbox.run_json(&server, TASK, &[]).run_finished();
    assert_eq!(failed["exit_reason"], "authentication", "{failed}");
    assert_eq!(failed["ok"], false, "{failed}");
    assert_eq!(failed["final_output"], "", "`final_output` is present, empty: {failed}");
    assert!(failed["error"].as_str().is_some_and(|e| e.contains("ANTHROPIC_API_KEY")), "{failed}");
    assert_eq!(failed["outcome"]["status"], "failure", "{failed}");
}

#[test]
fn run_json_mode_is_stable_for_fixed_mock_inputs() {
    // One sandbox and one server (its URL is part of the config fingerprint) for both runs.
    let sandbox = sandbox_with_notes();
    // A retry (its wait fixed by Retry-After), a tool, streamed text: every source of variation.
    let server = serve([rate_limited_then_read_notes(), rate_limited_then_read_notes()].concat());
    let args = ["run", TASK, "--output", "json", "--stream"];
    let pinned = [("OPENAGENT_PIN_CLOCK", "1767225600000"), ("OPENAGENT_RUN_ID", "r_stable")];
    let first = sandbox.run_with_env(&server, &args, &pinned);
    // A fresh data directory, as a CI job has: the run id is taken in the one the first run used.
    std::fs::remove_dir_all(sandbox.data_dir()).expect("the first run's data directory");
    let second = sandbox.run_with_env(&server, &args, &pinned);
    assert_eq!(first.code, Some(0), "{first:?}");
    assert_eq!(first.stdout, second.stdout, "the same inputs give the same bytes");
    assert!(["provider_retry", "tool_exec_finished", "text_delta"].iter().all(|t| first.types().contains(&t.to_string())));
    for record in first.records() {
        assert_eq!((record["run_id"].as_str(), record["ts"].as_str()), (Some("r_stable"), Some("2026-01-01T00:00:00.000Z")));
    }
}

#[test]
fn run_json_mode_stdout_contains_only_json_lines() {
    let sandbox = sandbox_with_notes();
    let server = serve(read_notes_then_answer());
    // Everything that could tempt a program into colour, and the streamed text too.
    let mut tempted = sandbox.openagent(Some(&server), &["run", TASK, "--output", "json", "--stream"]);
    tempted.env("TERM", "xterm-256color").env("CLICOLOR_FORCE", "1").env("FORCE_COLOR", "1");
    let streamed = Running::start(tempted).finish();
    let server = serve(server_errors());
    let failed = sandbox.run_json(&server, TASK, &[]);

    for run in [&streamed, &failed] {
        assert!(run.stdout.ends_with('\n'), "every line ends: {run:?}");
        assert!(!run.stdout.contains('\x1b'), "no ANSI escape: {run:?}");
        for line in run.stdout.lines() {
            let record: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("not JSON ({e}): {line:?}"));
            let keys: BTreeSet<&str> = record.as_object().expect("an object").keys().map(String::as_str).collect();
            assert_eq!(keys, BTreeSet::from(ENVELOPE), "{line}");
        }
    }
    assert!(streamed.types().contains(&"text_delta".to_owned()), "{streamed:?}");
    assert!(failed.types().contains(&"provider_error".to_owned()), "{failed:?}");
}

#[test]
fn run_json_mode_emits_monotonic_sequence_numbers() {
    let sandbox = sandbox_with_notes();
    let server = serve(rate_limited_then_read_notes());
    let retried = sandbox.run_json(&server, TASK, &["--stream"]);
    let refused = Running::start(sandbox.openagent(None, &["run", TASK, "--output", "json"])).finish();
    for run in [&retried, &refused] {
        let sequence: Vec<_> = run.records().iter().map(|record| record["sequence"].as_u64()).collect();
        let expected: Vec<_> = (1..=sequence.len() as u64).map(Some).collect();
        assert_eq!(sequence, expected, "{run:?}");
    }
    assert!(retried.records().len() > 8, "{retried:?}");
    assert_eq!(refused.records().len(), 1, "{refused:?}");
}

#[test]
fn run_json_mode_emits_exactly_one_terminal_run_finished() {
    let sandbox = sandbox_with_notes();
    let expect_one = |run: Finished, code: i32, reason: &str| {
        assert_eq!(run.code, Some(code), "{run:?}");
        let done = run.run_finished(); // exactly one, and last
        assert_eq!((done["exit_reason"].as_str(), done["ok"].as_bool()), (Some(reason), Some(code == 0)), "{run:?}");
    };

    expect_one(sandbox.run_json(&serve(read_notes_then_answer()), TASK, &[]), 0, "completed");
    let failing = serve(server_errors());
    expect_one(sandbox.run_json(&failing, TASK, &[]), 1, "provider_error");
    expect_one(sandbox.run_json(&serve(read_notes_then_answer()), TASK, &["--max-turns", "1"]), 3, "max_turns");

    // Ctrl-C or SIGTERM while the model has not answered yet, and Ctrl-C while a tool runs.
    let slow_model = || serve([Step::slow_first_byte(30_000, Reply::text("too late"))]);
    let slow_tool = serve([call("toolu_sleep", "shell", json!({"command": "sleep 30"}))]);
    let interrupts = [
        (slow_model(), "step_started", libc::SIGINT),
        (slow_model(), "step_started", libc::SIGTERM),
        (slow_tool, "tool_exec_started", libc::SIGINT),
    ];
    for (server, awaited, signal) in interrupts {
        let mut running = Running::start(sandbox.openagent(Some(&server), &["run", TASK, "--output", "json"]));
        running.wait_for_line(Pipe::Stdout, |line| line.contains(&format!(r#""type":"{awaited}""#)));
        running.signal(signal);
        expect_one(running.finish(), 130, "interrupted");
    }
}

#[test]
fn run_json_mode_suppresses_human_final_output_print() {
    let sandbox = sandbox_with_notes();
    for extra in [&[][..], &["--stream"]] {
        let run = sandbox.run_json(&serve(read_notes_then_answer()), TASK, extra);
        assert!(run.stdout.lines().all(|line| line.starts_with('{') && line.trim() != ANSWER), "{run:?}");
        assert_eq!(run.run_finished()["final_output"], ANSWER, "the answer is in the record: {run:?}");
    }
    let human = sandbox.run(&serve(read_notes_then_answer()), TASK, &[]);
    assert_eq!((human.code, human.stdout.as_str()), (Some(0), format!("{ANSWER}\n").as_str()), "{human:?}");
}

#[test]
fn run_json_mode_rejects_tui_with_clear_error() {
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text(ANSWER))]);
    let run = Running::start(sandbox.openagent(Some(&server), &["run", TASK, "--tui", "--output", "json"])).finish();
    assert_eq!(run.code, Some(2), "{run:?}");
    assert_eq!(run.stdout, "", "nothing on stdout");
    assert_eq!(
        run.stderr,
        "error: --tui cannot be combined with --output json (JSON output is for non-interactive runs; drop one of them)\n"
    );
    assert!(server.requests().is_empty(), "the model was never called");
}

#[test]
fn run_json_projection_ignores_unmapped_internal_event_kinds() {
    let sandbox = sandbox_with_notes();
    let events = sandbox.path("events.jsonl");
    let run = sandbox.run_json(&serve(read_notes_then_answer()), TASK, &["--events", events.to_str().expect("UTF-8")]);
    assert_eq!(run.code, Some(0), "{run:?}");

    let internal: BTreeSet<String> =
        read_events(&events).iter().map(|event| event["kind"].as_str().expect("a kind").to_owned()).collect();
    for unmapped in ["user_input", "assistant_text_start", "assistant_text_delta", "assistant_text_end", "processing_end"] {
        assert!(internal.contains(unmapped), "the run had a {unmapped} event: {internal:?}");
    }
    let types = run.types();
    for kind in &types {
        assert!(PROJECTED_TYPES.contains(&kind.as_str()), "{kind} is not one of the projected types: {run:?}");
    }
    assert_eq!(
        (types.first().map(String::as_str), types.last().map(String::as_str)),
        (Some("run_started"), Some("run_finished"))
    );
}

#[test]
fn run_json_projection_truncates_large_fields_with_metadata() {
    let sandbox = Sandbox::new();
    // Multibyte characters throughout, sized so that byte 4096 falls inside one.
    let big: String = (0..100).map(|_| format!("{}\n", "🚀".repeat(40))).collect();
    sandbox.write("big.txt", &big);
    let (task, answer) = ("€".repeat(2000), "€".repeat(1500));
    let events = sandbox.path("events.jsonl");
    let server =
        serve([call("toolu_read_big", "read_file", json!({"file_path": "big.txt"})), Step::reply(Reply::text(answer.clone()))]);
    let run = sandbox.run_json(&server, &task, &["--events", events.to_str().expect("UTF-8")]);
    assert_eq!(run.code, Some(0), "{run:?}");

    let output = read_events(&events)
        .into_iter()
        .find(|event| event["kind"] == "tool_call_end")
        .and_then(|event| event["data"]["output"].as_str().map(str::to_owned))
        .expect("the read's full output in the events file");
    assert_bounded(&run.data_of("tool_exec_finished")[0], "content_preview", &output);
    assert_bounded(&run.data_of("run_started")[0], "task", &task);
    assert_bounded(&run.run_finished(), "final_output", &answer);
}

/// `data[key]` is `full` cut to at most 4096 bytes, on the last character boundary before the
/// limit, with `truncated` and `original_bytes` saying so.
fn assert_bounded(data: &Value, key: &str, full: &str) {
    assert!(full.len() > 4096 && !full.is_char_boundary(4096), "{key}: the test needs a cut inside a character");
    let cut = data[key].as_str().unwrap_or_else(|| panic!("{key} is a string: {data}"));
    assert!(cut.len() <= 4096 && cut.len() > 4096 - 4, "{key}: cut at the last boundary before 4096, not at {}", cut.len());
    assert!(full.starts_with(cut), "{key}: the start of the text, whole characters only");
    assert_eq!(data["truncated"], true, "{key}");
    assert_eq!(data["original_bytes"].as_u64(), Some(full.len() as u64), "{key}");
}
