//! Agent configs through the binary: `openagent agents list` (human and JSON, broken configs),
//! and `openagent run --agent` against the mock: the correction loop, a run without a
//! submission, `give_up`, the tool allow-list and instructions in the request the mock records,
//! flags over the config, a broken config refused before any model call, and the interactive
//! session's `--agent`.

use openagent_tests::{Reply, Step, ToolCall};
use serde_json::{json, Value};

use super::call;
use openagent_tests::cli::{read_json, Running, Sandbox};
use openagent_tests::over_http::serve;

/// A reviewer on the mock's Anthropic API (the sandbox points its key and URL at the mock).
const REVIEWER: &str = "\
schema: openagent.agent/1
id: reviewer
name: Reviewer
provider: anthropic
model: claude-sonnet-4-5
instructions: Review like a pirate.
tools: [read_file, grep]
limits:
  max_turns: 5
output:
  schema:
    type: object
    required: [summary, approved]
    additionalProperties: false
    properties:
      summary: { type: string, minLength: 10 }
      approved: { type: boolean }
";

const TASK: &str = "review the notes";

fn valid() -> Value {
    json!({"summary": "The notes are fine, arr.", "approved": true})
}

fn submit(arguments: Value) -> Step {
    Step::reply(Reply { tool_calls: vec![ToolCall { name: "submit_result".into(), arguments, id: None }], ..Reply::default() })
}

/// Writes `.openagent/agents/<id>/agent.yml` in the sandbox's working directory.
pub(crate) fn agent(sandbox: &Sandbox, id: &str, text: &str) {
    let dir = sandbox.cwd().join(".openagent/agents").join(id);
    std::fs::create_dir_all(&dir).expect("the agent's directory");
    std::fs::write(dir.join("agent.yml"), text).expect("the config");
}

fn with_reviewer() -> Sandbox {
    let sandbox = Sandbox::new();
    agent(&sandbox, "reviewer", REVIEWER);
    sandbox
}

/// Invalid, invalid, valid.
fn corrected_twice() -> Vec<Step> {
    vec![
        submit(json!({"summary": "ok", "approved": "yes"})),
        submit(json!({"summary": "Looks fine overall.", "approved": true, "extra": 1})),
        submit(valid()),
    ]
}

#[test]
fn agents_list_shows_each_config_and_exits_1_when_one_is_broken() {
    let sandbox = Sandbox::new();
    let none = Running::start(sandbox.bare(None, &["agents", "list"])).finish();
    assert_eq!((none.code, none.stdout.as_str()), (Some(0), ""), "{none:?}");
    assert!(none.stderr.starts_with("no agents in ") && none.stderr.contains(".openagent/agents"), "{none:?}");

    agent(&sandbox, "reviewer", REVIEWER);
    let ok = Running::start(sandbox.bare(None, &["agents", "list"])).finish();
    assert_eq!(ok.code, Some(0), "{ok:?}");
    assert_eq!(ok.stdout, "✓ reviewer  Reviewer · anthropic claude-sonnet-4-5 · tools: read_file, grep · structured result\n");
    assert_eq!(ok.stderr, "1 agent, 0 broken\n");

    let broken = REVIEWER.replace("id: reviewer", "id: typo").replace("tools: [read_file, grep]", "tols: [read_file]");
    agent(&sandbox, "typo", &broken);
    let cwd = sandbox.cwd();
    let listed = Running::start(sandbox.bare(None, &["agents", "list", "--cwd", cwd.to_str().expect("UTF-8")])).finish();
    assert_eq!(listed.code, Some(1), "{listed:?}");
    let lines: Vec<&str> = listed.stdout.lines().collect();
    assert_eq!(lines[1], "✗ typo", "{listed:?}");
    assert!(
        lines[2].starts_with("    .openagent/agents/typo/agent.yml:7: tols: is not a key of this format (the keys here are"),
        "{listed:?}"
    );
    assert_eq!(listed.stderr, "2 agents, 1 broken\n");

    let json = Running::start(sandbox.bare(None, &["agents", "list", "--json"])).finish();
    assert_eq!(json.code, Some(1), "{json:?}");
    let records: Value = serde_json::from_str(&json.stdout).expect("one JSON array");
    assert_eq!(records[0]["id"], "reviewer");
    assert_eq!((&records[0]["ok"], &records[0]["problems"]), (&json!(true), &json!([])));
    assert_eq!(records[0]["file"], ".openagent/agents/reviewer/agent.yml");
    assert_eq!(records[0]["config"]["output"]["schema"]["required"], json!(["summary", "approved"]));
    assert_eq!((&records[1]["ok"], &records[1]["config"]), (&json!(false), &Value::Null));
    assert_eq!((&records[1]["problems"][0]["field"], &records[1]["problems"][0]["line"]), (&json!("tols"), &json!(7)));
    assert_eq!(json.stderr, "", "JSON mode says nothing else");
}

