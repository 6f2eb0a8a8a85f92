//! The cross-provider parity matrix of coding-agent-loop spec 9.12: the fifteen cases, each run
//! for OpenAiProfile, AnthropicProfile and GeminiProfile as a real `Session` over its own
//! provider's codec (Responses, Messages, generateContent), through HTTP to the mock LLM server.
//! The model's side is scripted in each family's own tool names and argument conventions
//! (apply_patch for OpenAI edits, edit_file old_string/new_string for Claude and Gemini, the
//! Anthropic shell's `timeout`, each grep's file filter), and every case checks real effects: the
//! files in the environment, the events, and what the next request carried back to the model.
//!
//! Every cell runs even when one fails; the matrix is printed (`--nocapture` to see it) and the
//! test then fails listing the cells that did not pass.

use std::panic::{catch_unwind, AssertUnwindSafe};

use openagent_core::session::EventData;
use openagent_core::SessionConfig;
use openagent_tests::{Reply, Step};
use serde_json::{json, Value};

use openagent_tests::over_http::tool_results_sent;
use openagent_tests::parity::{user_texts, Family, Harness, WithCall, FAMILIES};

type Case = fn(Family);

/// Spec 9.12's rows, in its order.
const CASES: [(&str, Case); 15] = [
    ("Simple file creation task", simple_file_creation),
    ("Read file, then edit it", read_then_edit),
    ("Multi-file edit in one session", multi_file_edit),
    ("Shell command execution", shell_execution),
    ("Shell command timeout handling", shell_timeout),
    ("Grep + glob to find files", grep_and_glob),
    ("Multi-step task (read -> analyze -> edit)", multi_step),
    ("Tool output truncation (large file)", truncation),
    ("Parallel tool calls (if supported)", parallel_calls),
    ("Steering mid-task", steering),
    ("Reasoning effort change", reasoning_effort_change),
    ("Subagent spawn and wait", subagent_spawn_and_wait),
    ("Loop detection triggers warning", loop_detection),
    ("Error recovery (tool fails, model retries)", error_recovery),
    ("Provider-specific editing format works", provider_editing_format),
];

#[test]
fn cross_provider_parity_matrix() {
    // Failed cells are reported in the matrix and the summary, not as a panic trace each.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let mut rows = Vec::new();
    let mut failures = Vec::new();
    for (name, case) in CASES {
        let mut cells = Vec::new();
        for family in FAMILIES {
            let outcome = catch_unwind(AssertUnwindSafe(|| case(family)));
            if let Err(panic) = &outcome {
                let message = panic
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| panic.downcast_ref::<&str>().map(|s| (*s).to_owned()))
                    .unwrap_or_default();
                failures.push(format!("{name} / {}: {message}", family.name()));
            }
            cells.push(if outcome.is_ok() { "pass" } else { "FAIL" });
        }
        rows.push((name, cells));
    }
    std::panic::set_hook(default_hook);

    let width = CASES.iter().map(|(name, _)| name.len()).max().unwrap_or(0);
    let mut table = format!(
        "\n| {:width$} | OpenAI | Anthropic | Gemini |\n|{}|--------|-----------|--------|\n",
        "Test Case",
        "-".repeat(width + 2)
    );
    for (name, cells) in &rows {
        table += &format!("| {name:width$} | {:6} | {:9} | {:6} |\n", cells[0], cells[1], cells[2]);
    }
    println!("{table}");
    assert!(failures.is_empty(), "{} cell(s) failed:\n{}", failures.len(), failures.join("\n\n"));
}

fn simple_file_creation(f: Family) {
    let (name, args) = f.create("hello.py", "print('Hello World')\n");
    let mut h = Harness::start(
        f,
        vec![Step::reply(Reply::default().with_tool_call(name, args)), Step::reply(Reply::text("Created hello.py."))],
    );
    h.submit_ok("Create a file called hello.py that prints 'Hello World'");
    assert_eq!(h.file("hello.py"), "print('Hello World')\n");
    assert_eq!(h.tool_names(), [name]);
    assert!(h.tool_outputs().iter().all(Result::is_ok), "{:?}", h.tool_outputs());
}

