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

/// Why the kernel cannot confine commands here, if it cannot.
fn unsupported() -> Option<String> {
    let cwd = std::env::temp_dir();
    openagent_host::local_env::check_sandbox(&Default::default(), &cwd).err()
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
    if let Some(why) = unsupported() {
        eprintln!("skipped: {why}");
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
    if let Some(why) = unsupported() {
        eprintln!("skipped: {why}");
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
