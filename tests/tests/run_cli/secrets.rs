//! What a command can see of the agent's secrets: not its environment through /proc (the agent
//! is not dumpable and commands lack CAP_SYS_PTRACE), only the core variables unless more are
//! passed, and a secret it finds anyway (a `.env` file) is redacted in everything recorded and in
//! the next model request.

use openagent_tests::{MockServer, Reply, Script, Step};
use serde_json::json;

use crate::call;
use openagent_tests::cli::{read_events, Running, Sandbox};
use openagent_tests::over_http::KEY;

const TOKEN: &str = "ghp_test_secret_0123456789";
const DB_PASSWORD: &str = "db-password-987654";

/// Copies the agent's own environment as /proc shows it to a file (read by the test, so that no
/// redaction hides what the command could see), then prints the command's variables and a
/// `.env` file holding a token the host also has.
const SNOOP: &str = "tr '\\0' '\\n' < /proc/$PPID/environ > agent-environ.txt; env; echo ---; cat .env";

fn snooping_model() -> MockServer {
    MockServer::start(Script::new([
        call("toolu_snoop", "shell", json!({"command": SNOOP})),
        Step::reply(Reply::text("Looked around.")),
    ]))
    .expect("the mock server starts")
}

fn snoop(extra: &[&str]) -> (Sandbox, MockServer, openagent_tests::cli::Finished) {
    let sandbox = Sandbox::new();
    sandbox.write(".env", &format!("GITHUB_TOKEN={TOKEN}\n"));
    let server = snooping_model();
    let events = sandbox.path("events.jsonl");
    let args = [&["run", "look around", "--output", "json", "--events", events.to_str().unwrap()], extra].concat();
    let mut command = sandbox.openagent(Some(&server), &args);
    command
        .env("GITHUB_TOKEN", TOKEN)
        .env("DATABASE_URL", format!("postgres://app:{DB_PASSWORD}@db:5432/app"))
        .env("EDITOR", "vi")
        .env("OPENAGENT_RUN_ID", "r_snoop");
    let run = Running::start(command).finish();
    assert_eq!(run.code, Some(0), "{run:?}");
    (sandbox, server, run)
}

/// The command's output as the tool reported it.
fn command_output(sandbox: &Sandbox) -> String {
    read_events(&sandbox.path("events.jsonl"))
        .into_iter()
        .find(|event| event["kind"] == "tool_call_end")
        .and_then(|event| event["data"]["output"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no tool_call_end: {}", std::fs::read_to_string(sandbox.path("events.jsonl")).unwrap()))
}

#[test]
fn a_command_reads_no_secret_of_the_agent_and_one_it_finds_is_redacted_everywhere() {
    let (sandbox, server, run) = snoop(&[]);
    let output = command_output(&sandbox);
    let proc_environ = std::fs::read_to_string(sandbox.cwd().join("agent-environ.txt")).unwrap_or_default();
    for secret in [KEY, TOKEN, DB_PASSWORD] {
        assert!(!proc_environ.contains(secret), "the agent's environment gave {secret} away: {proc_environ}");
    }
    let (env, dot_env) = output.split_once("---").expect("the command's two parts");
    assert!(env.contains("PATH=") && env.contains("HOME="), "{env}");
    for name in ["EDITOR", "GITHUB_TOKEN", "DATABASE_URL", "ANTHROPIC"] {
        assert!(!env.contains(name), "{name} reached the command: {env}");
    }
    assert!(dot_env.contains("GITHUB_TOKEN=[REDACTED]"), "{dot_env}");

    let events = std::fs::read_to_string(sandbox.path("events.jsonl")).unwrap();
    let stored = sandbox.sessions(&["events", "r_snoop", "--json"]).stdout;
    let requests = serde_json::to_string(&server.requests().iter().map(|r| &r.body).collect::<Vec<_>>()).unwrap();
    assert_eq!(server.requests().len(), 2);
    for (what, text) in
        [("stdout", &run.stdout), ("the events file", &events), ("the store", &stored), ("the requests", &requests)]
    {
        for secret in [KEY, TOKEN, DB_PASSWORD] {
            assert!(!text.contains(secret), "{secret} is in {what}: {text}");
        }
    }
}

#[test]
fn env_pass_hands_named_variables_to_commands_and_a_secret_only_by_its_exact_name() {
    let (sandbox, _server, _run) = snoop(&["--env-pass", "EDITOR", "--env-pass", "GITHUB_*", "--env-pass", "DATABASE_URL"]);
    let output = command_output(&sandbox);
    let env = output.split("---").next().expect("the command's variables");
    assert!(env.contains("EDITOR=vi"), "{env}");
    assert!(!env.contains("GITHUB_TOKEN"), "a pattern passed a secret: {env}");
    // Named exactly, the URL is passed; its password is still redacted in what is recorded.
    assert!(env.contains("DATABASE_URL=postgres://app:[REDACTED]@db:5432/app"), "{env}");
}