fn read_then_edit(f: Family) {
    let mut h = Harness::start(
        f,
        vec![
            Step::reply(Reply::default().with_tool_call("read_file", json!({"file_path": "hello.py"}))),
            Step::reply(Reply::default().with_call(f.edit("hello.py", "print('Hello')", "print('Hello')\nprint('Goodbye')"))),
            Step::reply(Reply::text("Added the Goodbye line.")),
        ],
    );
    h.seed("hello.py", "import sys\nprint('Hello')\n");
    h.submit_ok("Read hello.py and add a second print statement that says 'Goodbye'");
    assert_eq!(h.file("hello.py"), "import sys\nprint('Hello')\nprint('Goodbye')\n");
    // The edit came after the model saw the file.
    let results = tool_results_sent(f.api(), &h.request(1));
    assert!(results[0].1.contains("print('Hello')"), "the read went back: {results:?}");
}

fn multi_file_edit(f: Family) {
    let mut h = Harness::start(
        f,
        f.edit_many_steps(
            &[
                ("src/a.rs", "const NAME: &str = \"alpha\";", "const NAME: &str = \"ALPHA\";"),
                ("src/b.rs", "fn beta() {}", "fn BETA() {}"),
            ],
            "Renamed in both files.",
        ),
    );
    h.seed("src/a.rs", "const NAME: &str = \"alpha\";\n");
    h.seed("src/b.rs", "fn beta() {}\n");
    h.seed("src/c.rs", "fn gamma() {}\n");
    h.submit_ok("Uppercase the names in a.rs and b.rs.");
    assert_eq!(h.file("src/a.rs"), "const NAME: &str = \"ALPHA\";\n");
    assert_eq!(h.file("src/b.rs"), "fn BETA() {}\n");
    assert_eq!(h.file("src/c.rs"), "fn gamma() {}\n", "untouched");
    assert!(h.tool_outputs().iter().all(Result::is_ok), "{:?}", h.tool_outputs());
}

fn shell_execution(f: Family) {
    let mut h = Harness::start(
        f,
        vec![
            Step::reply(Reply::default().with_call(f.shell("cat greeting.txt && echo ran-ok", None))),
            Step::reply(Reply::text("It printed the greeting.")),
        ],
    );
    h.seed("greeting.txt", "Hello World\n");
    h.submit_ok("Run cat on greeting.txt");
    let output = h.tool_outputs()[0].clone().expect("the shell succeeded");
    assert!(output.contains("Hello World") && output.contains("ran-ok"), "{output}");
    let results = tool_results_sent(f.api(), &h.request(1));
    assert!(results[0].1.contains("Hello World\nran-ok"), "the model got the output: {results:?}");
}

fn shell_timeout(f: Family) {
    let mut h = Harness::start(
        f,
        vec![
            Step::reply(Reply::default().with_call(f.shell("echo started; sleep 30", Some(200)))),
            Step::reply(Reply::text("The command timed out; I will not retry it.")),
        ],
    );
    let started = std::time::Instant::now();
    h.submit_ok("Run 'sleep 30'");
    assert!(started.elapsed().as_secs() < 10, "stopped by the timeout, not the sleep");
    let message = "[ERROR: Command timed out after 200ms. Partial output is shown above.\n\
                   You can retry with a longer timeout by setting the timeout_ms parameter.]";
    let output = h.tool_outputs()[0].clone().expect("a timeout is an output, not a tool error");
    assert!(output.contains("started") && output.contains(message), "{output}");
    let results = tool_results_sent(f.api(), &h.request(1));
    assert!(results[0].1.contains(message), "the model got the message: {results:?}");
    assert_eq!(h.server.requests().len(), 2, "the session went on to the model's answer");
}

