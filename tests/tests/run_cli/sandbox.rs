//! The sandbox policy through the binary: the same words for `run`, the interactive session and
//! serve (`--sandbox`, `--sandbox-network`, `--writable-root`, agent.yml's `sandbox:`, a serve
//! request's `sandbox`), the policy recorded in `run_started` and `config.json`, bad values refused
//! before any model call, and `/sandbox` on the screen.

use openagent_tests::cli::{read_json, Running, Sandbox};
use openagent_tests::over_http::serve;
use openagent_tests::{Reply, Step};
use serde_json::{json, Value};

use super::agents::agent;
use super::api::Serve;
use super::{ANSWER, TASK};
use crate::tmux::Tmux;

/// The policy a run recorded: in `run_started` and in its `config.json`, which must agree.
fn recorded(run: &openagent_tests::cli::Finished) -> Value {
    let started = &run.data_of("run_started")[0];
    let config = read_json(&std::path::Path::new(started["artifacts_dir"].as_str().expect("artifacts")).join("config.json"));
    assert_eq!(config["sandbox"], started["sandbox"], "config.json and run_started agree");
    started["sandbox"].clone()
}

#[test]
fn a_run_is_workspace_write_with_the_network_off_by_default_and_the_flags_widen_it() {
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text(ANSWER)), Step::reply(Reply::text(ANSWER))]);
    let run = sandbox.run_json(&server, TASK, &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(recorded(&run), json!({"mode": "workspace-write", "network": "off"}));

    // Each root must exist (the check before the first model call refuses one that does not).
    let (cache, data) = (sandbox.path("cache"), sandbox.path("data-too"));
    std::fs::create_dir_all(&cache).unwrap();
    std::fs::create_dir_all(&data).unwrap();
    let data = data.display().to_string();
    let flags = ["--sandbox-network", "crates.io,*.npmjs.org", "--writable-root", "../cache", "--writable-root", &data];
    let run = sandbox.run_json(&server, TASK, &flags);
    assert_eq!(run.code, Some(0), "{run:?}");
    // Relative to the current directory (the working one here), with `..` folded.
    let cache = cache.display().to_string();
    assert_eq!(
        recorded(&run),
        json!({"mode": "workspace-write", "writable_roots": [cache, data], "network": ["crates.io", "*.npmjs.org"]})
    );
}

#[test]
fn sandbox_flags_with_bad_values_name_the_flag_and_the_words_before_any_model_call() {
    let sandbox = Sandbox::new();
    let server = serve([]);
    let refused = |flags: &[&str], wanted: &[&str]| {
        let run = sandbox.run_json(&server, TASK, flags);
        assert_eq!(run.code, Some(2), "{run:?}");
        let said = format!("{}{}", run.stderr, run.stdout);
        for wanted in wanted {
            assert!(said.contains(wanted), "{wanted:?} in {said}");
        }
    };
    refused(
        &["--sandbox", "yolo"],
        &["'--sandbox <MODE>'", "unknown sandbox mode `yolo`; the modes are read-only, workspace-write, full-access"],
    );
    refused(
        &["--sandbox-network", "https://crates.io"],
        &["--sandbox-network", "is not a host name", "the network `on` or `off`"],
    );
    refused(
        &["--sandbox", "read-only", "--writable-root", "/srv"],
        &["the sandbox policy cannot be used: writable roots apply to workspace-write only, not read-only"],
    );
    assert!(server.requests().is_empty(), "the model was never called");
}

#[test]
fn help_says_the_default_and_how_to_widen_it() {
    let sandbox = Sandbox::new();
    for command in [&["run", "--help"][..], &["--help"], &["serve", "--help"]] {
        let help = Running::start(sandbox.bare(None, command)).finish();
        let text = help.stdout.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(text.contains("--sandbox <MODE>") && text.contains("--writable-root <DIR>"), "{command:?}: {text}");
        assert!(text.contains("else workspace-write with the network off"), "{command:?}: {text}");
        assert!(text.contains("--sandbox full-access or --sandbox-network on"), "{command:?}: {text}");
    }
}

