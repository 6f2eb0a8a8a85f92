//! Sessions that last: `openagent run --resume` and `--continue`, `openagent sessions fork`, a run
//! killed with SIGKILL taken up again, `openagent serve`'s messages to a finished session and its
//! fork route, and the refusals (an unknown or ambiguous id, a corrupt snapshot). Each test reads
//! the model's next request from the mock's log: the earlier history must be in it.

use openagent_tests::{Api, MockServer, Reply, Step};
use serde_json::{json, Value};

use super::sessions::run_killed_at_its_second_turn;
use super::{read_notes_then_answer, sandbox_with_notes, ANSWER, TASK};
use crate::api::{encode, Serve};
use openagent_tests::cli::{eventually, Finished, Pipe, Running, Sandbox};
use openagent_tests::over_http::{serve, KEY};

const NEXT: &str = "now count the words";
const COUNTED: &str = "Four words.";

/// `openagent run TASK` as run `run_id`, reading the notes then answering; it must succeed.
fn first_run(sandbox: &Sandbox, run_id: &str) {
    let run = sandbox.run_with_env(&serve(read_notes_then_answer()), &["run", TASK], &[("OPENAGENT_RUN_ID", run_id)]);
    assert_eq!(run.code, Some(0), "{run:?}");
}

/// `openagent run <args>` against `server` as run `run_id`, to the end.
fn run_as(sandbox: &Sandbox, server: &MockServer, run_id: &str, args: &[&str]) -> Finished {
    sandbox.run_with_env(server, &[&["run"], args].concat(), &[("OPENAGENT_RUN_ID", run_id)])
}

/// The text of each message the Anthropic request `body` sends, in order (text, tool calls'
/// ids and tool results' content, each as it stands).
fn sent(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    messages.iter().map(|message| message["content"].to_string()).collect()
}

/// The JSON `openagent sessions <args>` prints, which must succeed.
fn sessions_json(sandbox: &Sandbox, args: &[&str]) -> Value {
    let out = sandbox.sessions(args);
    assert_eq!(out.code, Some(0), "{args:?}: {out:?}");
    serde_json::from_str(&out.stdout).unwrap_or_else(|e| panic!("{args:?} printed no JSON ({e}): {out:?}"))
}

/// The internal events of a session, as the store keeps them.
fn stored_events(sandbox: &Sandbox, id: &str) -> Vec<Value> {
    let out = sandbox.sessions(&["events", id, "--json"]);
    out.stdout.lines().map(|line| serde_json::from_str(line).expect("JSON")).collect()
}

/// Asserts that `messages` holds the first run's exchange: the task, the notes read, the answer.
fn assert_first_exchange(messages: &[String]) {
    let all = messages.join("\n");
    for earlier in [TASK, "toolu_read_notes", "2 | hello", ANSWER] {
        assert!(all.contains(earlier), "the request carries {earlier:?}: {messages:#?}");
    }
}

