#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::RefCell;
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;
use serde_json::json;

use crate::testing::{context, memory_env, run_err, run_ok, write};
use openagent_core::env::{EnvError, ExecOptions, ExecResult};
use openagent_core::tools::{ShellTool, ToolContext, ToolExecutor};
use openagent_memenv::{CommandRunner, MemoryEnvironment};

/// Answers every command with `result` (or `error`) and records how it was asked, for what
/// the built-in shell cannot show: timeouts, the options passed, failures to run.
#[derive(Default)]
struct Canned {
    result: ExecResult,
    error: Option<EnvError>,
    asked: RefCell<Vec<(String, u64)>>,
}

#[async_trait(?Send)]
impl CommandRunner for Canned {
    async fn run(&self, command: &str, options: &ExecOptions) -> Result<ExecResult, EnvError> {
        self.asked.borrow_mut().push((command.to_owned(), options.timeout_ms));
        if let Some(on_output) = &options.on_output {
            on_output(&self.result.stdout);
        }
        self.error.clone().map_or_else(|| Ok(self.result.clone()), Err)
    }
}

fn canned(stdout: &str, stderr: &str, exit_code: i32) -> Rc<Canned> {
    let result = ExecResult { stdout: stdout.into(), stderr: stderr.into(), exit_code, duration_ms: 42, ..ExecResult::default() };
    Rc::new(Canned { result, ..Canned::default() })
}

fn env_with(runner: &Rc<Canned>) -> MemoryEnvironment {
    memory_env().with_command_runner(runner.clone())
}

#[test]
fn runs_a_command_in_the_memory_environment() {
    let env = memory_env();
    write(&env, "a.txt", "alpha\nbeta\n");
    let out = run_ok(&ShellTool, &env, json!({"command": "cat a.txt", "description": "show a.txt"}));
    assert_eq!(out, "alpha\nbeta\nExit code: 0\nDuration: 0ms");
}

#[test]
fn workdir_runs_the_command_elsewhere() {
    let env = memory_env();
    write(&env, "sub/b.txt", "");
    let out = run_ok(&ShellTool, &env, json!({"command": "pwd && ls", "workdir": "sub"}));
    assert_eq!(out, "/workspace/sub\nb.txt\nExit code: 0\nDuration: 0ms");
}

#[test]
fn a_failing_command_is_output_not_an_error() {
    let env = memory_env();
    let out = run_ok(&ShellTool, &env, json!({"command": "echo start && cat missing.txt"}));
    assert_eq!(out, "start\n[stderr]\ncat: missing.txt: No such file or directory\nExit code: 1\nDuration: 0ms");
}

#[test]
fn only_stderr_is_shown_unlabelled() {
    let env = env_with(&canned("", "boom\n", 2));
    assert_eq!(run_ok(&ShellTool, &env, json!({"command": "x"})), "boom\nExit code: 2\nDuration: 42ms");
}

#[test]
fn no_output_says_so() {
    let env = env_with(&canned("", "", 0));
    assert_eq!(run_ok(&ShellTool, &env, json!({"command": "x"})), "(no output)\nExit code: 0\nDuration: 42ms");
}

#[test]
fn stdout_and_stderr_are_both_shown() {
    let env = env_with(&canned("out\n", "err\n", 0));
    assert_eq!(run_ok(&ShellTool, &env, json!({"command": "x"})), "out\n[stderr]\nerr\nExit code: 0\nDuration: 42ms");
}

#[test]
fn a_timeout_keeps_the_partial_output_and_appends_the_spec_message() {
    let env = memory_env();
    let out = run_ok(&ShellTool, &env, json!({"command": "echo a && sleep 20 && echo b", "timeout_ms": 500}));
    assert_eq!(
        out,
        "a\nExit code: 124\nDuration: 500ms\n[ERROR: Command timed out after 500ms. Partial output is shown above.\n\
         You can retry with a longer timeout by setting the timeout_ms parameter.]"
    );
}

#[test]
fn timeouts_default_and_are_capped() {
    let runner = canned("", "", 0);
    let env = env_with(&runner);
    run_ok(&ShellTool, &env, json!({"command": "a"}));
    run_ok(&ShellTool, &env, json!({"command": "b", "timeout_ms": 30_000}));
    run_ok(&ShellTool, &env, json!({"command": "c", "timeout_ms": 5_000_000}));
    let asked = runner.asked.borrow().clone();
    assert_eq!(asked, [("a".into(), 10_000), ("b".into(), 30_000), ("c".into(), 600_000)]);
}

#[test]
fn output_streams_to_the_host() {
    let env = env_with(&canned("chunk", "", 0));
    let seen = Rc::new(RefCell::new(String::new()));
    let sink = seen.clone();
    let ctx = ToolContext { on_output: Some(Rc::new(move |s: &str| sink.borrow_mut().push_str(s))), ..context(&env) };
    block_on(ShellTool.execute(&json!({"command": "x"}), &ctx)).expect("ran");
    assert_eq!(*seen.borrow(), "chunk");
}

#[test]
fn a_command_that_cannot_run_is_a_tool_error() {
    let env = env_with(&Rc::new(Canned { error: Some(EnvError::Unsupported("commands".into())), ..Canned::default() }));
    assert_eq!(run_err(&ShellTool, &env, json!({"command": "x"})), "not supported in this environment: commands");
}