#[test]
fn an_agent_configs_sandbox_holds_under_the_flags_and_a_bad_one_is_refused_naming_its_line() {
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text(ANSWER)), Step::reply(Reply::text(ANSWER)), Step::reply(Reply::text(ANSWER))]);
    let config = "schema: openagent.agent/1\nid: careful\nname: Careful\nprovider: anthropic\nsandbox:\n  mode: read-only\n  network: on\n";
    agent(&sandbox, "careful", config);
    let run = sandbox.run_json(&server, TASK, &["--agent", "careful"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(recorded(&run), json!({"mode": "read-only", "network": "on"}));
    let run = sandbox.run_json(&server, TASK, &["--agent", "careful", "--sandbox-network", "off"]);
    assert_eq!(recorded(&run), json!({"mode": "read-only", "network": "off"}), "the network flag over the config's");
    let run = sandbox.run_json(&server, TASK, &["--agent", "careful", "--sandbox", "full-access"]);
    assert_eq!(recorded(&run)["mode"], "full-access", "the mode flag over the config's");

    let server = serve([]);
    let config = "schema: openagent.agent/1\nid: bad\nname: Bad\nsandbox: jail\n";
    agent(&sandbox, "bad", config);
    let run = sandbox.run_json(&server, TASK, &["--agent", "bad"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let error = run.run_finished()["error"].as_str().expect("the error").to_owned();
    assert!(error.contains("agent.yml:4: sandbox"), "file, line and field: {error}");
    assert!(error.contains("unknown sandbox mode `jail`; the modes are read-only, workspace-write, full-access"), "{error}");
    let config = "schema: openagent.agent/1\nid: rel\nname: Rel\nsandbox: {mode: workspace-write, writable_roots: [data]}\n";
    agent(&sandbox, "rel", config);
    let run = sandbox.run_json(&server, TASK, &["--agent", "rel"]);
    let error = run.run_finished()["error"].as_str().expect("the error").to_owned();
    assert!(error.contains("the writable root `data` is not an absolute path"), "{error}");
    assert!(server.requests().is_empty(), "the model was never called");
}

/// Where this machine cannot enforce the policy, the run refuses before any request, naming what
/// is missing and `--sandbox full-access` (openagent-host's `local_env::check_sandbox`, with its
/// test seam `OPENAGENT_CONFINE_PRETEND_MISSING`); so does a writable root that does not exist or
/// is a symlink.
#[test]
fn a_policy_this_machine_cannot_enforce_refuses_the_run_before_any_model_call() {
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text(ANSWER))]);
    let pretend = [("OPENAGENT_CONFINE_PRETEND_MISSING", "landlock")];
    let run = sandbox.run_with_env(&server, &["run", TASK, "--output", "json"], &pretend);
    assert_eq!(run.code, Some(2), "{run:?}");
    let error = run.run_finished()["error"].as_str().expect("the error").to_owned();
    assert!(error.starts_with("this machine cannot enforce the sandbox (workspace-write, network off): "), "{error}");
    assert!(error.to_lowercase().contains("landlock") && error.contains("--sandbox full-access"), "{error}");
    assert!(server.requests().is_empty(), "the model was never called");
    let run = sandbox.run_with_env(&server, &["run", TASK, "--output", "json", "--sandbox", "full-access"], &pretend);
    assert_eq!(run.code, Some(0), "full-access needs no confinement: {run:?}");

    let real = sandbox.path("real");
    std::fs::create_dir_all(&real).unwrap();
    std::os::unix::fs::symlink(&real, sandbox.path("link")).unwrap();
    for (root, why) in [("../missing", "does not exist"), ("../link", "symlink")] {
        let run = sandbox.run_json(&server, TASK, &["--writable-root", root]);
        assert_eq!(run.code, Some(2), "{run:?}");
        let error = run.run_finished()["error"].as_str().expect("the error").to_owned();
        assert!(error.contains("the writable root") && error.contains(why), "{root}: {error}");
    }
    assert_eq!(server.requests().len(), 1, "only the full-access run reached the model");
}

