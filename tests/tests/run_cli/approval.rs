//! Approval policies through the binary: `openagent run` cannot ask, so `ask` is a deny whose
//! reason names the flag that allows the call; bad modes and rules are refused before any model
//! call; the interactive session asks on its terminal (yes, no with a reason, always).

use openagent_tests::{Reply, Step, ToolCall};
use serde_json::json;

use super::agents::agent;
use super::{call, ANSWER, TASK};
use crate::terminal::Terminal;
use openagent_tests::cli::Sandbox;
use openagent_tests::over_http::serve;

fn shell(id: &str, command: &str) -> Step {
    call(id, "shell", json!({ "command": command }))
}

#[test]
fn run_json_mode_denies_what_the_policy_asks_and_names_the_flag() {
    let sandbox = Sandbox::new();
    let server = serve([shell("toolu_make", "echo hi > made.txt"), Step::reply(Reply::text(ANSWER))]);
    let run = sandbox.run_json(&server, TASK, &["--approval", "auto-edit"]);
    assert_eq!(run.code, Some(0), "a denied call does not end the run; the model goes on: {run:?}");
    let decision = &run.data_of("tool_decision")[0];
    assert_eq!((&decision["decision"], &decision["source"]), (&json!("deny"), &json!("approver")), "{decision}");
    let reason = decision["reason"].as_str().expect("a reason");
    assert!(reason.starts_with("the auto-edit approval mode asks before commands; this run cannot ask anyone"), "{reason}");
    assert!(reason.contains("`--approval full-auto`"), "the reason names the flag: {reason}");
    assert!(run.data_of("tool_exec_started").is_empty(), "the command never started");
    assert!(!sandbox.cwd().join("made.txt").exists());
    let finished = &run.data_of("tool_exec_finished");
    assert!(finished.is_empty(), "{finished:?}");
    let second = server.requests()[1].body.to_string();
    assert!(second.contains("Not run: the call to shell was denied") && second.contains("--approval full-auto"), "{second}");
    assert_eq!(run.run_finished()["exit_reason"], "completed");
}

#[test]
fn run_keeps_full_auto_by_default_and_a_deny_rule_still_holds() {
    let sandbox = Sandbox::new();
    let server = serve([shell("toolu_1", "echo hi > made.txt"), Step::reply(Reply::text(ANSWER))]);
    let run = sandbox.run_json(&server, TASK, &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.data_of("tool_decision")[0]["decision"], "allow");
    assert!(sandbox.cwd().join("made.txt").exists(), "run's default mode is full-auto");

    let config = "schema: openagent.agent/1\nid: careful\nname: Careful\nprovider: anthropic\npermissions:\n  rules:\n    \
                  - { tool: shell, command: \"rm *\", decision: deny }\n";
    agent(&sandbox, "careful", config);
    let server = serve([shell("toolu_2", "rm made.txt"), Step::reply(Reply::text(ANSWER))]);
    let run = sandbox.run_json(&server, TASK, &["--agent", "careful", "--approval", "full-auto"]);
    let decision = &run.data_of("tool_decision")[0];
    assert_eq!((&decision["decision"], &decision["source"]), (&json!("deny"), &json!("rule")), "{decision}");
    assert_eq!(decision["reason"], "rule 1 of the approval policy (shell `rm *`: deny)");
    assert!(sandbox.cwd().join("made.txt").exists(), "the rule held over the mode");
}

