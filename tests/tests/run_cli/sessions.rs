//! The session store through the CLI: what `openagent run` and the interactive session write
//! there, read back with `openagent sessions`, and what is left of a run killed with SIGKILL.

use std::path::PathBuf;

use openagent_tests::{Reply, Step};
use serde_json::{json, Value};

use super::{call, read_notes_then_answer, sandbox_with_notes, ANSWER, NOTES, TASK};
use openagent_tests::cli::{eventually, read_json, Pipe, Running, Sandbox};
use openagent_tests::over_http::serve;

/// `openagent run TASK --events <sandbox>/events.jsonl` as run `run_id`, to the end.
fn run_with_events(sandbox: &Sandbox, steps: Vec<Step>, run_id: &str) -> Vec<String> {
    let events = sandbox.path("events.jsonl");
    let args = ["run", TASK, "--events", events.to_str().expect("UTF-8")];
    let run = sandbox.run_with_env(&serve(steps), &args, &[("OPENAGENT_RUN_ID", run_id)]);
    assert_eq!(run.code, Some(0), "{run:?}");
    lines(&std::fs::read_to_string(&events).expect("the events file"))
}

fn lines(text: &str) -> Vec<String> {
    text.lines().map(str::to_owned).collect()
}

/// The JSON `openagent sessions <args>` prints, which must succeed.
fn sessions_json(sandbox: &Sandbox, args: &[&str]) -> Value {
    let out = sandbox.sessions(args);
    assert_eq!(out.code, Some(0), "{args:?}: {out:?}");
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{args:?} printed no JSON ({e}): {out:?}"))
}

#[test]
fn a_run_is_listed_with_its_config_events_and_result() {
    let sandbox = sandbox_with_notes();
    let events = run_with_events(&sandbox, read_notes_then_answer(), "r_listed");

    let listed = sessions_json(&sandbox, &["list", "--json"]);
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    let session = &listed[0];
    assert_eq!(
        [&session["id"], &session["task"], &session["status"], &session["exit_reason"], &session["parent_id"]],
        [&json!("r_listed"), &json!(TASK), &json!("finished"), &json!("completed"), &Value::Null]
    );
    let config = read_json(&sandbox.data_dir().join("runs/r_listed/config.json"));
    assert_eq!(session["config"], config, "the store keeps the config.json the artifacts have");

    let human = sandbox.sessions(&["list"]);
    assert!(human.stdout.lines().nth(1).is_some_and(|line| line.starts_with("r_listed  finished     completed")), "{human:?}");

    // A prefix names the session when one session has it.
    let stored = sandbox.sessions(&["events", "r_li", "--json"]);
    assert_eq!(lines(&stored.stdout), events, "the store has the events --events wrote, byte for byte");
    let table = sandbox.sessions(&["events", "r_listed"]);
    assert_eq!(table.stdout.lines().count(), events.len(), "one line per event: {}", table.stdout);
    assert!(table.stdout.contains("tool_call_start           read_file notes.txt"), "{}", table.stdout);

    let result = sandbox.sessions(&["result", "r_listed"]);
    assert_eq!(
        (result.code, result.stdout.as_str()),
        (Some(0), format!("{{\"result_text\":\"{ANSWER}\",\"result_data\":null}}\n").as_str())
    );

    let shown = sessions_json(&sandbox, &["show", "r_listed", "--json"]);
    assert_eq!((&shown["outcome"]["status"], &shown["events"]), (&json!("done"), &json!(events.len())), "{shown}");
    let human = sandbox.sessions(&["show", "r_listed"]).stdout;
    assert!(
        human.contains("status     finished (completed)") && human.contains("outcome    done: The model finished"),
        "{human}"
    );
}

