//! The approval policy in the loop: each call is allowed, asked about or denied, the answer is a
//! `tool_decision` event, and a denied call is an error result the model reads.

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

use std::cell::RefCell;
use std::rc::Rc;

use async_trait::async_trait;
use futures::executor::block_on;
use serde_json::json;

use openagent_core::approval::{Approval, ApprovalMode, ApprovalRequest, Approver, Permission, Policy, Rule};
use openagent_core::env::ExecutionEnvironment;
use openagent_core::llm::ScriptStep;
use openagent_core::session::{Decision, EventData, Session, SessionEvent, StopReason, Turn};
use openagent_memenv::MemoryEnvironment;

use crate::testing::scripted_session;

struct Answers(RefCell<Vec<Approval>>);

#[async_trait(?Send)]
impl Approver for Answers {
    async fn approve(&self, _request: &ApprovalRequest) -> Approval {
        self.0.borrow_mut().remove(0)
    }
}

fn session(steps: Vec<ScriptStep>, policy: Policy, answers: Option<Vec<Approval>>) -> (Session, Rc<MemoryEnvironment>) {
    let (builder, env) = scripted_session(steps);
    let mut builder = builder.approval(policy);
    if let Some(answers) = answers {
        builder = builder.approver(Rc::new(Answers(RefCell::new(answers))));
    }
    (builder.build(), env)
}

fn decisions(events: &[SessionEvent]) -> Vec<(Decision, String, Option<String>)> {
    events
        .iter()
        .filter_map(|e| match &e.data {
            EventData::ToolDecision { decision, source, reason, .. } => Some((*decision, source.clone(), reason.clone())),
            _ => None,
        })
        .collect()
}

fn run(session: &Session) -> Vec<SessionEvent> {
    let mut events = session.events();
    assert_eq!(block_on(session.submit("go")).unwrap(), StopReason::Completed);
    let mut out = Vec::new();
    while let Some(event) = events.try_recv() {
        out.push(event);
    }
    out
}

fn write(path: &str) -> ScriptStep {
    ScriptStep::tool_call("write_file", json!({"file_path": path, "content": "x"}))
}

#[test]
fn a_denied_call_is_an_error_result_the_model_reads_and_the_session_goes_on() {
    let rules =
        vec![Rule { tool: "write_file".into(), command: None, path: Some("secret/**".into()), decision: Permission::Deny }];
    let policy = Policy { mode: ApprovalMode::FullAuto, rules };
    let (session, env) = session(vec![write("secret/key"), write("ok.txt"), ScriptStep::text("done")], policy, None);
    let events = run(&session);
    let decided = decisions(&events);
    assert_eq!(decided[0].0, Decision::Deny);
    assert_eq!(decided[0].1, "rule");
    assert_eq!(decided[0].2.as_deref(), Some("rule 1 of the approval policy (write_file `secret/**`: deny)"));
    assert_eq!((decided[1].0, decided[1].1.as_str(), decided[1].2.as_deref()), (Decision::Allow, "mode", None));
    let results = Turn::tool_results(&session.history());
    assert!(results[0].is_error, "{:?}", results[0]);
    assert_eq!(
        &*results[0].content,
        "Not run: the call to write_file was denied (rule 1 of the approval policy (write_file `secret/**`: deny)). \
         Do something else, or ask the user."
    );
    assert!(block_on(env.read_file("secret/key", None, None)).is_err(), "the denied write did not happen");
    assert!(block_on(env.read_file("ok.txt", None, None)).is_ok());
}

