//! The sandbox policy in the loop: a file tool's write it does not allow is refused before the
//! tool runs, as a `tool_decision` whose source is `sandbox`, unless the host's approver lets it
//! run outside the sandbox; a command it denied runs again outside it only when allowed.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::RefCell;
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;
use serde_json::json;

use openagent_core::approval::{Approval, ApprovalRequest, Approver};
use openagent_core::env::ExecutionEnvironment;
use openagent_core::llm::ScriptStep;
use openagent_core::sandbox::{SandboxMode, SandboxPolicy};
use openagent_core::session::{Decision, EventData, Session, SessionEvent, StopReason};
use openagent_memenv::MemoryEnvironment;

use crate::testing::scripted_session;

/// Answers in turn, keeping the requests it was asked.
#[derive(Default)]
struct Answers(RefCell<Vec<Approval>>, RefCell<Vec<ApprovalRequest>>);

#[async_trait(?Send)]
impl Approver for Answers {
    async fn approve(&self, request: &ApprovalRequest) -> Approval {
        self.1.borrow_mut().push(request.clone());
        self.0.borrow_mut().remove(0)
    }
}

fn session(steps: Vec<ScriptStep>, sandbox: SandboxPolicy, answers: Option<Rc<Answers>>) -> (Session, Rc<MemoryEnvironment>) {
    let (builder, env) = scripted_session(steps);
    let mut builder = builder.sandbox(sandbox);
    if let Some(answers) = answers {
        builder = builder.approver(answers);
    }
    (builder.build(), env)
}

fn run(session: &Session) -> Vec<SessionEvent> {
    let mut events = session.events();
    assert_eq!(block_on(session.submit("go")).unwrap(), StopReason::Completed);
    std::iter::from_fn(|| events.try_recv()).collect()
}

fn decisions(events: &[SessionEvent]) -> Vec<(Decision, String, String)> {
    let decided = events.iter().filter_map(|e| match &e.data {
        EventData::ToolDecision { decision, source, reason, .. } => {
            Some((*decision, source.clone(), reason.clone().unwrap_or_default()))
        }
        _ => None,
    });
    decided.collect()
}

fn ends(events: &[SessionEvent]) -> Vec<(Option<String>, Option<String>)> {
    let ended = events.iter().filter_map(|e| match &e.data {
        EventData::ToolCallEnd { output, error, .. } => Some((output.as_ref().map(|o| o.to_string()), error.clone())),
        _ => None,
    });
    ended.collect()
}

fn write(path: &str) -> ScriptStep {
    ScriptStep::tool_call("write_file", json!({"file_path": path, "content": "x"}))
}

#[test]
fn read_only_refuses_a_file_tools_write_before_it_runs_as_the_sandboxs_decision() {
    let (session, env) =
        session(vec![write("notes.md"), ScriptStep::text("done")], SandboxPolicy::new(SandboxMode::ReadOnly), None);
    let events = run(&session);
    let decided = decisions(&events);
    assert_eq!(decided.len(), 2, "{decided:?}");
    assert_eq!((decided[0].0, decided[0].1.as_str()), (Decision::Allow, "mode"));
    assert_eq!((decided[1].0, decided[1].1.as_str()), (Decision::Deny, "sandbox"));
    assert!(decided[1].2.contains("the sandbox (read-only, network off) refused a write to notes.md"), "{}", decided[1].2);
    assert!(decided[1].2.contains("no one can be asked"), "{}", decided[1].2);
    let error = ends(&events)[0].1.clone().unwrap();
    assert!(error.starts_with("Not run: the sandbox"), "{error}");
    assert!(block_on(env.read_file("notes.md", None, None)).is_err(), "nothing was written");
}

#[test]
fn workspace_write_keeps_git_config_read_only_and_writes_the_rest() {
    let steps = vec![write(".git/config"), write("src/lib.rs"), ScriptStep::text("done")];
    let (session, env) = session(steps, SandboxPolicy::default(), None);
    let events = run(&session);
    let decided = decisions(&events);
    assert_eq!(
        decided.iter().map(|d| (d.0, d.1.as_str())).collect::<Vec<_>>(),
        [(Decision::Allow, "mode"), (Decision::Deny, "sandbox"), (Decision::Allow, "mode")]
    );
    assert!(decided[1].2.contains("`.git/config` stays read-only"), "{}", decided[1].2);
    assert!(block_on(env.read_file(".git/config", None, None)).is_err());
    assert_eq!(block_on(env.read_file("src/lib.rs", None, None)).unwrap(), "x");
}