#[test]
fn run_resume_sends_the_earlier_history_and_appends_to_the_session() {
    let sandbox = sandbox_with_notes();
    first_run(&sandbox, "r_first");
    let before = stored_events(&sandbox, "r_first").len();

    let server = serve([Step::reply(Reply::text(COUNTED))]);
    let run = run_as(&sandbox, &server, "r_second", &["--resume", "r_fi", NEXT, "--output", "json"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let messages = sent(&server.requests()[0].body);
    assert_first_exchange(&messages);
    assert!(messages.last().is_some_and(|last| last.contains(NEXT)), "the next task comes last: {messages:#?}");

    let started = &run.data_of("run_started")[0];
    assert_eq!((&started["resumed_from"], &started["forked_from"]), (&json!("r_first"), &Value::Null), "{started}");
    assert_eq!(run.records()[0]["run_id"], "r_second", "the run has an id of its own");
    assert!(sandbox.data_dir().join("runs/r_second/result.json").is_file(), "and artifacts of its own");

    // One session, its events numbered on.
    let listed = sessions_json(&sandbox, &["list", "--json"]);
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "{listed}");
    assert_eq!((&listed[0]["id"], &listed[0]["status"]), (&json!("r_first"), &json!("finished")));
    let events = stored_events(&sandbox, "r_first");
    assert!(events.len() > before, "the resumed run's events are the session's");
    let inputs: Vec<&Value> = events.iter().filter(|e| e["kind"] == "user_input").map(|e| &e["data"]["content"]).collect();
    assert_eq!(inputs, [&json!(TASK), &json!(NEXT)]);
    assert_eq!(sessions_json(&sandbox, &["result", "r_first"])["result_text"], COUNTED);
    let table = sandbox.sessions(&["events", "r_first"]).stdout;
    let last_seq: usize = table.lines().last().and_then(|l| l.split_whitespace().next()?.parse().ok()).expect("a seq");
    assert_eq!(last_seq, events.len(), "seqs go on without a gap: {table}");
}

/// `--context-window` for a model whose window the profile cannot know: a resumed session that no
/// longer fits is summarised before its next call; `--compact-at 0` leaves it whole.
#[test]
fn a_small_context_window_compacts_the_resumed_history_unless_compaction_is_off() {
    let sandbox = Sandbox::new();
    // About 1200 tokens of history: more than a quarter of the window below is kept whole.
    let long_task = format!("Remember this text: {}", "lorem ipsum dolor ".repeat(270));
    let first = run_as(&sandbox, &serve([Step::reply(Reply::text("Noted."))]), "r_small", &[&long_task]);
    assert_eq!(first.code, Some(0), "{first:?}");

    let summary = "SUMMARY: the user gave a long text to remember.";
    let server = serve([Step::reply(Reply::text(summary)), Step::reply(Reply::text(COUNTED))]);
    let args = ["--resume", "r_small", NEXT, "--context-window", "2000", "--output", "json"];
    let run = run_as(&sandbox, &server, "r_compacted", &args);
    assert_eq!(run.code, Some(0), "{run:?}");
    let requests = server.requests();
    assert_eq!(requests.len(), 2, "the summary, then the answer");
    assert!(requests[0].body.get("tools").is_none(), "the summary request offers no tools");
    assert!(requests[0].body.to_string().contains("lorem ipsum dolor"), "it reads the old turns");
    let next = sent(&requests[1].body).join("\n");
    assert!(next.contains(summary) && next.contains(NEXT) && !next.contains("lorem ipsum dolor"), "{next}");
    assert_eq!(run.run_finished()["compactions"], 1, "{:?}", run.run_finished());

    let server = serve([Step::reply(Reply::text(COUNTED))]);
    let args = ["--resume", "r_small", "and again", "--context-window", "2000", "--compact-at", "0"];
    let run = run_as(&sandbox, &server, "r_whole", &args);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(server.requests().len(), 1, "no summary asked for");
    assert!(sent(&server.requests()[0].body).join("\n").contains(summary), "the summary made before stays");

    let refused = run_as(&sandbox, &server, "r_bad", &["--resume", "r_small", "x", "--compact-at", "120"]);
    assert_eq!(refused.code, Some(2), "{refused:?}");
}

#[test]
fn run_continue_takes_up_the_latest_session_of_the_directory() {
    let sandbox = Sandbox::new();
    for (run_id, task, answer) in [("r_older", "say one", "One."), ("r_newer", "say two", "Two.")] {
        let run = run_as(&sandbox, &serve([Step::reply(Reply::text(answer))]), run_id, &[task]);
        assert_eq!(run.code, Some(0), "{run:?}");
    }
    let server = serve([Step::reply(Reply::text("Three."))]);
    let run = run_as(&sandbox, &server, "r_third", &["--continue", "say three"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let messages = sent(&server.requests()[0].body).join("\n");
    assert!(messages.contains("say two") && messages.contains("Two.") && messages.contains("say three"), "{messages}");
    assert!(!messages.contains("say one"), "not the older session: {messages}");
}

#[test]
fn sessions_fork_starts_a_new_session_from_a_point_and_leaves_the_original() {
    let sandbox = sandbox_with_notes();
    first_run(&sandbox, "r_origin");
    let first_input_end = stored_events(&sandbox, "r_origin").len().to_string();
    let second = run_as(&sandbox, &serve([Step::reply(Reply::text(COUNTED))]), "r_more", &["--resume", "r_origin", NEXT]);
    assert_eq!(second.code, Some(0), "{second:?}");
    let original = stored_events(&sandbox, "r_origin");

    // At the end of the first input: the second is not in the fork.
    let forked = sandbox.sessions(&["fork", "r_origin", "--at", &first_input_end]);
    assert_eq!(forked.code, Some(0), "{forked:?}");
    let fork_id = forked.stdout.trim().to_owned();
    assert!(fork_id.starts_with("r_") && fork_id != "r_origin", "{forked:?}");
    let shown = sessions_json(&sandbox, &["show", &fork_id, "--json"]);
    assert_eq!(
        (&shown["forked_from"], &shown["forked_at"], &shown["events"]),
        (&json!("r_origin"), &json!(first_input_end.parse::<i64>().unwrap()), &json!(0)),
        "{shown}"
    );

    let server = serve([Step::reply(Reply::text("Two lines."))]);
    let run = run_as(&sandbox, &server, "r_branch", &["--resume", &fork_id, "count the lines instead", "--output", "json"]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let messages = sent(&server.requests()[0].body);
    assert_first_exchange(&messages);
    assert!(!messages.join("\n").contains(NEXT), "the fork was taken before the second input: {messages:#?}");
    let started = &run.data_of("run_started")[0];
    assert_eq!((&started["resumed_from"], &started["forked_from"]), (&json!(fork_id), &json!("r_origin")), "{started}");
    assert_eq!(stored_events(&sandbox, "r_origin"), original, "the original is untouched");
    assert_eq!(stored_events(&sandbox, &fork_id)[0]["session_id"], json!(fork_id), "the fork's events are its own");

    // Without --at: the latest snapshot, with the second input.
    let latest = sandbox.sessions(&["fork", "r_origin"]).stdout.trim().to_owned();
    let server = serve([Step::reply(Reply::text("Done."))]);
    assert_eq!(run_as(&sandbox, &server, "r_latest", &["--resume", &latest, "go on"]).code, Some(0));
    assert!(sent(&server.requests()[0].body).join("\n").contains(COUNTED));

    let too_early = sandbox.sessions(&["fork", "r_origin", "--at", "0"]);
    assert_eq!(too_early.code, Some(1), "{too_early:?}");
    assert!(too_early.stderr.contains("no snapshot at or before event 0"), "{too_early:?}");
}

/// A run killed with SIGKILL while it waits for its second model response is resumed from its
/// last complete turn: the notes read.
#[test]
fn a_run_killed_with_sigkill_resumes_from_its_last_complete_turn() {
    let sandbox = sandbox_with_notes();
    run_killed_at_its_second_turn(&sandbox, "r_killed");
    assert_eq!(sessions_json(&sandbox, &["show", "r_killed", "--json"])["status"], "interrupted");

    let server = serve([Step::reply(Reply::text(ANSWER))]);
    let resumed = run_as(&sandbox, &server, "r_after", &["--resume", "r_killed", "go on"]);
    assert_eq!(resumed.code, Some(0), "{resumed:?}");
    let messages = sent(&server.requests()[0].body);
    let all = messages.join("\n");
    for earlier in [TASK, "toolu_read_notes", "2 | hello"] {
        assert!(all.contains(earlier), "the request carries {earlier:?}: {messages:#?}");
    }
    let shown = sessions_json(&sandbox, &["show", "r_killed", "--json"]);
    assert_eq!((&shown["status"], &shown["exit_reason"]), (&json!("finished"), &json!("completed")), "{shown}");
}

#[test]
fn an_unknown_or_ambiguous_id_exits_2_and_says_how_to_list_sessions() {
    let sandbox = Sandbox::new();
    let server = serve([]);
    let unknown = run_as(&sandbox, &server, "r_x", &["--resume", "r_nowhere", NEXT]);
    assert_eq!(unknown.code, Some(2), "{unknown:?}");
    assert!(unknown.stderr.contains("session not found: r_nowhere; `openagent sessions list` shows the sessions"), "{unknown:?}");
    let nothing = run_as(&sandbox, &server, "r_x", &["--continue", NEXT, "--output", "json"]);
    assert_eq!(nothing.code, Some(2), "{nothing:?}");
    let finished = nothing.run_finished();
    assert_eq!(finished["exit_reason"], "config_error");
    assert!(
        finished["error"].as_str().is_some_and(|e| e.starts_with("no session worked in ") && e.contains("sessions list")),
        "{finished}"
    );

    for run_id in ["r_amb1", "r_amb2"] {
        assert_eq!(run_as(&sandbox, &serve([Step::reply(Reply::text("Hi."))]), run_id, &["hi"]).code, Some(0));
    }
    let ambiguous = run_as(&sandbox, &server, "r_x", &["--resume", "r_amb", NEXT]);
    assert_eq!(ambiguous.code, Some(2), "{ambiguous:?}");
    assert!(ambiguous.stderr.contains("r_amb is ambiguous: r_amb1, r_amb2"), "{ambiguous:?}");
    assert!(ambiguous.stderr.contains("`openagent sessions list`"), "{ambiguous:?}");
    let fork = sandbox.sessions(&["fork", "r_nowhere"]);
    assert_eq!(fork.code, Some(2), "{fork:?}");
    assert!(fork.stderr.contains("`openagent sessions list`"), "{fork:?}");
    assert!(server.requests().is_empty(), "no run reached the model");
    assert!(!sandbox.data_dir().join("runs/r_x").exists(), "nothing was started");
}

/// Sets the latest snapshot of `id` to `value` in the store's file, as a damaged disk or a
/// newer openagent would leave it.
fn overwrite_snapshot(sandbox: &Sandbox, id: &str, value: rusqlite::types::Value) {
    let db = rusqlite::Connection::open(sandbox.data_dir().join("openagent.db")).expect("the store");
    let changed = db
        .execute(
            "UPDATE snapshots SET snapshot = ?2 WHERE session_id = ?1 AND seq = (SELECT max(seq) FROM snapshots WHERE session_id = ?1)",
            rusqlite::params![id, value],
        )
        .expect("the update");
    assert_eq!(changed, 1);
}

#[test]
fn a_corrupt_truncated_or_newer_snapshot_is_refused_and_nothing_changes() {
    let sandbox = sandbox_with_notes();
    first_run(&sandbox, "r_damaged");
    let db = rusqlite::Connection::open(sandbox.data_dir().join("openagent.db")).expect("the store");
    let good: String = db
        .query_row("SELECT snapshot FROM snapshots WHERE session_id = 'r_damaged' ORDER BY seq DESC", [], |row| row.get(0))
        .expect("a snapshot at the end of the input");
    let mut newer: Value = serde_json::from_str(&good).expect("JSON");
    newer["schema"] = json!("openagent.session/99");
    let cases = [
        (rusqlite::types::Value::Text(good[..good.len() / 2].to_owned()), "truncated"),
        (rusqlite::types::Value::Text("garbage".into()), "not valid JSON"),
        (rusqlite::types::Value::Text(newer.to_string()), "newer"),
        (rusqlite::types::Value::Blob(vec![0, 159, 146, 150]), "not utf-8"),
    ];
    let events = stored_events(&sandbox, "r_damaged");
    let server = serve([]);
    for (value, what) in cases {
        overwrite_snapshot(&sandbox, "r_damaged", value.clone());
        let refused = run_as(&sandbox, &server, "r_refused", &["--resume", "r_damaged", NEXT]);
        assert_eq!(refused.code, Some(2), "{what}: {refused:?}");
        assert!(refused.stderr.contains("the snapshot of session r_damaged after event"), "{what}: {}", refused.stderr);
        assert!(refused.stderr.to_lowercase().contains(&what.to_lowercase()), "{what}: {}", refused.stderr);
        let forked = sandbox.sessions(&["fork", "r_damaged"]);
        assert_eq!(forked.code, Some(1), "{what}: {forked:?}");
        let stored: rusqlite::types::Value = db
            .query_row("SELECT snapshot FROM snapshots WHERE session_id = 'r_damaged' ORDER BY seq DESC", [], |row| row.get(0))
            .expect("the row");
        assert_eq!(stored, value, "{what}: the row is left as it was");
    }
    assert!(server.requests().is_empty(), "no run reached the model");
    assert_eq!(stored_events(&sandbox, "r_damaged"), events, "no event was added");
    let listed = sessions_json(&sandbox, &["list", "--json"]);
    assert_eq!(listed.as_array().map(Vec::len), Some(1), "no fork was stored: {listed}");
    assert_eq!(listed[0]["status"], "finished");
}

#[test]
fn resuming_with_another_provider_warns_and_sends_the_history_in_its_format() {
    let sandbox = sandbox_with_notes();
    first_run(&sandbox, "r_anthropic");
    let server = serve([Step::reply(Reply::text(COUNTED)).expecting(Api::OpenAiResponses)]);
    let base = format!("{}/v1", server.base_url());
    let args = ["run", "--resume", "r_anthropic", NEXT, "--provider", "openai", "--model", "gpt-5.2"];
    let run = sandbox.run_with_env(&server, &args, &[("OPENAI_API_KEY", KEY), ("OPENAI_BASE_URL", &base)]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(
        run.stderr.contains("! This session was saved with provider anthropic; it goes on with openai."),
        "the core's warning is shown: {}",
        run.stderr
    );
    let body = server.requests()[0].body.to_string();
    for earlier in [TASK, ANSWER, "2 | hello", NEXT] {
        assert!(body.contains(earlier), "the OpenAI request carries {earlier:?}: {body}");
    }
}

#[test]
fn serve_resumes_a_finished_session_by_message_and_forks_it() {
    let sandbox = sandbox_with_notes();
    first_run(&sandbox, "r_stored");
    let mock = serve([Step::reply(Reply::text(COUNTED)), Step::reply(Reply::text("Two lines."))]);
    let api = Serve::start(&sandbox, Some(&mock), &[]);

    let sent_message = api.call("POST", "/sessions/r_stored/messages", Some(&json!({"message": NEXT})));
    assert_eq!(sent_message.status, 202, "{sent_message:?}");
    eventually("the resumed input is answered", || api.result("r_stored").json()["result_text"] == COUNTED);
    let messages = sent(&mock.requests()[0].body);
    assert_first_exchange(&messages);
    assert!(messages.last().is_some_and(|last| last.contains(NEXT)), "{messages:#?}");
    assert_eq!(api.show("r_stored")["open"], true, "open in this server now, waiting for its next input");
    let elsewhere = run_as(&sandbox, &serve([]), "r_cli", &["--resume", "r_stored", "from the command line"]);
    assert_eq!(elsewhere.code, Some(2), "{elsewhere:?}");
    assert!(elsewhere.stderr.contains("session r_stored is open in another openagent process"), "{elsewhere:?}");

    let forked = api.call("POST", "/sessions/r_stored/fork", None);
    assert_eq!(forked.status, 201, "{forked:?}");
    let fork = forked.json();
    assert_eq!(fork["forked_from"], "r_stored", "{fork}");
    let fork_id = fork["id"].as_str().expect("an id").to_owned();
    assert_eq!(api.show(&fork_id)["forked_from"], "r_stored");
    let resumed =
        api.call("POST", &format!("/sessions/{}/messages", encode(&fork_id)), Some(&json!({"message": "count the lines"})));
    assert_eq!(resumed.status, 202, "{resumed:?}");
    eventually("the fork's input is answered", || api.result(&fork_id).json()["result_text"] == "Two lines.");
    let all = sent(&mock.requests()[1].body).join("\n");
    assert!(all.contains(TASK) && all.contains(NEXT) && all.contains("count the lines"), "{all}");

    let bad = api.call("POST", "/sessions/r_stored/fork", Some(&json!({"at": 0})));
    assert_eq!(bad.status, 409, "{bad:?}");
    assert_eq!(api.call("POST", "/sessions/r_nowhere/fork", None).status, 404);
}

#[test]
fn the_interactive_session_resumes_and_compacts_on_request() {
    let sandbox = sandbox_with_notes();
    first_run(&sandbox, "r_chat");
    // Keep no recent turn whole, so that /compact summarises the whole exchange.
    let db = rusqlite::Connection::open(sandbox.data_dir().join("openagent.db")).expect("the store");
    db.execute(
        "UPDATE snapshots SET snapshot = json_set(snapshot, '$.state.config.compaction_keep_recent_tokens', 1)
         WHERE session_id = 'r_chat'",
        [],
    )
    .expect("the update");

    let summary = "Summary: the user asked for the notes; they say hello twice.";
    let server = serve([Step::reply(Reply::text(summary)), Step::reply(Reply::text("They say hello."))]);
    let mut session = Running::with_stdin(sandbox.openagent(Some(&server), &["--resume", "r_chat"]));
    session.wait_for_line(Pipe::Stderr, |line| line.contains("Resuming session r_chat."));
    session.write("/compact\n");
    session.wait_for_line(Pipe::Stderr, |line| line.contains("compacted: "));
    session.write("what did they say?\n");
    session.wait_for_line(Pipe::Stderr, |line| line.contains("✓ completed"));
    let run = session.finish();
    assert_eq!(run.code, Some(0), "{run:?}");

    let requests = server.requests();
    let transcript = requests[0].body.to_string();
    assert!(
        transcript.contains(TASK) && transcript.contains("2 | hello"),
        "the summary is written from the history: {transcript}"
    );
    let next = sent(&requests[1].body).join("\n");
    assert!(next.contains(summary) && next.contains("what did they say?"), "{next}");
    assert!(!next.contains("toolu_read_notes"), "the summarised turns are not sent again: {next}");

    let events = stored_events(&sandbox, "r_chat");
    let ends: Vec<&Value> = events.iter().filter(|e| e["kind"] == "compaction_end").map(|e| &e["data"]).collect();
    assert_eq!(ends.len(), 1, "{ends:?}");
    assert_eq!(ends[0]["reason"], "manual");
    assert!(ends[0]["summarized_turns"].as_u64().is_some_and(|n| n > 0), "{}", ends[0]);
    let listed = sessions_json(&sandbox, &["list", "--json"]);
    assert_eq!((listed.as_array().map(Vec::len), &listed[0]["status"]), (Some(1), &json!("finished")), "{listed}");
}

#[test]
fn a_session_whose_directory_is_gone_says_to_give_another() {
    let sandbox = Sandbox::new();
    let gone = sandbox.cwd().join("gone");
    std::fs::create_dir(&gone).expect("a directory");
    let server = serve([Step::reply(Reply::text("Hi."))]);
    let mut first = sandbox.bare(Some(&server), &["run", "hi", "--cwd", gone.to_str().expect("UTF-8"), "--data-dir"]);
    first.arg(sandbox.data_dir()).env("OPENAGENT_RUN_ID", "r_moved");
    assert_eq!(Running::start(first).finish().code, Some(0));
    std::fs::remove_dir(&gone).expect("removed");

    let mut resumed = sandbox.bare(Some(&server), &["run", "--resume", "r_moved", NEXT, "--data-dir"]);
    resumed.arg(sandbox.data_dir());
    let refused = Running::start(resumed).finish();
    assert_eq!(refused.code, Some(2), "{refused:?}");
    assert!(
        refused.stderr.contains("the directory session r_moved worked in; give --cwd to resume it in another"),
        "{refused:?}"
    );
    // In another directory, it goes on.
    let server = serve([Step::reply(Reply::text(COUNTED))]);
    assert_eq!(run_as(&sandbox, &server, "r_elsewhere", &["--resume", "r_moved", NEXT]).code, Some(0));
    assert!(sent(&server.requests()[0].body).join("\n").contains("Hi."));
}

/// A session started over `openagent serve` with an output schema, closed, then sent a message:
/// resumed, it is still held to its schema.
#[test]
fn serve_resumes_a_closed_session_with_its_output_schema() {
    let sandbox = Sandbox::new();
    let mock = serve([
        Step::reply(Reply::text("Counted.").with_tool_call("submit_result", json!({"notes": 2}))),
        Step::reply(Reply::text("Counted again.").with_tool_call("submit_result", json!({"notes": 3}))),
    ]);
    let api = Serve::start(&sandbox, Some(&mock), &[]);
    let schema = json!({"type": "object", "properties": {"notes": {"type": "integer"}}, "required": ["notes"]});
    let id = api.start_session(&json!({"task": "count the notes", "output_schema": schema}));
    assert_eq!(api.wait_for_result(&id)["result_data"], json!({"notes": 2}));
    assert_eq!(api.call("POST", &format!("/sessions/{id}/abort"), None).status, 202);
    eventually("the session is closed", || api.show(&id)["open"] == false);

    let again = api.call("POST", &format!("/sessions/{id}/messages"), Some(&json!({"message": "count them again"})));
    assert_eq!(again.status, 202, "{again:?}");
    eventually("the resumed input is answered", || api.result(&id).json()["result_data"] == json!({"notes": 3}));
    let request = &mock.requests()[1].body;
    assert!(request["tools"].to_string().contains("submit_result"), "the schema's tool is offered again: {request}");
    assert!(sent(request).join("\n").contains("count the notes"), "with the history");
}
