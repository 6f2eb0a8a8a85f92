//! The integration smoke test of coding-agent-loop spec 9.13, as far as it runs offline: for each
//! of OpenAiProfile, AnthropicProfile and GeminiProfile, ONE session over its provider's codec and
//! HTTP to the mock takes the spec's seven inputs in turn, with the model's side scripted in that
//! family's tool conventions. The environment is a MemoryEnvironment on a virtual clock (so
//! `sleep 30` and a 10 s timeout cost no real time), not a temp directory on disk.
//!
//! Where offline differs from the spec: the in-memory shell has no Python, so "run hello.py"
//! checks the shell call and that its result went back, not Python's output; big.txt is 100,000
//! characters in 1,000 lines, because read_file cuts a single line after 2,000 characters (so one
//! 100k-character line never reaches TOOL_CALL_END whole).

use openagent_core::session::EventData;
use openagent_tests::{Reply, Step};
use serde_json::{json, Value};

use openagent_tests::over_http::tool_results_sent;
use openagent_tests::parity::{reply_calling, user_texts, Family, Harness, FAMILIES};

const STEER: &str = "Actually, just create a single /health endpoint for now";
const CHILD_ANSWER: &str = "Wrote tests/test_hello.py with one test.";

/// The model's side of all seven inputs, in order.
fn script(f: Family) -> Vec<Step> {
    let text = |t: &str| Step::reply(Reply::text(t));
    vec![
        // 1. Simple file creation
        reply_calling(f.create("hello.py", "print('Hello World')\n")),
        text("Created hello.py."),
        // 2. Read and edit
        reply_calling(("read_file", json!({"file_path": "hello.py"}))),
        reply_calling(f.edit("hello.py", "print('Hello World')", "print('Hello World')\nprint('Goodbye')")),
        text("hello.py now also says Goodbye."),
        // 3. Shell execution
        reply_calling(f.shell("python3 hello.py", None)),
        text("Python is not available in this environment."),
        // 4. Truncation
        reply_calling(("read_file", json!({"file_path": "big.txt"}))),
        text("big.txt is 1000 lines of x."),
        // 5. Steering: the steer arrives during the first tool round and the model adjusts. The
        // first reply is late, so the steer (taken when the input event is seen) is queued while
        // the model call is still running even on a loaded machine, where an instant reply could
        // otherwise be consumed, tools and all, before the test's watcher is polled.
        Step::slow_first_byte(200, Reply::default().with_tool_call("glob", json!({"pattern": "*.py"}))),
        reply_calling(f.create(
            "app.py",
            "from flask import Flask\napp = Flask(__name__)\n\n@app.route('/health')\ndef health():\n    return 'ok'\n",
        )),
        text("Created app.py with only /health."),
        // 6. Subagent: spawn and wait in one turn; the child's two calls; the parent reviews.
        Step::reply(
            Reply::default()
                .with_tool_call("spawn_agent", json!({"task": "Write tests for hello.py"}))
                .with_tool_call("wait", json!({"agent_id": "agent_1"})),
        ),
        reply_calling(f.create("tests/test_hello.py", "def test_hello():\n    assert True\n")),
        text(CHILD_ANSWER),
        reply_calling(("read_file", json!({"file_path": "tests/test_hello.py"}))),
        text("The subagent's test is fine."),
        // 7. Timeout handling, with the profile's default timeout
        reply_calling(f.shell("sleep 30", None)),
        text("The command was handled."),
    ]
}