#[test]
fn the_user_may_let_a_refused_write_happen_outside_the_sandbox_once() {
    let answers = Rc::new(Answers(RefCell::new(vec![Approval::AllowAlways, Approval::Deny(None)]), RefCell::default()));
    let steps = vec![write(".git/config"), write(".git/hooks/pre-commit"), ScriptStep::text("done")];
    let (session, env) = session(steps, SandboxPolicy::default(), Some(answers.clone()));
    let events = run(&session);
    let decided = decisions(&events);
    assert_eq!(
        decided.iter().map(|d| (d.0, d.1.as_str())).collect::<Vec<_>>(),
        [(Decision::Allow, "mode"), (Decision::Allow, "sandbox"), (Decision::Allow, "mode"), (Decision::Deny, "sandbox")]
    );
    assert_eq!(decided[1].2, "allowed to run outside the sandbox this once: each such call asks");
    assert!(decided[3].2.ends_with("the user did not allow it outside the sandbox"), "{}", decided[3].2);
    let asked = answers.1.borrow();
    assert_eq!(asked.len(), 2, "\"always\" did not carry over to the second write");
    assert!(asked.iter().all(|request| request.outside_sandbox && request.protected));
    assert!(asked[0].reason.ends_with("; run it outside the sandbox?"), "{}", asked[0].reason);
    let requested = events.iter().filter(|e| matches!(e.data, EventData::ApprovalRequested { .. })).count();
    assert_eq!(requested, 2, "each question is an approval_requested event");
    assert_eq!(block_on(env.read_file(".git/config", None, None)).unwrap(), "x");
    assert!(block_on(env.read_file(".git/hooks/pre-commit", None, None)).is_err());
}

#[test]
fn full_access_writes_anything_the_tools_may_with_one_decision_each() {
    let (session, env) = session(vec![write(".git/config"), ScriptStep::text("done")], SandboxPolicy::full_access(), None);
    let events = run(&session);
    assert_eq!(decisions(&events).len(), 1);
    assert_eq!(block_on(env.read_file(".git/config", None, None)).unwrap(), "x");
}

fn shell(command: &str) -> ScriptStep {
    ScriptStep::tool_call("shell", json!({ "command": command }))
}

#[test]
fn a_command_the_sandbox_denied_is_told_to_the_model_and_kept_in_without_anyone_to_ask() {
    let (session, env) =
        session(vec![shell("mkdir -p /srv && echo x > /srv/motd"), ScriptStep::text("done")], SandboxPolicy::default(), None);
    let events = run(&session);
    let decided = decisions(&events);
    assert_eq!(
        decided.iter().map(|d| (d.0, d.1.as_str())).collect::<Vec<_>>(),
        [(Decision::Allow, "mode"), (Decision::Deny, "sandbox")]
    );
    let output = ends(&events)[0].0.clone().expect("the command ran, and its output is the result");
    assert!(output.contains("Permission denied"), "the command's own output: {output}");
    assert!(
        output.contains("[The sandbox (workspace-write, network off) refused a write to /srv outside the writable roots.]"),
        "{output}"
    );
    assert!(output.contains("[Not run outside the sandbox: the sandbox"), "{output}");
    assert!(block_on(env.read_file("/srv/motd", None, None)).is_err());
}

#[test]
fn allowed_outside_the_sandbox_a_denied_command_runs_again_with_the_users_rights() {
    let answers = Rc::new(Answers(RefCell::new(vec![Approval::Allow]), RefCell::default()));
    let steps = vec![shell("mkdir -p /srv && echo x > /srv/motd"), shell("echo fine > ok.txt"), ScriptStep::text("done")];
    let (session, env) = session(steps, SandboxPolicy::default(), Some(answers.clone()));
    let events = run(&session);
    let decided = decisions(&events);
    assert_eq!(
        decided.iter().map(|d| (d.0, d.1.as_str())).collect::<Vec<_>>(),
        [(Decision::Allow, "mode"), (Decision::Allow, "sandbox"), (Decision::Allow, "mode")]
    );
    let output = ends(&events)[0].0.clone().unwrap();
    assert!(output.contains("[Run again outside the sandbox, as the user allowed:]"), "{output}");
    assert_eq!(block_on(env.read_file("/srv/motd", None, None)).unwrap(), "x\n");
    assert_eq!(answers.1.borrow().len(), 1, "the command inside the workspace asked nothing");
    assert_eq!(block_on(env.read_file("ok.txt", None, None)).unwrap(), "fine\n");
}
