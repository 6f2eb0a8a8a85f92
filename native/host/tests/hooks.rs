//! Hooks as real commands: what they are given, what their exits mean, and the ones that hang,
//! crash, leave a daemon holding their pipes or print what cannot be read.

use std::path::Path;
use std::time::{Duration, Instant};

use futures::executor::block_on;
use openagent_core::hooks::{HookEvent, HookInput, HookOutcome, Hooks};
use openagent_host::hooks::{CommandHooks, HookCommand, MAX_TEXT};
use openagent_tests::processes::{assert_no_survivor, TempDir};
use serde_json::json;

fn hook(point: &'static str, command: &str) -> HookCommand {
    HookCommand { point, matcher: None, command: command.into(), timeout_ms: 10_000, sandbox: None }
}

fn pre(dir: &Path, tool: &str) -> HookInput {
    HookInput {
        session_id: "s1".into(),
        cwd: dir.display().to_string(),
        event: HookEvent::PreToolUse { call_id: "c1".into(), tool_name: tool.into(), tool_input: json!({"command": "ls"}) },
    }
}

fn run(dir: &Path, hooks: Vec<HookCommand>, input: &HookInput) -> HookOutcome {
    block_on(CommandHooks::new(dir.to_owned(), hooks).run(input))
}

#[test]
fn a_hook_reads_the_event_as_json_on_stdin_in_the_working_directory() {
    let dir = TempDir::new();
    let outcome =
        run(dir.0.as_path(), vec![hook("pre_tool_use", "cat > seen.json; pwd > where")], &pre(dir.0.as_path(), "shell"));
    assert_eq!(outcome, HookOutcome::default());
    let seen: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.0.as_path().join("seen.json")).unwrap()).unwrap();
    assert_eq!(
        seen,
        json!({"hook_event_name": "pre_tool_use", "session_id": "s1", "cwd": dir.0.as_path().display().to_string(),
               "call_id": "c1", "tool_name": "shell", "tool_input": {"command": "ls"}})
    );
    let cwd = std::fs::read_to_string(dir.0.as_path().join("where")).unwrap();
    assert_eq!(Path::new(cwd.trim()).canonicalize().unwrap(), dir.0.as_path().canonicalize().unwrap());
}

#[test]
fn exit_2_blocks_with_stderr_as_the_reason_and_later_hooks_do_not_run() {
    let dir = TempDir::new();
    let hooks = vec![hook("pre_tool_use", "echo 'no shell on Fridays' >&2; exit 2"), hook("pre_tool_use", "touch ran-second")];
    let outcome = run(dir.0.as_path(), hooks, &pre(dir.0.as_path(), "shell"));
    assert_eq!(outcome.block.as_deref(), Some("no shell on Fridays"));
    assert!(!dir.0.as_path().join("ran-second").exists());

    let silent = run(dir.0.as_path(), vec![hook("pre_tool_use", "exit 2")], &pre(dir.0.as_path(), "shell"));
    assert_eq!(silent.block.as_deref(), Some("hook `exit 2` (pre_tool_use) gave no reason"));
}

#[test]
fn a_matcher_limits_a_hook_to_the_tools_it_names() {
    let dir = TempDir::new();
    let only = |matcher: &str| HookCommand { matcher: Some(matcher.into()), ..hook("pre_tool_use", "exit 2") };
    assert!(run(dir.0.as_path(), vec![only("shell")], &pre(dir.0.as_path(), "shell")).block.is_some());
    assert!(run(dir.0.as_path(), vec![only("shell")], &pre(dir.0.as_path(), "shell_extra")).block.is_none());
    assert!(run(dir.0.as_path(), vec![only("write_file | mcp__*")], &pre(dir.0.as_path(), "mcp__fs__read")).block.is_some());
    assert!(run(dir.0.as_path(), vec![only("mcp__fs__*")], &pre(dir.0.as_path(), "mcp__docs__read")).block.is_none());
    // Another point's hooks do not run.
    assert!(run(dir.0.as_path(), vec![hook("post_tool_use", "exit 2")], &pre(dir.0.as_path(), "shell")).block.is_none());
}