fn grep_and_glob(f: Family) {
    let mut h = Harness::start(
        f,
        vec![
            Step::reply(Reply::default().with_call(f.grep("fn target", "*.rs"))),
            Step::reply(Reply::default().with_tool_call("glob", json!({"pattern": "**/*.md"}))),
            Step::reply(Reply::text("target is defined in src/a.rs and documented in docs/target.md.")),
        ],
    );
    h.seed("src/a.rs", "pub fn target() {}\n");
    h.seed("src/b.rs", "pub fn other() { target() }\n");
    h.seed("notes/target.txt", "fn target in prose\n");
    h.seed("docs/target.md", "# target\n");
    h.submit_ok("Where is target defined and documented?");
    let outputs = h.tool_outputs();
    let grep = outputs[0].clone().expect("grep ran");
    assert!(grep.contains("src/a.rs") && !grep.contains("src/b.rs") && !grep.contains("notes/"), "{grep}");
    let glob = outputs[1].clone().expect("glob ran");
    assert!(glob.contains("docs/target.md") && !glob.contains(".rs"), "{glob}");
    let results = tool_results_sent(f.api(), &h.request(2));
    assert!(results[0].1.contains("src/a.rs") && results[1].1.contains("docs/target.md"), "{results:?}");
}

fn multi_step(f: Family) {
    let mut h = Harness::start(
        f,
        vec![
            Step::reply(Reply::text("First the version.").with_tool_call("read_file", json!({"file_path": "VERSION"}))),
            Step::reply(Reply::text("Now the manifest.").with_tool_call("read_file", json!({"file_path": "Cargo.toml"}))),
            Step::reply(
                Reply::text("The manifest says 0.1.0 but VERSION says 0.2.0; I will align the manifest.").with_call(f.edit(
                    "Cargo.toml",
                    "version = \"0.1.0\"",
                    "version = \"0.2.0\"",
                )),
            ),
            Step::reply(Reply::text("Cargo.toml now matches VERSION.")),
        ],
    );
    h.seed("VERSION", "0.2.0\n");
    h.seed("Cargo.toml", "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n");
    h.submit_ok("Make Cargo.toml's version match VERSION.");
    assert_eq!(h.file("Cargo.toml"), "[package]\nname = \"demo\"\nversion = \"0.2.0\"\n");
    let results = tool_results_sent(f.api(), &h.request(2));
    assert!(
        results[0].1.contains("0.2.0") && results[1].1.contains("0.1.0"),
        "both reads went back before the edit: {results:?}"
    );
    assert_eq!(h.server.requests().len(), 4);
}

fn truncation(f: Family) {
    let mut h = Harness::start(
        f,
        vec![
            Step::reply(Reply::default().with_tool_call("read_file", json!({"file_path": "big.txt"}))),
            Step::reply(Reply::text("It is big.")),
        ],
    );
    let big: String = (1..=1500).map(|n| format!("line {n:04} {}\n", "x".repeat(70))).collect();
    h.seed("big.txt", &big);
    h.submit_ok("Read big.txt");
    let full = h.tool_outputs()[0].clone().expect("read");
    assert!(
        full.len() > 100_000 && full.contains("line 0750") && full.contains("line 1500"),
        "TOOL_CALL_END has it all: {}",
        full.len()
    );
    let results = tool_results_sent(f.api(), &h.request(1));
    let sent = &results[0].1;
    assert!(sent.contains("[WARNING: Tool output was truncated."), "the marker: {}", &sent[..200.min(sent.len())]);
    assert!(
        sent.len() < 51_000 && sent.contains("line 0001") && sent.contains("line 1500") && !sent.contains("line 0750"),
        "{}",
        sent.len()
    );
}