#[test]
fn sessions_result_tells_an_unknown_session_from_an_unfinished_one() {
    let sandbox = Sandbox::new();
    let unknown = sandbox.sessions(&["result", "r_nowhere"]);
    assert_eq!((unknown.code, unknown.stdout.as_str()), (Some(2), ""), "{unknown:?}");
    assert!(unknown.stderr.starts_with("error: session not found"), "{unknown:?}");
    for command in ["show", "events"] {
        assert_eq!(sandbox.sessions(&[command, "r_nowhere"]).code, Some(2), "{command}");
    }
    // The other cases: `a_run_killed_with_sigkill_keeps_every_event_and_reads_as_interrupted`.
}

/// `openagent run TASK --events <sandbox>/events.jsonl` as run `run_id`: the model reads the
/// notes, then takes 30 s to answer, and the run is killed with SIGKILL while it waits. Returns
/// the events file.
pub fn run_killed_at_its_second_turn(sandbox: &Sandbox, run_id: &str) -> PathBuf {
    let server = serve([
        call("toolu_read_notes", "read_file", json!({"file_path": NOTES})),
        Step::slow_first_byte(30_000, Reply::text("too late")),
    ]);
    let events = sandbox.path("events.jsonl");
    let mut command = sandbox.openagent(Some(&server), &["run", TASK, "--events", events.to_str().expect("UTF-8")]);
    command.env("OPENAGENT_RUN_ID", run_id);
    let run = Running::start(command);
    // Read as text: the line being written may be incomplete.
    let second_turn = || {
        let text = std::fs::read_to_string(&events).unwrap_or_default();
        text.lines().any(|line| line.starts_with(r#"{"kind":"turn_start""#) && line.ends_with(r#""data":{"turn":2}}"#))
    };
    eventually("the run waits for its second model response", second_turn);
    run.signal(libc::SIGKILL);
    let killed = run.finish();
    assert_eq!(killed.code, None, "killed by the signal: {killed:?}");
    events
}

/// A run killed while it waits for the model keeps every event written so far.
#[test]
fn a_run_killed_with_sigkill_keeps_every_event_and_reads_as_interrupted() {
    let sandbox = sandbox_with_notes();
    let events = run_killed_at_its_second_turn(&sandbox, "r_killed");

    let written = lines(&std::fs::read_to_string(&events).expect("the events file"));
    let stored = lines(&sandbox.sessions(&["events", "r_killed", "--json"]).stdout);
    eprintln!("SIGKILL durability: {} events written before the kill, {} in the store", written.len(), stored.len());
    assert_eq!(stored, written, "every event up to the kill is in the store");

    let shown = sessions_json(&sandbox, &["show", "r_killed", "--json"]);
    assert_eq!((&shown["status"], &shown["exit_reason"]), (&json!("interrupted"), &Value::Null), "{shown}");
    let last_event: Value = serde_json::from_str(written.last().expect("events")).expect("JSON");
    assert_eq!(shown["finished_at"], last_event["timestamp"], "last heard of at its last event");
    let result = sandbox.sessions(&["result", "r_killed"]);
    assert_eq!(result.code, Some(1), "{result:?}");
    assert!(result.stderr.starts_with("error: session not finished: r_killed is interrupted"), "{result:?}");
    let interrupted = sessions_json(&sandbox, &["list", "--status", "interrupted", "--json"]);
    assert_eq!(interrupted[0]["id"], "r_killed", "{interrupted}");
}

/// The store's first rows: a run killed while its first model call waits is in the store, with
/// every event it wrote before the call, in a git work tree whose snapshot ran beside the store's
/// opening.
#[test]
fn a_run_killed_before_its_first_answer_keeps_its_first_rows() {
    let sandbox = sandbox_with_notes();
    let git = |args: &[&str]| {
        let status = std::process::Command::new("git").args(args).current_dir(sandbox.cwd()).output();
        status.is_ok_and(|out| out.status.success())
    };
    if !git(&["init", "-q"]) {
        println!("skipped: git is not installed");
        return;
    }
    let server = serve([Step::slow_first_byte(30_000, Reply::text("too late"))]);
    let events = sandbox.path("events.jsonl");
    let mut command = sandbox.openagent(Some(&server), &["run", TASK, "--events", events.to_str().expect("UTF-8")]);
    command.env("OPENAGENT_RUN_ID", "r_first");
    let run = Running::start(command);
    eventually("the run waits for its first model response", || server.requests().len() == 1);
    run.signal(libc::SIGKILL);
    assert_eq!(run.finish().code, None, "killed by the signal");

    let written = lines(&std::fs::read_to_string(&events).expect("the events file"));
    assert!(written.iter().any(|line| line.starts_with(r#"{"kind":"turn_start""#)), "{written:?}");
    let stored = lines(&sandbox.sessions(&["events", "r_first", "--json"]).stdout);
    assert_eq!(stored, written, "every event before the model call is in the store");
    let shown = sessions_json(&sandbox, &["show", "r_first", "--json"]);
    assert_eq!(shown["status"], "interrupted", "{shown}");
    let prompt = server.requests()[0].body["system"].to_string();
    assert!(prompt.contains("<git>"), "the snapshot was in the first call: {prompt}");
}

#[test]
fn a_subagent_is_a_session_of_its_own_under_its_parent() {
    let sandbox = Sandbox::new();
    let steps = vec![
        // The parent spawns and waits in one turn; while it waits only the child calls the model.
        Step::reply(
            Reply::default()
                .with_tool_call("spawn_agent", json!({"task": "Count the notes"}))
                .with_tool_call("wait", json!({"agent_id": "agent_1"})),
        ),
        Step::reply(Reply::text("There are two notes.")),
        Step::reply(Reply::text(ANSWER)),
    ];
    let events = run_with_events(&sandbox, steps, "r_parent");

    let parent = sessions_json(&sandbox, &["show", "r_parent", "--json"]);
    assert_eq!(parent["subagents"], json!(["r_parent/agent_1"]), "{parent}");
    let child = sessions_json(&sandbox, &["show", "r_parent/agent_1", "--json"]);
    assert_eq!(
        [&child["parent_id"], &child["task"], &child["status"], &child["exit_reason"], &child["config"]],
        [&json!("r_parent"), &json!("Count the notes"), &json!("finished"), &json!("completed"), &Value::Null]
    );
    let result = sessions_json(&sandbox, &["result", "r_parent/agent_1"]);
    assert_eq!(result, json!({"result_text": "There are two notes.", "result_data": null}));

    let everything = sandbox.sessions(&["events", "r_parent", "--subagents", "--json"]);
    assert_eq!(lines(&everything.stdout), events, "the parent's and the child's events, as the run wrote them");
    let own: Vec<String> = events.iter().filter(|line| line.contains(r#""session_id":"r_parent","#)).cloned().collect();
    assert!(own.len() < events.len(), "the child's events are in the file too");
    assert_eq!(lines(&sandbox.sessions(&["events", "r_parent", "--json"]).stdout), own);

    let top = sessions_json(&sandbox, &["list", "--json"]);
    let all = sessions_json(&sandbox, &["list", "--subagents", "--json"]);
    assert_eq!((top.as_array().map(Vec::len), all.as_array().map(Vec::len)), (Some(1), Some(2)));
}

#[test]
fn an_interactive_session_is_one_stored_session_with_a_result_per_input() {
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text("Hello.")), Step::reply(Reply::text(ANSWER))]);
    let mut session = Running::with_stdin(sandbox.openagent(Some(&server), &[]));
    session.write("say hello\n");
    // The second task only once the first is done: typed during a run, it would steer it.
    session.wait_for_line(Pipe::Stderr, |line| line.contains("✓ completed"));
    session.write("now summarise\n");
    let run = session.finish();
    assert_eq!(run.code, Some(0), "{run:?}");

    let listed = sessions_json(&sandbox, &["list", "--json"]);
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    let session = &listed[0];
    assert_eq!([&session["task"], &session["status"]], [&json!("say hello"), &json!("finished")], "{session}");
    assert_eq!(session["config"]["output_mode"], "interactive", "{session}");
    let id = session["id"].as_str().expect("an id");
    let events = sandbox.sessions(&["events", id, "--json"]).stdout;
    let inputs: Vec<Value> = lines(&events)
        .iter()
        .map(|line| serde_json::from_str::<Value>(line).expect("JSON"))
        .filter(|event| event["kind"] == "user_input")
        .map(|event| event["data"]["content"].clone())
        .collect();
    assert_eq!(inputs, [json!("say hello"), json!("now summarise")]);
    assert_eq!(sessions_json(&sandbox, &["result", id])["result_text"], ANSWER, "the last input's result");
}

/// A store that cannot be opened costs the run nothing but a warning; the artifacts are still kept.
#[test]
fn a_store_that_cannot_be_written_is_a_warning_not_a_failure() {
    let sandbox = sandbox_with_notes();
    std::fs::create_dir_all(sandbox.data_dir().join("openagent.db")).expect("a directory where the database should be");
    let run = sandbox.run_with_env(&serve(read_notes_then_answer()), &["run", TASK], &[("OPENAGENT_RUN_ID", "r_unstored")]);
    assert_eq!((run.code, run.stdout.as_str()), (Some(0), format!("{ANSWER}\n").as_str()), "{run:?}");
    assert!(run.stderr.starts_with("warning: the session store does not keep this session: cannot open"), "{}", run.stderr);
    assert!(sandbox.data_dir().join("runs/r_unstored/result.json").is_file());
}

/// Another process holding the database for 8 s (longer than a write waits for it) delays the
/// run's writes; none is lost, and the finished run reads as finished, not interrupted.
#[test]
fn a_database_locked_for_a_while_loses_no_event_and_the_run_reads_as_finished() {
    let sandbox = sandbox_with_notes();
    let server = serve([
        call("toolu_read_notes", "read_file", json!({"file_path": NOTES})),
        Step::slow_first_byte(1_500, Reply::text(ANSWER)),
    ]);
    let events = sandbox.path("events.jsonl");
    let mut command = sandbox.openagent(Some(&server), &["run", TASK, "--events", events.to_str().expect("UTF-8")]);
    command.env("OPENAGENT_RUN_ID", "r_locked");
    let run = Running::start(command);
    let db_file = sandbox.data_dir().join("openagent.db");
    eventually("the run has its first event", || std::fs::read_to_string(&events).is_ok_and(|t| t.lines().count() >= 2));
    let db = rusqlite::Connection::open(&db_file).expect("the store");
    db.execute_batch("BEGIN IMMEDIATE").expect("the lock");
    std::thread::sleep(std::time::Duration::from_secs(8));
    db.execute_batch("COMMIT").expect("the lock released");
    let finished = run.finish();
    assert_eq!(finished.code, Some(0), "{finished:?}");
    assert!(finished.stderr.contains("its writes wait"), "the delay is said: {}", finished.stderr);

    let written = lines(&std::fs::read_to_string(&events).expect("the events file"));
    let stored = lines(&sandbox.sessions(&["events", "r_locked", "--json"]).stdout);
    assert_eq!(stored, written, "every event is in the store");
    let show = sandbox.sessions(&["show", "r_locked"]).stdout;
    assert!(show.contains("finished") && !show.contains("interrupted"), "{show}");
}

/// A fixed `OPENAGENT_RUN_ID` names one run: a second run under it is refused before the model is
/// called, in either output, and the first run's answer stays in the store and in its
/// `result.json` alike. Resuming that session under the same id is a run that continues it.
#[test]
fn a_fixed_run_id_already_in_the_store_is_refused_unless_the_run_resumes_it() {
    let sandbox = sandbox_with_notes();
    let fixed = [("OPENAGENT_RUN_ID", "r_fixed_1")];
    let first = sandbox.run_with_env(&serve([Step::reply(Reply::text("the first answer"))]), &["run", TASK], &fixed);
    assert_eq!(first.code, Some(0), "{first:?}");

    let server = serve([Step::reply(Reply::text("the second answer"))]);
    for output in ["human", "json"] {
        let again = sandbox.run_with_env(&server, &["run", "another task", "--output", output], &fixed);
        assert_eq!(again.code, Some(2), "{output}: {again:?}");
        let data = sandbox.data_dir();
        let said = format!("run id r_fixed_1 (OPENAGENT_RUN_ID) is taken: {} already has a run of that id", data.display());
        assert!(again.stderr.contains(&said) && again.stderr.contains("--resume r_fixed_1"), "{output}: {}", again.stderr);
    }
    assert!(server.requests().is_empty(), "the model was never called");
    let result = read_json(&sandbox.data_dir().join("runs/r_fixed_1/result.json"));
    assert_eq!(result["final_output"], "the first answer", "{result}");
    assert_eq!(sessions_json(&sandbox, &["result", "r_fixed_1"])["result_text"], "the first answer");

    let resumed = sandbox.run_with_env(&server, &["run", "--resume", "r_fixed_1", "another task"], &fixed);
    assert_eq!(resumed.code, Some(0), "{resumed:?}");
    assert_eq!(sessions_json(&sandbox, &["result", "r_fixed_1"])["result_text"], "the second answer");
    let result = read_json(&sandbox.data_dir().join("runs/r_fixed_1/result.json"));
    assert_eq!(result["final_output"], "the second answer", "{result}");
    let kept = std::fs::read_to_string(sandbox.data_dir().join("runs/r_fixed_1/events.jsonl")).expect("the run's events");
    let inputs = kept.lines().filter(|line| line.contains(r#""kind":"user_input""#)).count();
    assert_eq!(inputs, 2, "the artifacts keep both runs' events: {kept}");
}

/// With no `HOME` (and no `XDG_DATA_HOME`, `OPENAGENT_DATA_DIR` or `--data-dir`) there is no data
/// directory: the commands that need one say which to set, and nothing is written in the project
/// (the store and the tool output went to `./.openagent/` there). `XDG_DATA_HOME` is enough.
#[test]
fn no_home_is_an_error_naming_the_directory_to_set_and_nothing_is_written_in_the_project() {
    let sandbox = sandbox_with_notes();
    let server = serve(read_notes_then_answer());
    let homeless = |args: &[&str]| {
        let mut command = sandbox.bare(Some(&server), args);
        command.env_remove("HOME");
        command
    };
    let said = "no data directory: HOME is not set; set HOME, XDG_DATA_HOME or OPENAGENT_DATA_DIR, or give --data-dir DIR";
    for args in [&["run", TASK][..], &["run", TASK, "--output", "json"], &["sessions", "list"], &[]] {
        let run = Running::with_stdin(homeless(args)).finish();
        assert_eq!(run.code, Some(2), "{args:?}: {run:?}");
        assert!(run.stderr.contains(said), "{args:?}: {}", run.stderr);
        let entries: Vec<_> =
            std::fs::read_dir(sandbox.cwd()).expect("the project").map(|e| e.expect("an entry").file_name()).collect();
        assert_eq!(entries, [NOTES], "{args:?}: nothing new in the project");
    }
    let json = Running::start(homeless(&["run", TASK, "--output", "json"])).finish();
    assert_eq!(json.run_finished()["exit_reason"], "config_error", "{json:?}");
    assert!(server.requests().is_empty(), "the model was never called");

    let xdg = sandbox.path("xdg");
    let mut command = homeless(&["run", TASK]);
    command.env("XDG_DATA_HOME", &xdg).env("OPENAGENT_RUN_ID", "r_xdg");
    let run = Running::start(command).finish();
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(xdg.join("openagent/runs/r_xdg/result.json").is_file(), "{run:?}");
}
