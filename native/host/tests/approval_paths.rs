//! Approval path rules on the real filesystem, through a whole session (scripted model,
//! `LocalEnvironment`): a rule holds for the file a path reaches, through `..` and symlinks, and
//! the agent's own configuration is not written behind a link without asking.

use std::os::unix::fs::symlink;
use std::rc::Rc;

use openagent_core::approval::{ApprovalMode, Permission, Policy, Rule};
use openagent_core::llm::{ScriptStep, ScriptedClient};
use openagent_core::session::{Decision, EventData, StopReason, Turn};
use openagent_core::tools::{register_core_tools, ToolRegistry};
use openagent_core::{CoreProfile, Session};
use openagent_host::NativeRuntime;
use serde_json::json;

use openagent_tests::processes::TempDir;

const SECRET: &str = "hunter2";

fn path_rule(tool: &str, path: &str, decision: Permission) -> Rule {
    Rule { tool: tool.into(), command: None, path: Some(path.into()), decision }
}

/// A workspace with `secrets/key`, `docs/` and `src/`, and the links a test asks for (`name ->
/// target`, the target relative to the link's folder).
fn workspace(links: &[(&str, &str)]) -> TempDir {
    let dir = TempDir::new();
    for folder in ["secrets", "docs", "src"] {
        std::fs::create_dir_all(dir.0.join(folder)).unwrap();
    }
    std::fs::write(dir.0.join("secrets/key"), SECRET).unwrap();
    for (link, target) in links {
        symlink(target, dir.0.join(link)).unwrap();
    }
    dir
}

/// Runs a session whose model makes `calls` in turn under `policy`, with no one to ask; the
/// decisions, and the results the model read.
fn run(dir: &TempDir, policy: Policy, calls: Vec<ScriptStep>) -> (Vec<Decision>, Vec<String>) {
    let runtime = Rc::new(NativeRuntime::new());
    let mut steps = calls;
    steps.push(ScriptStep::text("done"));
    let mut tools = ToolRegistry::new();
    register_core_tools(&mut tools);
    let profile = Rc::new(CoreProfile::new("scripted", tools));
    let client = Rc::new(ScriptedClient::new(steps));
    let session = Session::builder(profile, Rc::new(dir.env()), client, runtime.clone()).approval(policy).build();
    let mut events = session.events();
    assert_eq!(runtime.block_on(session.submit("go")), Ok(StopReason::Completed));
    let decisions = std::iter::from_fn(|| events.try_recv())
        .filter_map(|event| match event.data {
            EventData::ToolDecision { decision, .. } => Some(decision),
            _ => None,
        })
        .collect();
    let results = Turn::tool_results(&session.history()).into_iter().map(|result| result.content.to_string()).collect();
    (decisions, results)
}

fn read(path: &str) -> ScriptStep {
    ScriptStep::tool_call("read_file", json!({ "file_path": path }))
}

fn write(path: &str) -> ScriptStep {
    ScriptStep::tool_call("write_file", json!({ "file_path": path, "content": "x" }))
}

fn deny_secrets() -> Policy {
    Policy { mode: ApprovalMode::FullAuto, rules: vec![path_rule("*_file", "secrets/**", Permission::Deny)] }
}

#[test]
fn a_deny_rule_holds_through_dot_dot_a_symlinked_folder_and_a_symlinked_file() {
    let dir = workspace(&[("alias", "secrets"), ("docs/key", "../secrets/key")]);
    let mut policy = deny_secrets();
    policy.rules.push(path_rule("read_file", "docs/**", Permission::Allow));
    let (decisions, results) = run(&dir, policy, vec![read("docs/../secrets/key"), read("alias/key"), read("docs/key")]);
    assert_eq!(decisions, [Decision::Deny; 3], "{results:?}");
    for result in &results {
        assert!(!result.contains(SECRET) && result.contains("secrets/**"), "{result}");
    }
}

#[test]
fn a_path_that_cannot_be_resolved_matches_the_deny_rules() {
    let dir = workspace(&[("docs/gone", "../nowhere/key"), ("docs/loop", "loop")]);
    let (decisions, results) = run(&dir, deny_secrets(), vec![read("docs/gone"), read("docs/loop")]);
    assert_eq!(decisions, [Decision::Deny; 2], "{results:?}");
    assert!(results[0].contains("cannot be resolved"), "{}", results[0]);
}

#[test]
fn an_allow_for_docs_does_not_let_a_write_land_outside_docs() {
    let dir = workspace(&[("docs/link", "../src")]);
    let policy = Policy { mode: ApprovalMode::ReadOnly, rules: vec![path_rule("write_file", "docs/**", Permission::Allow)] };
    let (decisions, results) = run(&dir, policy, vec![write("docs/../x"), write("docs/link/x"), write("docs/a.md")]);
    assert_eq!(decisions, [Decision::Deny, Decision::Deny, Decision::Allow], "{results:?}");
    assert!(!dir.0.join("x").exists() && !dir.0.join("src/x").exists(), "nothing landed outside docs/");
    assert!(dir.0.join("docs/a.md").exists());
}

#[test]
fn grep_and_glob_over_a_root_that_holds_a_denied_path_are_refused_naming_the_rule() {
    let dir = workspace(&[("alias", "secrets")]);
    let policy = Policy { mode: ApprovalMode::FullAuto, rules: vec![path_rule("*", "secrets/**", Permission::Deny)] };
    let calls = vec![
        ScriptStep::tool_call("grep", json!({ "pattern": SECRET })),
        ScriptStep::tool_call("grep", json!({ "pattern": SECRET, "path": "." })),
        ScriptStep::tool_call("grep", json!({ "pattern": SECRET, "path": "alias" })),
        ScriptStep::tool_call("glob", json!({ "pattern": "**/*" })),
        ScriptStep::tool_call("grep", json!({ "pattern": SECRET, "path": "docs" })),
    ];
    let (decisions, results) = run(&dir, policy, calls);
    assert_eq!(decisions[..4], [Decision::Deny; 4], "{results:?}");
    assert!(results[0].contains("rule 1 of the approval policy (* `secrets/**`: deny)"), "{}", results[0]);
    assert!(results[0].contains("search a narrower path"), "{}", results[0]);
    assert!(results.iter().all(|result| !result.contains(&format!("key:1:{SECRET}"))), "{results:?}");
    assert_eq!(decisions[4], Decision::Allow, "a search that leaves secrets/ out runs");
}

#[test]
fn a_symlink_into_the_agents_configuration_is_caught_in_auto_edit() {
    let dir = workspace(&[("conf", ".openagent"), ("docs/hooks.json", "../.openagent/hooks.json")]);
    std::fs::create_dir_all(dir.0.join(".openagent")).unwrap();
    let policy = Policy { mode: ApprovalMode::AutoEdit, rules: vec![path_rule("write_file", "**", Permission::Allow)] };
    let calls = vec![write(".openagent/hooks.json"), write("conf/mcp.json"), write("docs/hooks.json"), write("docs/ok.md")];
    let (decisions, results) = run(&dir, policy, calls);
    assert_eq!(decisions, [Decision::Deny, Decision::Deny, Decision::Deny, Decision::Allow], "{results:?}");
    assert!(results[1].contains("the agent's own configuration"), "{}", results[1]);
    assert!(std::fs::read_dir(dir.0.join(".openagent")).unwrap().next().is_none(), "nothing was written there");
}
