//! `commands`: shell commands written in JS, run by the agent's `shell` tool like builtins.

use crate::support::*;
use js_sys::{Function, Object, Reflect};
use openagent_wasm::Agent;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::wasm_bindgen_test as test;

#[wasm_bindgen(module = "/tests/support/commands.js")]
extern "C" {
    fn up() -> Function;
    fn count() -> Function;
    fn wait() -> Function;
    fn boom() -> Function;
    fn odd() -> Function;
}

/// An agent whose model runs `commands` (each a shell command line, with a timeout in ms) with
/// the `shell` tool, then says it is done; `commands_js` are the JS commands by name.
fn agent_running(lines: &[(&str, u64)], commands_js: &[(&str, &Function)], files: Value) -> (Agent, Function) {
    let calls: Vec<Value> =
        lines.iter().map(|(line, ms)| json!({"name": "shell", "arguments": {"command": line, "timeout_ms": ms}})).collect();
    let fetch = scripted_fetch(js(json!([{"toolCalls": calls}, {"text": "Done."}])));
    let options = options(&fetch, json!({ "files": files }));
    let commands = Object::new();
    for (name, function) in commands_js {
        Reflect::set(&commands, &(*name).into(), function).unwrap();
    }
    Reflect::set(&options, &"commands".into(), &commands).unwrap();
    (Agent::new(options).expect("valid options"), fetch)
}

/// What the `shell` calls reported to the model, in call order.
fn shell_outputs(fetch: &Function) -> Vec<String> {
    let last = requests(fetch).pop().expect("a request");
    let messages = last["body"]["messages"].as_array().cloned().unwrap_or_default();
    messages.iter().filter(|m| m["role"] == "tool").map(|m| m["content"].as_str().unwrap_or_default().to_owned()).collect()
}

fn calls(command: &Function) -> Vec<Value> {
    data(&get(command, "calls")).as_array().cloned().unwrap_or_default()
}

#[test]
async fn a_js_command_runs_in_pipes_redirections_and_conditionals() {
    let up = up();
    let lines = [
        ("echo hello | up | wc -c", 5_000),
        ("GREETING=hi up big words > out.txt && cat out.txt", 5_000),
        ("cd src && up < a.txt", 5_000),
    ];
    let (agent, fetch) = agent_running(&lines, &[("up", &up)], json!({"src/a.txt": "from a file\n"}));
    submit(&agent, "shout").await.unwrap();
    let outputs = shell_outputs(&fetch);
    assert!(outputs[0].starts_with("6\nExit code: 0"), "{}", outputs[0]);
    assert!(outputs[1].starts_with("BIG WORDS\nExit code: 0"), "{}", outputs[1]);
    assert!(outputs[2].starts_with("FROM A FILE\nExit code: 0"), "{}", outputs[2]);
    assert_eq!(agent.fs().read_text("out.txt").unwrap(), "BIG WORDS");
    let seen = calls(&up);
    assert_eq!(seen[1]["argv"], json!(["up", "big", "words"]));
    assert_eq!(seen[1]["env"]["GREETING"], "hi");
    assert_eq!(seen[2]["cwd"], "/workspace/src");
    assert_eq!(seen[0]["sandbox"], json!({"mode": "workspace-write", "network": "off"}), "the session's sandbox, in full");
    let left = seen[0]["timeoutMs"].as_f64().unwrap();
    assert!(left > 4_000.0 && left <= 5_000.0, "the time left: {left}");
}

#[test]
async fn a_js_command_reads_and_writes_the_agents_files() {
    let count = count();
    let (agent, fetch) = agent_running(&[("count notes.txt", 5_000)], &[("count", &count)], json!({"notes.txt": "a\nb\nc\n"}));
    submit(&agent, "count").await.unwrap();
    assert!(shell_outputs(&fetch)[0].starts_with("counted notes.txt\nExit code: 0"));
    assert_eq!(agent.fs().read_text("counts/notes.txt").unwrap(), "3\n");
}

#[test]
async fn the_signal_is_aborted_when_the_timeout_passes() {
    let wait = wait();
    let (agent, fetch) = agent_running(&[("echo first; wait; echo never", 200)], &[("wait", &wait)], json!({}));
    submit(&agent, "wait").await.unwrap();
    let output = &shell_outputs(&fetch)[0];
    assert!(
        output.starts_with("first\n[stderr]\nwait: stopped: still running 250 ms after the timeout\nExit code: 124"),
        "{output}"
    );
    assert!(output.contains("timed out"), "{output}");
    assert_eq!(get(&wait, "aborted").as_bool(), Some(true), "the command's signal was aborted");
}

#[test]
async fn a_command_that_throws_or_answers_garbage_fails_cleanly() {
    let (boom, odd) = (boom(), odd());
    let lines = [("boom || echo after $?", 5_000), ("odd; echo $?", 5_000)];
    let (agent, fetch) = agent_running(&lines, &[("boom", &boom), ("odd", &odd)], json!({}));
    submit(&agent, "fail").await.unwrap();
    let outputs = shell_outputs(&fetch);
    assert!(outputs[0].starts_with("after 1\n[stderr]\nboom: the runner broke\n"), "{}", outputs[0]);
    let expected = "126\n[stderr]\nodd: the command answered a `stdout` that is neither a string nor a Uint8Array, not { stdout, stderr, exitCode }";
    assert!(outputs[1].starts_with(expected), "{}", outputs[1]);
}

#[test]
fn commands_must_be_functions_with_names_the_shell_does_not_have() {
    let fetch = scripted_fetch(js(json!([])));
    for (commands, says) in
        [(json!({"cat": null}), "`commands`.cat must be a function"), (json!("node"), "`commands` must be an object")]
    {
        let options = options(&fetch, json!({}));
        Reflect::set(&options, &"commands".into(), &js(commands)).unwrap();
        let message = error_message(&Agent::new(options).err().unwrap());
        assert!(message.contains(says), "{message}");
    }
    let options = options(&fetch, json!({}));
    let commands = Object::new();
    Reflect::set(&commands, &"cat".into(), &up()).unwrap();
    Reflect::set(&options, &"commands".into(), &commands).unwrap();
    let message = error_message(&Agent::new(options).err().unwrap());
    assert!(message.contains("a host command named `cat`: the built-in shell has one"), "{message}");
}