#[test]
fn ask_goes_to_the_approver_and_its_answer_is_the_decision() {
    let policy = Policy { mode: ApprovalMode::ReadOnly, rules: vec![] };
    let answers = vec![Approval::Deny(Some("not there".into())), Approval::AllowAlways, Approval::Deny(None)];
    let steps = vec![write("a.txt"), write("b.txt"), write("b.txt"), write("c.txt"), ScriptStep::text("done")];
    let (session, env) = session(steps, policy, Some(answers));
    let events = run(&session);
    let asked: Vec<_> = events
        .iter()
        .filter_map(|e| match &e.data {
            EventData::ApprovalRequested { tool_name, reason, always, .. } => {
                Some((tool_name.as_str(), reason.as_str(), always.as_str()))
            }
            _ => None,
        })
        .collect();
    let reason = "the read-only approval mode asks before file edits";
    let expected = |path| ("write_file", reason, path);
    assert_eq!(asked, [expected("write_file `a.txt`"), expected("write_file `b.txt`"), expected("write_file `c.txt`")]);
    let decided = decisions(&events);
    assert_eq!(decided[0], (Decision::Deny, "approver".into(), Some("not there".into())));
    assert_eq!(decided[1], (Decision::Allow, "approver".into(), Some("allowed always for write_file `b.txt`".into())));
    let always = Some("allowed always for write_file `b.txt` earlier in this session".into());
    assert_eq!(decided[2], (Decision::Allow, "approver".into(), always), "not asked again");
    assert_eq!(decided[3], (Decision::Deny, "approver".into(), Some("the user denied this call".into())));
    assert!(block_on(env.read_file("a.txt", None, None)).is_err());
    assert!(block_on(env.read_file("b.txt", None, None)).is_ok());
    let results = Turn::tool_results(&session.history());
    assert!(results[0].is_error && results[0].content.contains("(not there)"), "{:?}", results[0]);
}

#[test]
fn without_an_approver_ask_is_denied_and_reported() {
    let policy = Policy { mode: ApprovalMode::AutoEdit, rules: vec![] };
    let steps = vec![ScriptStep::tool_call("shell", json!({"command": "echo hi"})), write("a.txt"), ScriptStep::text("done")];
    let (session, _env) = session(steps, policy, None);
    let decided = decisions(&run(&session));
    assert_eq!(decided[0].0, Decision::Deny);
    assert_eq!(decided[0].2.as_deref(), Some("the auto-edit approval mode asks before commands, and no one can be asked here"));
    assert_eq!(decided[1].0, Decision::Allow, "auto-edit allows file edits");
}

fn read(path: &str) -> ScriptStep {
    ScriptStep::tool_call("read_file", json!({"file_path": path}))
}

#[test]
fn a_deny_rule_holds_for_the_file_a_path_reaches_through_dot_dot() {
    let rules = vec![Rule { tool: "*_file".into(), command: None, path: Some("secrets/**".into()), decision: Permission::Deny }];
    let policy = Policy { mode: ApprovalMode::FullAuto, rules };
    let (session, env) = session(vec![read("docs/../secrets/key"), ScriptStep::text("done")], policy, None);
    block_on(env.write_file("secrets/key", "hunter2")).unwrap();
    run(&session);
    let results = Turn::tool_results(&session.history());
    assert!(results[0].is_error && !results[0].content.contains("hunter2"), "{:?}", results[0]);
}

#[test]
fn an_allow_for_a_folder_does_not_cover_a_path_that_leaves_it() {
    let rules =
        vec![Rule { tool: "write_file".into(), command: None, path: Some("docs/**".into()), decision: Permission::Allow }];
    let policy = Policy { mode: ApprovalMode::ReadOnly, rules };
    let (session, env) = session(vec![write("docs/../x"), write("docs/a"), ScriptStep::text("done")], policy, None);
    let decided = decisions(&run(&session));
    assert_eq!(decided[0].0, Decision::Deny, "{decided:?}");
    assert!(block_on(env.read_file("x", None, None)).is_err(), "nothing landed outside docs/");
    assert_eq!(decided[1].0, Decision::Allow);
}

#[test]
fn in_auto_edit_the_agents_own_configuration_is_not_written_without_asking() {
    let policy = Policy { mode: ApprovalMode::AutoEdit, rules: vec![] };
    let steps = vec![write(".openagent/hooks.json"), write(".openagent/agents/a/agent.yml"), ScriptStep::text("done")];
    let (session, env) = session(steps, policy, None);
    let decided = decisions(&run(&session));
    assert_eq!(decided[0].0, Decision::Deny, "{decided:?}");
    assert_eq!(decided[1].0, Decision::Deny, "{decided:?}");
    assert!(decided[0].2.as_deref().is_some_and(|reason| reason.contains("the agent's own configuration")), "{decided:?}");
    assert!(block_on(env.read_file(".openagent/hooks.json", None, None)).is_err());
}
