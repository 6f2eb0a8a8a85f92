//! (a) The tasks against the mock LLM server, each scripted with the mistakes of `tasks.json`:
//! the figure must be exact, and each run must end as its script says.

use openagent_tests::{MockServer, Script};
use serde_json::Value;

use crate::figure::{self, Figure};
use openagent_tests::cli::Running;

#[test]
fn scripted_mistakes_give_ten_valid_results_in_twelve_runs() {
    let sandbox = figure::sandbox();
    let tasks = figure::tasks();
    assert!(tasks.len() >= 10, "the figure needs at least ten tasks");
    let mut figure = Figure::default();
    for task in &tasks {
        let script = Script::from_json(&task.mock.steps.to_string()).unwrap_or_else(|e| panic!("{}: {e}", task.agent));
        let server = MockServer::start(script).expect("a free loopback port");
        let ending = figure::run(&sandbox, task, &format!("{}/v1", server.base_url()), &[]);

        let plan = &task.mock;
        let (code, outcome) = match plan.expect.as_str() {
            "completed" => (0, "success"),
            "no_result" => (1, "failure"),
            "give_up" => (1, "give_up"),
            other => panic!("{}: unknown expectation {other}", task.agent),
        };
        assert_eq!(
            (ending.exit_code, ending.exit_reason.as_str(), ending.outcome.as_str(), ending.attempts),
            (Some(code), plan.expect.as_str(), outcome, plan.attempts),
            "{} ({}): {ending:?}",
            task.agent,
            plan.mistakes
        );
        assert_eq!(server.remaining(), 0, "{}: the run used its whole script", task.agent);
        if ending.valid() {
            // The accepted result is the script's last submission.
            let last = plan.steps.as_array().and_then(|steps| steps.last()).expect("a last step");
            assert_eq!(ending.result_data, last["reply"]["tool_calls"][0]["arguments"], "{}", task.agent);
        }
        figure.rows.push((task.agent.clone(), vec![ending]));
    }
    println!("{}", figure.table("valid results within 3 attempts, mock LLM server with scripted mistakes"));
    assert_eq!(figure.share(), (10, 12), "{}", figure.table("the figure"));
}

/// Every task's agent config loads: `agents list` checks them all.
#[test]
fn every_tasks_agent_config_is_valid() {
    let sandbox = figure::sandbox();
    let listed = Running::start(sandbox.bare(None, &["agents", "list", "--json"])).finish();
    assert_eq!(listed.code, Some(0), "{listed:?}");
    let records: Value = serde_json::from_str(&listed.stdout).expect("a JSON array");
    let ids: Vec<&str> = records.as_array().expect("an array").iter().filter_map(|r| r["id"].as_str()).collect();
    let mut agents: Vec<String> = figure::tasks().into_iter().map(|task| task.agent).collect();
    agents.sort();
    assert_eq!(ids, agents, "one agent per task, no other");
}