#[test]
fn serve_takes_a_sandbox_per_session_and_refuses_a_bad_one_with_400_naming_the_field() {
    let sandbox = Sandbox::new();
    let mock = serve([Step::reply(Reply::text(ANSWER))]);
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    for bad in [json!("yolo"), json!({"mode": "read-only", "network": "sometimes"}), json!({"mode": "read-only", "roots": []})] {
        let refused = api.call("POST", "/sessions", Some(&json!({"task": TASK, "sandbox": bad})));
        assert_eq!(refused.status, 400, "{refused:?}");
        assert!(refused.error().starts_with("sandbox: "), "{refused:?}");
    }
    let id = api.start_session(&json!({"task": TASK, "sandbox": {"mode": "workspace-write", "network": ["crates.io"]}}));
    api.wait_for_result(&id);
    let shown = api.show(&id);
    assert_eq!(shown["config"]["sandbox"], json!({"mode": "workspace-write", "network": ["crates.io"]}), "{shown}");
    assert!(mock.requests().len() == 1, "the refused ones never reached the model");
}

/// `/sandbox` shows the policy and the modes; `/sandbox MODE` and `/sandbox network on` change it
/// for the next input, and an unknown mode is a note, not an end.
#[test]
fn the_sandbox_command_shows_and_changes_the_policy() {
    if !Tmux::available("the_sandbox_command_shows_and_changes_the_policy") {
        return;
    }
    let sandbox = Sandbox::new();
    let server = serve([]);
    let tmux = Tmux::start(&sandbox.openagent(Some(&server), &[]), 120, 40, "true");
    tmux.wait_for("/help lists the commands");
    tmux.send_line("/sandbox");
    tmux.wait_for("sandbox   workspace-write, network off");
    tmux.wait_for("modes     read-only, workspace-write, full-access");
    for (command, shown) in [
        ("/sandbox jail", "✗ unknown sandbox mode `jail`; the modes are read-only, workspace-write, full-access"),
        ("/sandbox read-only", "sandbox: read-only, network off, from the next input"),
        ("/sandbox network on", "sandbox: read-only, network on, from the next input"),
        ("/sandbox network ftp://x", "✗ `ftp://x` is not a host name"),
        ("/status", "sandbox   read-only, network on"),
    ] {
        tmux.send_line(command);
        tmux.wait_for(shown);
    }
    assert!(server.requests().is_empty(), "nothing reached the model");
}

/// A hook is the user's own program: `full-access` unless its entry says otherwise, and an entry
/// whose `sandbox` cannot be used is refused, naming the file, before any model call.
#[test]
fn a_hooks_sandbox_is_read_with_the_hook_and_a_bad_one_refused() {
    let sandbox = Sandbox::new();
    std::fs::create_dir_all(sandbox.cwd().join(".openagent")).expect("the directory");
    let server = serve([]);
    sandbox.write(".openagent/hooks.json", r#"{"hooks": {"session_end": [{"command": "true", "sandbox": "jail"}]}}"#);
    let run = sandbox.run_json(&server, TASK, &[]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let error = run.run_finished()["error"].as_str().expect("the error").to_owned();
    assert!(error.contains(".openagent/hooks.json: unknown sandbox mode `jail`"), "{error}");
    assert!(server.requests().is_empty(), "the model was never called");

    let server = serve([Step::reply(Reply::text(ANSWER))]);
    let hooks =
        r#"{"hooks": {"session_end": [{"command": "touch ended", "sandbox": {"mode": "workspace-write", "network": "on"}}]}}"#;
    sandbox.write(".openagent/hooks.json", hooks);
    sandbox.trust();
    let run = sandbox.run_json(&server, TASK, &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(sandbox.cwd().join("ended").exists(), "the hook ran");
}