fn parallel_calls(f: Family) {
    let mut h = Harness::start(
        f,
        vec![
            Step::reply(
                Reply::default().with_call(f.shell("sleep 0.2; echo first", None)).with_call(f.shell("echo second", None)),
            ),
            Step::reply(Reply::text("Both ran.")),
        ],
    );
    h.submit_ok("Run both commands.");
    let order: Vec<String> = h
        .events
        .iter()
        .filter_map(|e| match &e.data {
            EventData::ToolCallStart { call_id, .. } => Some(format!("start {call_id}")),
            EventData::ToolCallEnd { call_id, .. } => Some(format!("end {call_id}")),
            _ => None,
        })
        .collect();
    let ids = h.call_ids();
    if f.profile().supports_parallel_tool_calls() {
        // The slow call was still running when the fast one ran and ended.
        let (slow, fast) = (&ids[0], &ids[1]);
        assert_eq!(order, [format!("start {slow}"), format!("start {fast}"), format!("end {fast}"), format!("end {slow}")]);
    }
    let results = tool_results_sent(f.api(), &h.request(1));
    assert!(
        results.len() == 2 && results[0].1.contains("first") && results[1].1.contains("second"),
        "in call order: {results:?}"
    );
}

fn steering(f: Family) {
    const STEER: &str = "Actually, just create a single /health endpoint for now";
    let (name, args) = f.create("app.py", "from flask import Flask\napp = Flask(__name__)\n");
    let mut h = Harness::start(
        f,
        vec![
            Step::reply(Reply::default().with_call(f.shell("sleep 0.1; echo planning routes", None))),
            Step::reply(Reply::text("Understood, only /health.").with_tool_call(name, args)),
            Step::reply(Reply::text("Done: app.py with /health.")),
        ],
    );
    let session = h.session.clone();
    h.submit_with("Create a Flask web application with multiple routes", move |event| {
        if matches!(event.data, EventData::ToolCallStart { .. }) {
            session.steer(STEER);
            return true;
        }
        false
    });
    assert!(h.events.iter().any(|e| e.data == EventData::SteeringInjected { content: STEER.into() }));
    // Not in the first request, in the one right after the tool round, after its results.
    assert!(!user_texts(f.api(), &h.request(0)).iter().any(|t| t.contains(STEER)));
    let users = user_texts(f.api(), &h.request(1));
    assert_eq!(users.last().map(String::as_str), Some(STEER), "{users:?}");
    assert!(h.file("app.py").contains("Flask"));
}

fn reasoning_effort_change(f: Family) {
    let mut h = Harness::start_with(
        f,
        vec![
            Step::reply(Reply::default().with_call(f.shell("sleep 0.1; echo thinking", None))),
            Step::reply(Reply::text("Done at high effort.")),
            Step::reply(Reply::text("Still high.")),
        ],
        SessionConfig { reasoning_effort: Some("low".into()), ..SessionConfig::default() },
    );
    let session = h.session.clone();
    h.submit_with("Think about it.", move |event| {
        if matches!(event.data, EventData::ToolCallStart { .. }) {
            session.set_reasoning_effort(Some("high".into()));
            return true;
        }
        false
    });
    h.submit_ok("And again.");
    let efforts: Vec<Value> = (0..3).map(|i| f.effort_sent(&h.request(i))).collect();
    assert_eq!(efforts, [f.effort_value("low"), f.effort_value("high"), f.effort_value("high")]);
}

