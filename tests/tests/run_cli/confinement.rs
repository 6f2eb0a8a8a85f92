//! The sandbox end to end, through the binary and the mock LLM: the model asks for a write
//! outside the workspace, a connection to a listener on 127.0.0.1 and a change to `.git/config`;
//! under the default (`workspace-write`, network off) each is denied by the kernel, reported to
//! the model as the sandbox's refusal, and, `run` having no one to ask, kept in the sandbox with
//! a `tool_decision` whose source is `sandbox`, in the store as in the output. A write inside
//! the workspace works. `--sandbox full-access` allows all of them. Skipped, saying why, where
//! the kernel cannot confine commands.

use std::net::TcpListener;
use std::path::Path;

use openagent_tests::cli::Sandbox;
use openagent_tests::over_http::serve;
use openagent_tests::{Reply, Step};
use serde_json::{json, Value};

use super::{call, ANSWER, TASK};

/// Whether the kernel can confine commands here; says why not, for the test to be skipped.
fn can_confine() -> bool {
    let cwd = std::env::temp_dir();
    let checked = openagent_host::local_env::check_sandbox(&Default::default(), &cwd);
    checked.map_err(|why| eprintln!("skipped: {why}")).is_ok()
}

fn shell(id: &str, command: &str) -> Step {
    call(id, "shell", json!({ "command": command }))
}

/// The four calls, then the answer; `outside` is a directory neither the workspace nor the
/// run's temporary directory holds, `port` a listener's.
fn steps(outside: &Path, port: u16) -> Vec<Step> {
    vec![
        shell("toolu_out", &format!("echo escaped > {}/escape.txt", outside.display())),
        shell("toolu_net", &format!("echo hello > /dev/tcp/127.0.0.1/{port}")),
        shell("toolu_git", "echo '[core] fsmonitor = evil' >> .git/config"),
        shell("toolu_in", "echo fine > inside.txt"),
        Step::reply(Reply::text(ANSWER)),
    ]
}

/// `openagent run` with the run's temporary directory inside the sandbox's root, so that the
/// root's `outside/` is outside every writable root.
fn run(sandbox: &Sandbox, steps: Vec<Step>, extra: &[&str]) -> (openagent_tests::cli::Finished, Vec<String>) {
    let tmp = sandbox.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let server = serve(steps);
    let args = [&["run", TASK, "--output", "json"], extra].concat();
    let run = sandbox.run_with_env(&server, &args, &[("TMPDIR", tmp.to_str().unwrap()), ("OPENAGENT_RUN_ID", "r_confined")]);
    let bodies = server.requests().iter().map(|request| request.body.to_string()).collect();
    (run, bodies)
}

fn prepared() -> (Sandbox, std::path::PathBuf, TcpListener) {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.cwd().join(".git")).unwrap();
    std::fs::write(sandbox.cwd().join(".git/config"), "[core]\n").unwrap();
    let outside = sandbox.path("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    (sandbox, outside, listener)
}

fn by_call(decisions: &[Value], id: &str) -> Vec<(String, String)> {
    let of_call = decisions.iter().filter(|d| d["call_id"] == id);
    of_call.map(|d| (d["decision"].as_str().unwrap().to_owned(), d["source"].as_str().unwrap().to_owned())).collect()
}