#[test]
fn a_pre_tool_use_hook_rewrites_the_arguments_and_the_next_hook_sees_them() {
    let dir = TempDir::new();
    let hooks =
        vec![hook("pre_tool_use", r#"echo '{"tool_input": {"command": "ls -la"}}'"#), hook("pre_tool_use", "cat > second.json")];
    let outcome = run(dir.0.as_path(), hooks, &pre(dir.0.as_path(), "shell"));
    assert_eq!(outcome.tool_input, Some(json!({"command": "ls -la"})));
    let second = std::fs::read_to_string(dir.0.as_path().join("second.json")).unwrap();
    assert!(second.contains(r#""tool_input":{"command":"ls -la"}"#), "{second}");
}

#[test]
fn output_that_cannot_be_read_is_a_failure_and_changes_nothing() {
    let dir = TempDir::new();
    let outcome = run(dir.0.as_path(), vec![hook("pre_tool_use", "echo '{not json'")], &pre(dir.0.as_path(), "shell"));
    assert_eq!(outcome.tool_input, None);
    assert_eq!(outcome.failures.len(), 1);
    assert!(
        outcome.failures[0].starts_with("hook `echo '{not json'` (pre_tool_use) printed output that is not JSON"),
        "{outcome:?}"
    );

    let outcome =
        run(dir.0.as_path(), vec![hook("pre_tool_use", r#"echo '{"tool_input": "rm -rf /"}'"#)], &pre(dir.0.as_path(), "shell"));
    assert_eq!(outcome.tool_input, None);
    assert!(outcome.failures[0].contains("a `tool_input` that is not an object"), "{outcome:?}");
}

#[test]
fn a_crash_or_a_missing_command_is_a_failure_naming_the_hook_and_its_stderr() {
    let dir = TempDir::new();
    let hooks = vec![hook("pre_tool_use", "echo dying >&2; kill -SEGV $$"), hook("pre_tool_use", "./no-such-hook.sh")];
    let outcome = run(dir.0.as_path(), hooks, &pre(dir.0.as_path(), "shell"));
    assert_eq!(outcome.block, None);
    assert_eq!(outcome.failures.len(), 2, "{outcome:?}");
    assert!(
        outcome.failures[0].starts_with("hook `echo dying >&2; kill -SEGV $$` (pre_tool_use) failed with exit code"),
        "{outcome:?}"
    );
    assert!(outcome.failures[0].ends_with(": dying"), "{outcome:?}");
    assert!(outcome.failures[1].contains("failed with exit code 127"), "{outcome:?}");
    assert!(outcome.failures[1].contains("no-such-hook.sh"), "{outcome:?}");
}

#[test]
fn a_hook_that_hangs_is_stopped_at_its_timeout_and_reported() {
    let dir = TempDir::new();
    let started = Instant::now();
    let slow = HookCommand { timeout_ms: 300, ..hook("pre_tool_use", "sleep 30") };
    let outcome = run(dir.0.as_path(), vec![slow], &pre(dir.0.as_path(), "shell"));
    assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    assert_eq!(outcome.failures, ["hook `sleep 30` (pre_tool_use) timed out after 0.3 s and was stopped"]);
    assert_eq!(outcome.block, None);
}

#[test]
fn a_daemon_left_holding_the_pipes_does_not_hold_the_session() {
    let dir = TempDir::new();
    let started = Instant::now();
    let daemon = hook("pre_tool_use", "setsid sleep 27.3 & (sleep 27.4 &); echo fine");
    let outcome = run(dir.0.as_path(), vec![daemon], &pre(dir.0.as_path(), "shell"));
    assert_eq!(outcome, HookOutcome::default());
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
    assert_no_survivor("27.3");
    assert_no_survivor("27.4");
}

#[test]
fn a_hook_that_reads_none_of_a_large_event_still_ends() {
    let dir = TempDir::new();
    let mut input = pre(dir.0.as_path(), "shell");
    input.event = HookEvent::UserPromptSubmit { prompt: "x".repeat(4 * 1024 * 1024) };
    let started = Instant::now();
    let outcome = run(dir.0.as_path(), vec![hook("user_prompt_submit", "exit 0")], &input);
    assert_eq!(outcome, HookOutcome::default());
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[test]
fn user_prompt_submit_output_is_context_and_long_text_is_cut() {
    let dir = TempDir::new();
    let mut input = pre(dir.0.as_path(), "shell");
    input.event = HookEvent::UserPromptSubmit { prompt: "which branch?".into() };
    let hooks = vec![hook("user_prompt_submit", "echo branch: main"), hook("user_prompt_submit", "echo clean tree")];
    let outcome = run(dir.0.as_path(), hooks, &input);
    assert_eq!(outcome.context.as_deref(), Some("branch: main\n\nclean tree"));

    let endless = hook("user_prompt_submit", "head -c 100000 /dev/zero | tr '\\0' y; echo; exit 2");
    let outcome = run(
        dir.0.as_path(),
        vec![HookCommand { command: endless.command.replace("; echo; exit 2", " >&2; exit 2"), ..endless }],
        &input,
    );
    let reason = outcome.block.unwrap();
    assert!(reason.len() < MAX_TEXT + 64, "{}", reason.len());
    assert!(reason.ends_with(&format!("[... {} more bytes]", 100_000 - MAX_TEXT)), "{}", &reason[reason.len() - 40..]);
}

#[test]
fn a_hook_with_a_sandbox_policy_is_confined_and_one_without_keeps_the_users_rights() {
    let dir = TempDir::new();
    let policy = openagent_core::sandbox::SandboxPolicy::new(openagent_core::sandbox::SandboxMode::ReadOnly);
    if let Err(why) = openagent_host::local_env::check_sandbox(&policy, dir.0.as_path()) {
        eprintln!("skipped: this kernel cannot confine commands: {why}");
        return;
    }
    let confined = HookCommand { sandbox: Some(policy), ..hook("pre_tool_use", "echo x > confined.txt") };
    let outcome = run(dir.0.as_path(), vec![confined], &pre(dir.0.as_path(), "shell"));
    assert_eq!(outcome.failures.len(), 1, "{outcome:?}");
    assert!(
        outcome.failures[0].contains("failed with exit code 1") && outcome.failures[0].contains("Permission denied"),
        "{outcome:?}"
    );
    assert!(!dir.0.as_path().join("confined.txt").exists());
    let outcome = run(dir.0.as_path(), vec![hook("pre_tool_use", "echo x > free.txt")], &pre(dir.0.as_path(), "shell"));
    assert_eq!(outcome, HookOutcome::default());
    assert!(dir.0.as_path().join("free.txt").exists());
}