#[test]
fn an_unknown_mode_or_a_bad_rule_is_refused_before_any_model_call() {
    let sandbox = Sandbox::new();
    let server = serve([]);
    let run = sandbox.run_json(&server, TASK, &["--approval", "yolo"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    assert!(run.stderr.contains("unknown approval mode `yolo`; the modes are read-only, auto-edit, full-auto"), "{}", run.stderr);

    let config = "schema: openagent.agent/1\nid: bad\nname: Bad\npermissions:\n  rules:\n    - { tool: read_file, command: ls, decision: allow }\n";
    agent(&sandbox, "bad", config);
    let run = sandbox.run_json(&server, TASK, &["--agent", "bad"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let error = run.run_finished()["error"].as_str().expect("the error").to_owned();
    assert!(error.contains("agent.yml:6: permissions.rules[0].command"), "file, line and field: {error}");
    assert!(error.contains("`command` applies to the `shell` tool only"), "{error}");
    assert!(server.requests().is_empty(), "the model was never called");
}

/// The interactive session asks on its terminal: `n` with a reason (the model reads it), then
/// `a` (always), after which a call like it runs without a question.
#[test]
fn the_interactive_session_asks_yes_no_always_on_the_terminal() {
    let sandbox = Sandbox::new();
    let server = serve([
        shell("toolu_1", "echo one > one.txt"),
        shell("toolu_2", "echo two > two.txt"),
        Step::reply(Reply::text("first done")),
        shell("toolu_3", "touch three.txt"),
        shell("toolu_4", "touch four.txt"),
        Step::reply(Reply::text(ANSWER)),
    ]);
    let mut terminal = Terminal::start(sandbox.openagent(Some(&server), &[]), None, None);
    terminal.wait_for("approval auto-edit");
    terminal.type_bytes(b"make the files\n");
    terminal.wait_for("? shell echo one > one.txt");
    terminal.wait_for("the auto-edit approval mode asks before commands");
    terminal.wait_for("[a]lways for shell `echo one`");
    terminal.type_bytes(b"maybe\n");
    terminal.wait_for("Please answer y (yes), n (no) or a (always)");
    terminal.type_bytes(b"n\n");
    terminal.wait_for("Why not?");
    terminal.type_bytes(b"write with the file tools\n");
    terminal.wait_for("? shell echo two > two.txt");
    terminal.type_bytes(b"y\n");
    terminal.wait_for("first done");
    terminal.type_bytes(b"now touch\n");
    terminal.wait_for("? shell touch three.txt");
    terminal.type_bytes(b"a\n");
    terminal.wait_for(ANSWER);
    assert!(!terminal.shown().contains("? shell touch four.txt"), "not asked again");
    terminal.type_bytes(b"\x04");
    assert_eq!(terminal.exit_code(), Some(0));
    assert!(!sandbox.cwd().join("one.txt").exists(), "denied");
    assert!(sandbox.cwd().join("two.txt").exists() && sandbox.cwd().join("three.txt").exists());
    assert!(sandbox.cwd().join("four.txt").exists(), "always for `touch` covered the next call, unasked");
    let requests = server.requests();
    let after_no = requests[1].body.to_string();
    assert!(after_no.contains("the user denied this call: write with the file tools"), "the model reads the reason: {after_no}");
}

/// A call that runs while another asks keeps its spinner off the question: no frame is drawn
/// over the prompt while the person answers.
#[test]
fn a_running_calls_spinner_keeps_off_an_open_question() {
    let sandbox = Sandbox::new();
    let config = "schema: openagent.agent/1\nid: patient\nname: Patient\nprovider: anthropic\npermissions:\n  rules:\n    \
                  - { tool: shell, command: sleep, decision: allow }\n";
    agent(&sandbox, "patient", config);
    let calls = [("toolu_slow", "sleep 3"), ("toolu_asks", "touch asked.txt")];
    let calls = calls.map(|(id, command)| ToolCall {
        name: "shell".into(),
        arguments: json!({ "command": command }),
        id: Some(id.into()),
    });
    let server = serve([Step::reply(Reply { tool_calls: calls.to_vec(), ..Reply::default() }), Step::reply(Reply::text(ANSWER))]);
    let mut terminal = Terminal::start(sandbox.openagent(Some(&server), &["--agent", "patient"]), None, None);
    terminal.wait_for("approval auto-edit");
    terminal.type_bytes(b"run both\n");
    terminal.wait_for("[a]lways for shell `touch`: ");
    let asked_at = terminal.shown().len();
    // Ten spinner ticks while `sleep 3` runs and the question is open.
    std::thread::sleep(std::time::Duration::from_millis(800));
    terminal.type_bytes(b"yes\n");
    terminal.wait_for(ANSWER);
    let shown = terminal.shown();
    let answered = asked_at + shown[asked_at..].find("yes").expect("the answer echoed");
    let during = &shown[asked_at..answered];
    assert!(!during.contains("running shell"), "a spinner frame was drawn over the question: {during:?}");
    assert!(sandbox.cwd().join("asked.txt").exists());
    terminal.type_bytes(b"\x04");
    assert_eq!(terminal.exit_code(), Some(0));
}

/// In `auto-edit` the model cannot rewrite what governs it: its hooks, or its own agent.yml to
/// `mode: full-auto`. `run` cannot ask, so both writes are denied, with no rule suggested.
#[test]
fn run_in_auto_edit_denies_writes_to_the_agents_own_configuration() {
    let sandbox = Sandbox::new();
    let config =
        "schema: openagent.agent/1\nid: a\nname: A\nprovider: anthropic\npermissions:\n  mode: auto-edit\n  rules:\n    \
                  - { tool: write_file, path: \"**\", decision: allow }\n";
    agent(&sandbox, "a", config);
    let yml = sandbox.cwd().join(".openagent/agents/a/agent.yml");
    let hooks = json!({"file_path": ".openagent/hooks.json", "content": "{\"pre_tool_use\": \"touch pwned\"}"});
    let promote = json!({"file_path": ".openagent/agents/a/agent.yml", "content": config.replace("auto-edit", "full-auto")});
    let server = serve([
        call("toolu_1", "write_file", hooks),
        call("toolu_2", "write_file", promote),
        call("toolu_3", "write_file", json!({"file_path": "notes.md", "content": "ok"})),
        Step::reply(Reply::text(ANSWER)),
    ]);
    let run = sandbox.run_json(&server, TASK, &["--agent", "a"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let decisions = run.data_of("tool_decision");
    for decision in &decisions[..2] {
        assert_eq!(decision["decision"], "deny", "{decision}");
        let reason = decision["reason"].as_str().expect("a reason");
        assert!(reason.contains("the agent's own configuration") && reason.contains("cannot ask anyone"), "{reason}");
        assert!(!reason.contains("allow it with a rule"), "no rule lets it through: {reason}");
    }
    assert_eq!(decisions[2]["decision"], "allow");
    assert!(!sandbox.cwd().join(".openagent/hooks.json").exists());
    assert_eq!(std::fs::read_to_string(yml).unwrap(), config, "agent.yml is as it was");
}