#[test]
fn the_default_sandbox_denies_each_escape_tells_the_model_and_keeps_the_workspace_writable() {
    if !can_confine() {
        return;
    }
    let (sandbox, outside, listener) = prepared();
    let port = listener.local_addr().unwrap().port();
    let (run, bodies) = run(&sandbox, steps(&outside, port), &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let decisions = run.data_of("tool_decision");
    for id in ["toolu_out", "toolu_net", "toolu_git"] {
        let decided = by_call(&decisions, id);
        assert_eq!(decided, [("allow".into(), "mode".into()), ("deny".into(), "sandbox".into())], "{id}: {decisions:?}");
        let reason = decisions.iter().find(|d| d["call_id"] == id && d["source"] == "sandbox").unwrap()["reason"].to_string();
        assert!(reason.contains("--sandbox"), "run names the flag that widens the sandbox: {reason}");
    }
    assert_eq!(by_call(&decisions, "toolu_in"), [("allow".to_owned(), "mode".to_owned())]);
    assert!(!outside.join("escape.txt").exists(), "the write outside was refused");
    assert!(listener.accept().is_err(), "no connection reached the listener");
    assert_eq!(std::fs::read_to_string(sandbox.cwd().join(".git/config")).unwrap(), "[core]\n");
    assert_eq!(std::fs::read_to_string(sandbox.cwd().join("inside.txt")).unwrap(), "fine\n");
    // Each refusal reaches the model with the command's own output.
    let told = bodies.last().unwrap();
    assert_eq!(told.matches("[The sandbox (workspace-write, network off) refused").count(), 3, "{told}");
    assert!(told.contains("Not run outside the sandbox"), "{told}");
    // And each is in the store, as the output has it.
    let stored = sandbox.sessions(&["events", "r_confined", "--json"]);
    let in_store = stored.stdout.lines().filter(|line| line.contains("\"source\":\"sandbox\"")).count();
    assert_eq!(in_store, 3, "{}", stored.stdout);
}

#[test]
fn full_access_allows_each_of_them() {
    if !can_confine() {
        return;
    }
    let (sandbox, outside, listener) = prepared();
    let port = listener.local_addr().unwrap().port();
    let (run, _) = run(&sandbox, steps(&outside, port), &["--sandbox", "full-access"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let sourced = run.data_of("tool_decision").iter().filter(|d| d["source"] == "sandbox").count();
    assert_eq!(sourced, 0, "nothing was the sandbox's to decide");
    assert_eq!(std::fs::read_to_string(outside.join("escape.txt")).unwrap(), "escaped\n");
    assert!(listener.accept().is_ok(), "the connection reached the listener");
    assert!(std::fs::read_to_string(sandbox.cwd().join(".git/config")).unwrap().contains("fsmonitor"));
    assert!(sandbox.cwd().join("inside.txt").exists());
}

/// The interactive session asks, on failure, whether a command the sandbox refused may run outside
/// it: yes runs it again with the user's rights, no keeps it in; "always" is not offered.
#[test]
fn the_interactive_session_asks_to_run_a_refused_command_outside_the_sandbox() {
    if !can_confine() {
        return;
    }
    let (sandbox, outside, _listener) = prepared();
    let server = serve([
        shell("toolu_yes", &format!("echo allowed > {}/yes.txt", outside.display())),
        shell("toolu_no", &format!("echo kept > {}/no.txt", outside.display())),
        Step::reply(Reply::text(ANSWER)),
    ]);
    let tmp = sandbox.path("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let mut command = sandbox.openagent(Some(&server), &["--approval", "full-auto"]);
    command.env("TMPDIR", &tmp);
    let mut terminal = crate::terminal::Terminal::start(command, None, None);
    terminal.wait_for("sandbox workspace-write");
    terminal.type_bytes(b"write outside\n");
    terminal.wait_for("refused a write");
    terminal.wait_for("Run it outside the sandbox? [y]es, [n]o: ");
    terminal.type_bytes(b"y\n");
    terminal.wait_for("? shell echo kept");
    terminal.type_bytes(b"n\n");
    terminal.wait_for("Why not?");
    terminal.type_bytes(b"\n");
    terminal.wait_for(ANSWER);
    assert!(!terminal.shown().contains("[a]lways"), "no always for running outside the sandbox");
    terminal.type_bytes(b"\x04");
    assert_eq!(terminal.exit_code(), Some(0));
    assert_eq!(std::fs::read_to_string(outside.join("yes.txt")).unwrap(), "allowed\n");
    assert!(!outside.join("no.txt").exists());
    let told = server.requests()[2].body.to_string();
    assert!(told.contains("[Run again outside the sandbox, as the user allowed:]"), "{told}");
    assert!(told.contains("[Not run outside the sandbox: the user denied this call.]"), "{told}");
}

/// `serve` asks its client, on failure, whether a command the sandbox refused may run outside it.
#[test]
fn serve_asks_its_client_to_run_a_refused_command_outside_the_sandbox() {
    if !can_confine() {
        return;
    }
    let (sandbox, _outside, listener) = prepared();
    let port = listener.local_addr().unwrap().port();
    let mock = serve([shell("toolu_net", &format!("echo hello > /dev/tcp/127.0.0.1/{port}")), Step::reply(Reply::text(ANSWER))]);
    let api = crate::api::Serve::start(&sandbox, Some(&mock), &[]);
    let id = api.start_session(&json!({"task": TASK}));
    let mut stream = api.events(&id, "");
    let asked = loop {
        let frame = stream.next_frame().expect("the stream goes on until the call is answered");
        if frame.event == "approval_requested" {
            break frame.data["data"].clone();
        }
    };
    assert_eq!(asked["call_id"], "toolu_net");
    let reason = asked["reason"].as_str().unwrap();
    assert!(reason.starts_with("the sandbox (workspace-write, network off) refused a network connection"), "{reason}");
    assert!(reason.ends_with("; run it outside the sandbox?"), "{reason}");
    assert!(listener.accept().is_err(), "nothing reached the listener from inside");
    let answered = api.call("POST", &format!("/sessions/{id}/approvals/toolu_net"), Some(&json!({"decision": "allow"})));
    assert_eq!(answered.status, 202, "{answered:?}");
    assert_eq!(api.wait_for_result(&id)["result_text"], ANSWER);
    listener.set_nonblocking(false).unwrap();
    assert!(listener.accept().is_ok(), "run again outside the sandbox, it connected");
    let decided: Vec<Value> =
        api.events(&id, "").rest().into_iter().filter(|f| f.event == "tool_decision").map(|f| f.data["data"].clone()).collect();
    assert_eq!(by_call(&decided, "toolu_net"), [("allow".into(), "mode".into()), ("allow".into(), "sandbox".into())]);
}