fn subagent_spawn_and_wait(f: Family) {
    let (name, args) = f.create("tests/test_hello.py", "def test_hello():\n    assert True\n");
    let mut h = Harness::start(
        f,
        vec![
            // The parent spawns and waits in one turn; while it waits only the child calls the model.
            Step::reply(
                Reply::default()
                    .with_tool_call("spawn_agent", json!({"task": "Write tests for hello.py"}))
                    .with_tool_call("wait", json!({"agent_id": "agent_1"})),
            ),
            Step::reply(Reply::default().with_tool_call(name, args)),
            Step::reply(Reply::text("Wrote tests/test_hello.py with one test.")),
            Step::reply(Reply::text("The subagent wrote the tests; they look fine.")),
        ],
    );
    h.submit_ok("Spawn a subagent to write tests for hello.py, then review its output");
    assert!(h.file("tests/test_hello.py").contains("def test_hello"));
    let child = format!("{}/agent_1", h.session.id());
    assert!(
        h.events.iter().any(|e| e.session_id == child
            && matches!(&e.data, EventData::ToolCallEnd { tool_name, error: None, .. } if tool_name == name)),
        "the child's tool call is in the parent's event stream"
    );
    let requests = h.server.requests();
    assert_eq!(requests.len(), 4);
    let results = tool_results_sent(f.api(), &requests[3].body);
    let wait: Value = serde_json::from_str(&results[1].1).unwrap_or_else(|e| panic!("{e}: {results:?}"));
    assert_eq!(wait["success"], true, "{wait}");
    assert_eq!(wait["output"], "Wrote tests/test_hello.py with one test.", "{wait}");
    // The child's request was its own conversation: the task, not the parent's input.
    let child_users = user_texts(f.api(), &requests[1].body);
    assert_eq!(child_users, ["Write tests for hello.py"]);
}

fn loop_detection(f: Family) {
    let window = SessionConfig::default().loop_detection_window;
    let same = || Step::reply(Reply::default().with_tool_call("read_file", json!({"file_path": "stuck.txt"})));
    let mut steps: Vec<Step> = (0..window).map(|_| same()).collect();
    steps.push(Step::reply(Reply::text("I was repeating myself; stopping.")));
    let mut h = Harness::start(f, steps);
    h.seed("stuck.txt", "same\n");
    h.submit_ok("Read stuck.txt until it changes.");
    let warnings: Vec<&String> = h
        .events
        .iter()
        .filter_map(|e| match &e.data {
            EventData::LoopDetection { message } => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    // The warning reaches the model in the next request, not before.
    let before = user_texts(f.api(), &h.request(window - 1));
    assert!(!before.iter().any(|t| t.starts_with("Loop detected")), "{before:?}");
    let after = user_texts(f.api(), &h.request(window));
    assert_eq!(after.last(), Some(warnings[0]), "{after:?}");
}

fn error_recovery(f: Family) {
    let mut h = Harness::start(
        f,
        vec![
            Step::reply(Reply::default().with_call(f.edit("config.yml", "debug: yes", "debug: false"))),
            Step::reply(Reply::text("That line is not there; retrying.").with_call(f.edit(
                "config.yml",
                "debug: true",
                "debug: false",
            ))),
            Step::reply(Reply::text("Debug is off.")),
        ],
    );
    h.seed("config.yml", "name: demo\ndebug: true\n");
    h.submit_ok("Turn debug off in config.yml");
    let outputs = h.tool_outputs();
    assert!(outputs[0].is_err(), "the first edit failed: {outputs:?}");
    assert!(outputs[1].is_ok(), "the retry succeeded: {outputs:?}");
    let results = tool_results_sent(f.api(), &h.request(1));
    assert!(results[0].1.contains("config.yml"), "the model was told why: {results:?}");
    assert_eq!(h.file("config.yml"), "name: demo\ndebug: false\n");
}

fn provider_editing_format(f: Family) {
    let steps = f.native_edit_steps();
    let mut h = Harness::start(f, steps);
    h.seed("lib/util.py", "def helper():\n    return OLD\n\n\ndef other():\n    return OLD\n");
    h.seed("lib/obsolete.py", "x = 1\n");
    h.submit_ok("Replace OLD with NEW everywhere in lib/util.py and clean up.");
    f.check_native_edit(&h);
    let offered = f.tools_offered(&h.request(0));
    let (has, lacks) = if f == Family::OpenAi { ("apply_patch", "edit_file") } else { ("edit_file", "apply_patch") };
    assert!(offered.iter().any(|t| t == has) && !offered.iter().any(|t| t == lacks), "{offered:?}");
}