fn smoke(f: Family) {
    let mut h = Harness::start_on_virtual_clock(f, script(f));

    // 1. Simple file creation
    h.submit_ok("Create a file called hello.py that prints 'Hello World'");
    assert!(h.file("hello.py").contains("Hello"));

    // 2. Read and edit
    h.submit_ok("Read hello.py and add a second print statement that says 'Goodbye'");
    let content = h.file("hello.py");
    assert!(content.contains("Hello") && content.contains("Goodbye"), "{content}");

    // 3. Shell execution: the shell call is in the event stream and its result went back.
    let before = h.server.requests().len();
    h.submit_ok("Run hello.py and show the output");
    assert!(
        h.events.iter().any(|e| matches!(&e.data, EventData::ToolCallStart { tool_name, arguments, .. }
            if tool_name == "shell" && arguments["command"] == "python3 hello.py")),
        "a shell call"
    );
    let shell = h.tool_outputs().last().cloned().expect("the shell ran").expect("a shell result, whatever the exit code");
    let results = tool_results_sent(f.api(), &h.request(before + 1));
    assert_eq!(results.last().map(|(_, out)| out), Some(&shell), "the shell result went back");

    // 4. Truncation
    let big: String = (0..1000).map(|_| "x".repeat(99) + "\n").collect();
    assert_eq!(big.len(), 100_000);
    h.seed("big.txt", &big);
    let before = h.server.requests().len();
    h.submit_ok("Read big.txt");
    let full = h.tool_outputs().last().cloned().expect("a read").expect("it succeeded");
    assert!(full.matches(&"x".repeat(99)).count() == 1000, "TOOL_CALL_END has every line: {} chars", full.len());
    let sent = tool_results_sent(f.api(), &h.request(before + 1));
    let sent = &sent.last().expect("the read's result").1;
    assert!(sent.contains("[WARNING: Tool output was truncated.") && sent.len() < full.len(), "{}", sent.len());

    // 5. Steering: steered as soon as the input is taken, it reaches the model after the first
    // tool round, and the app is the one asked for.
    let before = h.server.requests().len();
    let session = h.session.clone();
    h.submit_with("Create a Flask web application with multiple routes", move |e| {
        let taken = matches!(e.data, EventData::UserInput { .. });
        if taken {
            session.steer(STEER);
        }
        taken
    });
    assert!(!user_texts(f.api(), &h.request(before)).iter().any(|t| t == STEER));
    assert_eq!(user_texts(f.api(), &h.request(before + 1)).last().map(String::as_str), Some(STEER));
    let app = h.file("app.py");
    assert!(app.contains("/health") && app.matches("@app.route").count() == 1, "{app}");

    // 6. Subagent
    let before = h.server.requests().len();
    h.submit_ok("Spawn a subagent to write tests for hello.py, then review its output");
    let child = format!("{}/agent_1", h.session.id());
    assert!(
        h.events.iter().any(|e| e.session_id == child && matches!(e.data, EventData::ToolCallStart { .. })),
        "the subagent's tool calls are in the event stream"
    );
    assert!(h.file("tests/test_hello.py").contains("def test_hello"));
    let results = tool_results_sent(f.api(), &h.request(before + 3));
    let wait: Value = serde_json::from_str(&results[results.len() - 1].1).unwrap_or_else(|e| panic!("{e}: {results:?}"));
    assert_eq!((wait["success"].clone(), wait["output"].clone()), (json!(true), json!(CHILD_ANSWER)), "{wait}");

    // 7. Timeout handling, with the profile's default: 10 s for OpenAI and Gemini; Claude
    // Code's 120 s default lets a 30 s sleep finish.
    h.submit_ok("Run 'sleep 30' with the default timeout");
    let output = h.tool_outputs().last().cloned().expect("the shell ran").expect("a timeout is an output");
    let default = f.profile().default_command_timeout_ms().expect("every profile has one");
    if default < 30_000 {
        assert!(output.contains(&format!("[ERROR: Command timed out after {default}ms.")), "{output}");
    } else {
        assert!(!output.contains("timed out"), "{output}");
    }
    assert_eq!(h.server.requests().len(), script(f).len(), "every scripted reply was used, none more");
}

#[test]
fn smoke_test_for_each_profile_offline() {
    for f in FAMILIES {
        smoke(f);
    }
}
