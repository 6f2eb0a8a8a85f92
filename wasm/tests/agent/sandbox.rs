//! `sandbox`: the option in agent.yml's words, and the in-memory shell holding to it.

use js_sys::{Function, Object, Reflect};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::wasm_bindgen_test as test;

use openagent_wasm::Agent;

use crate::support::{agent_with, error_message, js, options, requests, scripted_fetch, submit};

#[wasm_bindgen(module = "/tests/support/commands.js")]
extern "C" {
    fn count() -> Function;
}

fn shell(command: &str) -> Value {
    json!({"name": "shell", "arguments": {"command": command}})
}

/// What the first `shell` call reported to the model.
fn first_output(fetch: &js_sys::Function) -> String {
    let messages = requests(fetch).pop().expect("a request")["body"]["messages"].clone();
    let tool = messages.as_array().into_iter().flatten().find(|m| m["role"] == "tool").expect("a tool result");
    tool["content"].as_str().unwrap_or_default().to_owned()
}

#[test]
async fn a_read_only_sandbox_keeps_the_shell_from_writing_and_says_so() {
    let replies = json!([{"toolCalls": [shell("echo x > a.txt")]}, {"text": "done"}]);
    let (agent, fetch) = agent_with(replies, json!({"sandbox": "read-only"}));
    submit(&agent, "write").await.unwrap();
    assert!(agent.fs().read_text("a.txt").is_err(), "nothing was written");
    let output = first_output(&fetch);
    assert!(output.contains("sh: a.txt: Read-only file system\nExit code: 1"), "{output}");
}

#[test]
async fn workspace_write_is_the_default_and_the_full_form_adds_roots() {
    let replies = json!([{"toolCalls": [shell("echo a > a.txt; mkdir /etc; echo b > /data/b.txt")]}, {"text": "done"}]);
    let (agent, fetch) = agent_with(replies, json!({}));
    agent.fs().mkdir("/data").unwrap();
    submit(&agent, "write").await.unwrap();
    assert_eq!(agent.fs().read_text("a.txt").unwrap(), "a\n");
    assert!(first_output(&fetch).contains("mkdir: cannot create directory '/etc': Permission denied"));

    let replies = json!([{"toolCalls": [shell("echo b > /data/b.txt")]}, {"text": "done"}]);
    let full = json!({"mode": "workspace-write", "writable_roots": ["/data"], "network": ["crates.io"]});
    let (agent, _) = agent_with(replies, json!({ "sandbox": full }));
    agent.fs().mkdir("/data").unwrap();
    submit(&agent, "write").await.unwrap();
    assert_eq!(agent.fs().read_text("/data/b.txt").unwrap(), "b\n");

    let replies = json!([{"toolCalls": [shell("mkdir /etc && echo c > /etc/c")]}, {"text": "done"}]);
    let (agent, _) = agent_with(replies, json!({"sandbox": "full-access"}));
    submit(&agent, "write").await.unwrap();
    assert_eq!(agent.fs().read_text("/etc/c").unwrap(), "c\n");
}

#[test]
async fn a_js_command_writes_through_fs_only_where_the_sandbox_lets_it() {
    let replies = json!([{"toolCalls": [shell("count notes.txt")]}, {"text": "done"}]);
    let fetch = scripted_fetch(js(replies));
    let options = options(&fetch, json!({"sandbox": "read-only", "files": {"notes.txt": "a\nb\n"}}));
    let commands = Object::new();
    Reflect::set(&commands, &"count".into(), &count()).unwrap();
    Reflect::set(&options, &"commands".into(), &commands).unwrap();
    let agent = Agent::new(options).unwrap();
    submit(&agent, "count").await.unwrap();
    assert!(agent.fs().read_text("counts/notes.txt").is_err(), "nothing was written");
    let output = first_output(&fetch);
    assert!(output.contains("count: counts/notes.txt: Read-only file system\nExit code: 1"), "{output}");
}

#[test]
fn a_bad_sandbox_is_an_error_that_names_the_option() {
    for (sandbox, says) in [
        (
            json!("sandboxed"),
            "`sandbox`: unknown sandbox mode `sandboxed`; the modes are read-only, workspace-write, full-access",
        ),
        (json!({"mode": "workspace-write", "network": "sometimes"}), "`sandbox`: the network is `off`, `on` or a list of hosts"),
        (json!({"mode": "workspace-write", "network": ["http://x.org"]}), "is not a host name"),
        (json!({"mode": "read-only", "writable_roots": ["/data"]}), "writable roots apply to workspace-write only"),
        (json!(3), "a sandbox is a mode"),
    ] {
        let fetch = scripted_fetch(js(json!([])));
        let error = Agent::new(options(&fetch, json!({ "sandbox": sandbox }))).err().expect("refused");
        let message = error_message(&error);
        assert!(message.starts_with("invalid Agent options: ") && message.contains(says), "{message}");
    }
}
