//! The general profile reads the files a task names before its first request
//! (`ProviderProfile::reads_named_files`), through ordinary `read_file` calls: the model starts
//! from the text that is there, the calls pass the approval policy and are seen as events, and
//! the files count as read. The provider profiles leave the task as it is.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::rc::Rc;

use futures::executor::block_on;
use serde_json::json;

use openagent_core::approval::{Permission, Policy, Rule};
use openagent_core::llm::{ContentPart, Message, Role, ScriptStep, ScriptedClient};
use openagent_core::profiles::{AnthropicProfile, GeneralProfile, ProviderProfile};
use openagent_core::runtime::VirtualRuntime;
use openagent_core::session::{EventData, Session, SessionEvent};
use openagent_memenv::MemoryEnvironment;

use crate::testing::{read, write};

const CALC: &str = "def sum_to(n):\n    total = 0\n    for i in range(n):\n        total += i\n    return total\n";

struct Run {
    /// The messages of the first request.
    first: Vec<Message>,
    events: Vec<SessionEvent>,
    env: Rc<MemoryEnvironment>,
}

fn run(
    profile: impl ProviderProfile + 'static,
    policy: Policy,
    files: &[(&str, &str)],
    task: &str,
    steps: Vec<ScriptStep>,
) -> Run {
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    for (path, content) in files {
        write(&*env, path, content);
    }
    let client = Rc::new(ScriptedClient::new(steps));
    let session = Session::builder(Rc::new(profile), env.clone(), client.clone(), runtime).approval(policy).build();
    let mut receiver = session.events();
    block_on(session.submit(task)).unwrap();
    let events = std::iter::from_fn(|| receiver.try_recv()).collect();
    Run { first: client.requests().remove(0).messages, events, env }
}

/// The tool results of `messages`, as (content, is_error).
fn results(messages: &[Message]) -> Vec<(String, bool)> {
    let parts = messages.iter().filter(|m| m.role == Role::Tool).flat_map(|m| m.content.clone());
    parts
        .filter_map(|part| match part {
            ContentPart::ToolResult { tool_result } => Some((tool_result.content.to_string(), tool_result.is_error)),
            _ => None,
        })
        .collect()
}

fn read_calls(events: &[SessionEvent]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.data {
            EventData::ToolCallStart { tool_name, arguments, .. } if tool_name == "read_file" => {
                Some(arguments["file_path"].as_str().unwrap_or_default().to_owned())
            }
            _ => None,
        })
        .collect()
}

#[test]
fn the_files_a_task_names_are_read_before_the_first_request_and_count_as_read() {
    let fix = ScriptStep::tool_call(
        "edit_file",
        json!({"file_path": "mathutil.py", "old_string": "range(n)", "new_string": "range(1, n + 1)"}),
    );
    let r = run(
        GeneralProfile::new("local"),
        Policy::default(),
        &[("mathutil.py", CALC), ("README.md", "# Math\n"), ("big.txt", &"x\n".repeat(5000)), ("src/a.py", "")],
        "The function sum_to(n) in mathutil.py is wrong (see `README.md`, big.txt, src/ and 1.4.2); fix mathutil.py.",
        vec![fix, ScriptStep::text("Fixed.")],
    );
    // The task, then the reads in an assistant turn of their own, then their results.
    let roles: Vec<Role> = r.first.iter().map(|m| m.role).collect();
    assert_eq!(roles[roles.len() - 4..], [Role::User, Role::Assistant, Role::Tool, Role::Tool]);
    let reads = results(&r.first);
    assert_eq!(reads.len(), 2, "{reads:?}");
    assert!(reads[0].0.contains("   3 |     for i in range(n):") && !reads[0].1, "{reads:?}");
    assert_eq!(reads[1], ("   1 | # Math".to_owned(), false));
    // Hosts see the reads as calls; the one file too big and the directory were not read.
    assert_eq!(read_calls(&r.events), ["mathutil.py", "README.md"]);
    // Read, so the edit is not refused for want of a read.
    assert!(read(&*r.env, "mathutil.py").contains("range(1, n + 1)"));
}

#[test]
fn the_reads_pass_the_approval_policy() {
    let deny = Rule { tool: "read_file".into(), command: None, path: Some("secret.txt".into()), decision: Permission::Deny };
    let policy = Policy { rules: vec![deny], ..Policy::default() };
    let r = run(
        GeneralProfile::new("local"),
        policy,
        &[("secret.txt", "token=abc\n"), ("notes.md", "hello\n")],
        "Summarise notes.md and secret.txt.",
        vec![ScriptStep::text("Done.")],
    );
    let reads = results(&r.first);
    assert_eq!(reads[0], ("   1 | hello".to_owned(), false));
    assert!(reads[1].1 && !reads[1].0.contains("token"), "{reads:?}");
}

#[test]
fn files_outside_the_working_directory_and_files_already_read_are_not_read_again() {
    let runtime = Rc::new(VirtualRuntime::new(|_| {}));
    let env = Rc::new(MemoryEnvironment::new(runtime.clone()));
    write(&*env, "/etc/hosts", "127.0.0.1 localhost\n");
    write(&*env, "/outside.txt", "out\n");
    write(&*env, "a.py", "x = 1\n");
    write(&*env, "b.py", "y = 2\n");
    let steps = vec![ScriptStep::text("one"), ScriptStep::text("two")];
    let client = Rc::new(ScriptedClient::new(steps));
    let session = Session::builder(Rc::new(GeneralProfile::new("local")), env, client.clone(), runtime).build();
    block_on(session.submit("Look at /etc/hosts, ../outside.txt and a.py.")).unwrap();
    block_on(session.submit("And a.py again, with b.py?")).unwrap();
    let requests = client.requests();
    assert_eq!(results(&requests[0].messages), [("   1 | x = 1".to_owned(), false)]);
    // The second input names a file the session has read: only the new one is read, under an id
    // of its own in the conversation.
    let second = &requests[1].messages;
    assert_eq!(results(second), [("   1 | x = 1".to_owned(), false), ("   1 | y = 2".to_owned(), false)]);
    let ids: Vec<String> = second
        .iter()
        .flat_map(|m| m.content.clone())
        .filter_map(|part| match part {
            ContentPart::ToolResult { tool_result } => Some(tool_result.tool_call_id),
            _ => None,
        })
        .collect();
    assert_ne!(ids[0], ids[1]);
}

#[test]
fn provider_profiles_leave_the_task_as_it_is() {
    let r = run(
        AnthropicProfile::new("claude-sonnet-4-5"),
        Policy::default(),
        &[("mathutil.py", CALC)],
        "Fix mathutil.py.",
        vec![ScriptStep::text("ok")],
    );
    assert!(results(&r.first).is_empty());
    assert!(read_calls(&r.events).is_empty());
}