#[test]
fn run_agent_corrects_invalid_results_until_valid_and_reports_result_data() {
    let sandbox = with_reviewer();
    let server = serve(corrected_twice());
    let run = sandbox.run_json(&server, TASK, &["--agent", "reviewer"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let done = run.run_finished();
    assert_eq!((&done["exit_reason"], &done["ok"]), (&json!("completed"), &json!(true)), "{done}");
    assert_eq!(done["result_data"], valid(), "{done}");
    assert_eq!(done["outcome"]["status"], "success", "{done}");
    assert_eq!(done["outcome"]["metrics"]["retries"], 2, "two corrections: {done}");

    // Refused submissions are denied by the schema check, with every problem as the reason.
    let decisions = run.data_of("tool_decision");
    let decided: Vec<_> = decisions.iter().map(|d| (d["tool"].as_str(), d["decision"].as_str(), d["source"].as_str())).collect();
    let submit = |decision, source| (Some("submit_result"), Some(decision), Some(source));
    assert_eq!(decided, [submit("deny", "schema"), submit("deny", "schema"), submit("allow", "mode")]);
    let refusal = decisions[0]["reason"].as_str().expect("the refusal");
    assert!(refusal.starts_with("The result does not match the required structure (attempt 1 of 3)"), "{refusal}");
    assert!(refusal.contains("/approved") && refusal.contains("/summary"), "every problem is named: {refusal}");
    assert!(decisions[1]["reason"].as_str().is_some_and(|r| r.contains("unexpected property \"extra\"")), "{decisions:?}");
    let requests = server.requests();
    assert_eq!(requests.len(), 3, "an accepted result ends the run");
    assert!(requests[2].body.to_string().contains("attempt 2 of 3"), "the model sees the second refusal");

    // Human mode: the result, pretty, on stdout at the end.
    let human = sandbox.run(&serve(corrected_twice()), TASK, &["--agent", "reviewer"]);
    assert_eq!(human.code, Some(0), "{human:?}");
    let pretty = serde_json::to_string_pretty(&valid()).expect("JSON");
    assert!(human.stdout.ends_with(&format!("{pretty}\n")), "{human:?}");
    assert!(human.stderr.contains("✓ completed · 3 turns · 3 tool calls"), "{}", human.stderr);
}

#[test]
fn run_agent_without_a_valid_submission_exits_1_with_no_result() {
    let sandbox = with_reviewer();
    let prose = || Step::reply(Reply::text("The notes look fine to me."));
    let server = serve([prose(), submit(json!({"summary": "short"})), prose()]);
    let run = sandbox.run_json(&server, TASK, &["--agent", "reviewer"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    let done = run.run_finished();
    assert_eq!((&done["exit_reason"], &done["ok"]), (&json!("no_result"), &json!(false)), "{done}");
    assert_eq!((&done["outcome"]["status"], &done["result_data"]), (&json!("failure"), &Value::Null), "{done}");
    assert_eq!(done["outcome"]["summary"], "Agent did not call submit_result tool with a valid result within 3 attempts.");
    assert_eq!(done["error"], done["outcome"]["summary"], "a failed run says why");
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn run_agent_give_up_exits_1_with_the_give_up_outcome() {
    let sandbox = with_reviewer();
    let give_up = |arguments: Value| {
        serve([Step::reply(Reply {
            tool_calls: vec![ToolCall { name: "give_up".into(), arguments, id: None }],
            ..Reply::default()
        })])
    };
    let run = sandbox.run_json(&give_up(json!({"reason": "There are no notes to review."})), TASK, &["--agent", "reviewer"]);
    assert_eq!(run.code, Some(1), "{run:?}");
    let done = run.run_finished();
    assert_eq!((&done["exit_reason"], &done["outcome"]["status"]), (&json!("give_up"), &json!("give_up")), "{done}");
    assert_eq!(done["outcome"]["summary"], "There are no notes to review.");
    assert_eq!(done["error"], "There are no notes to review.");
    assert_eq!(done["result_data"], Value::Null);

    // Saying what was done makes it a partial success; the run still did not deliver: exit 1.
    let partial = json!({"reason": "Half the notes are unreadable.", "completed": "Reviewed the first half."});
    let human = sandbox.run(&give_up(partial), TASK, &["--agent", "reviewer"]);
    assert_eq!(human.code, Some(1), "{human:?}");
    assert!(human.stderr.contains("■ give up · 1 turn · 1 tool call"), "{}", human.stderr);
    assert!(human.stderr.contains("Half the notes are unreadable."), "the reason is shown: {}", human.stderr);
}

#[test]
fn run_agent_offers_only_its_tools_with_its_instructions_and_model() {
    let sandbox = with_reviewer();
    sandbox.write("notes.txt", "hello\n");
    let server = serve([call("toolu_read", "read_file", json!({"file_path": "notes.txt"})), submit(valid())]);
    let run = sandbox.run_json(&server, TASK, &["--agent", "reviewer"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let request = &server.requests()[0].body;
    let tools: Vec<&str> = request["tools"].as_array().expect("tools").iter().filter_map(|t| t["name"].as_str()).collect();
    assert_eq!(tools, ["read_file", "grep", "submit_result", "give_up"], "only the allowed tools, and the result's");
    assert_eq!(request["model"], "claude-sonnet-4-5");
    let system = request["system"].to_string();
    assert!(system.contains("Review like a pirate.") && system.contains("you MUST call `submit_result`"), "{system}");

    let started = &run.data_of("run_started")[0];
    let config = read_json(&std::path::Path::new(started["artifacts_dir"].as_str().expect("artifacts")).join("config.json"));
    assert_eq!((&config["agent"]["id"], &config["max_turns"]), (&json!("reviewer"), &json!(5)), "{config}");
}

#[test]
fn run_agent_flags_override_the_configs_model_and_limits() {
    let sandbox = with_reviewer();
    let server = serve(corrected_twice());
    let run = sandbox.run_json(&server, TASK, &["--agent", "reviewer", "--model", "claude-other", "--max-turns", "1"]);
    assert_eq!(run.code, Some(3), "{run:?}");
    assert_eq!(run.run_finished()["exit_reason"], "max_turns");
    assert!(run.run_finished()["error"].as_str().is_some_and(|e| e.contains("max_turns")), "{:?}", run.run_finished());
    let requests = server.requests();
    assert_eq!((requests.len(), &requests[0].body["model"]), (1, &json!("claude-other")));
}

#[test]
fn run_agent_refuses_a_broken_or_missing_config_before_calling_the_model() {
    let sandbox = Sandbox::new();
    agent(&sandbox, "reviewer", &REVIEWER.replace("tools: [read_file, grep]", "tools: [read_file, shel]"));
    let server = serve([submit(valid())]);
    for (id, wanted) in [
        ("reviewer", "agent.yml:7: tools[1]: unknown tool `shel`; the anthropic profile's tools are read_file,"),
        ("nobody", "agent.yml: no agent `nobody` here: this file does not exist"),
    ] {
        let run = sandbox.run_json(&server, TASK, &["--agent", id]);
        assert_eq!(run.code, Some(2), "{run:?}");
        let done = run.run_finished();
        assert_eq!(done["exit_reason"], "config_error", "{done}");
        let error = done["error"].as_str().expect("an error");
        assert!(error.contains(".openagent/agents/") && error.contains(wanted), "{error}");
    }
    assert!(server.requests().is_empty(), "the model was never called");
}

#[test]
fn interactive_session_takes_an_agent_and_prints_its_result() {
    let sandbox = with_reviewer();
    let server = serve([submit(valid())]);
    let mut session = Running::with_stdin(sandbox.openagent(Some(&server), &["--agent", "reviewer"]));
    session.write(&format!("{TASK}\n"));
    let run = session.finish();
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.starts_with("OpenAgent · agent reviewer · anthropic · claude-sonnet-4-5"), "{}", run.stderr);
    assert_eq!(run.stdout, format!("{}\n", serde_json::to_string_pretty(&valid()).expect("JSON")), "{run:?}");
}

/// Seed 001's example configs name no provider and no model: the flags and the environment give
/// them (here the sandbox's key, which points at the mock's Anthropic API).
#[test]
fn a_config_without_provider_or_model_takes_them_from_the_flags_and_the_environment() {
    let sandbox = Sandbox::new();
    let text = REVIEWER.replace("provider: anthropic\n", "").replace("model: claude-sonnet-4-5\n", "");
    agent(&sandbox, "reviewer", &text);
    let listed = sandbox.bare(None, &["agents", "list"]);
    let listed = Running::start(listed).finish();
    assert_eq!(listed.code, Some(0), "{listed:?}");

    let server = serve([submit(valid())]);
    let run = sandbox.run_json(&server, TASK, &["--agent", "reviewer"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let request = &server.requests()[0];
    assert!(request.path.ends_with("/v1/messages"), "the environment's provider: {}", request.path);
    assert!(request.body["model"].as_str().is_some_and(|m| m.starts_with("claude")), "its default model: {}", request.body);

    let server = serve([submit(valid())]);
    let run = sandbox.run_json(&server, TASK, &["--agent", "reviewer", "--provider", "anthropic", "--model", "claude-x"]);
    assert_eq!((run.code, &server.requests()[0].body["model"]), (Some(0), &json!("claude-x")), "{run:?}");
}
