//! The CLI beyond the JSON contract: human output, `--events`, the run's artifacts, the exit
//! code of each way a run ends, provider and tool retries, and the interactive session fed from
//! a pipe.

use std::collections::{BTreeMap, BTreeSet};

use openagent_tests::{MockServer, Reply, Step, ToolCall, Usage};
use serde_json::{json, Value};

use super::{call, rate_limited_then_read_notes, read_notes_then_answer, sandbox_with_notes, ANSWER, TASK};
use openagent_core::run_event::{self, TYPES as PROJECTED_TYPES};
use openagent_tests::cli::{eventually, read_events, read_json, Finished, Pipe, Running, Sandbox};
use openagent_tests::over_http::{serve, KEY};

#[test]
fn human_mode_streams_the_answer_on_stdout_and_tool_lines_on_stderr() {
    let sandbox = sandbox_with_notes();
    let run = sandbox.run(&serve(read_notes_then_answer()), TASK, &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, format!("{ANSWER}\n"), "only the answer on stdout");
    assert!(run.stderr.contains("✓ read_file notes.txt · 2 lines ·"), "a tool line: {}", run.stderr);
    assert!(run.stderr.contains("✓ completed · 2 turns · 1 tool call ·"), "the summary: {}", run.stderr);
    assert!(!run.stderr.contains('\x1b'), "no colour when stderr is not a terminal: {}", run.stderr);
}

#[test]
fn events_file_gets_every_internal_event_in_both_output_modes() {
    let sandbox = sandbox_with_notes();
    for output in ["human", "json"] {
        let path = sandbox.path(&format!("{output}.jsonl"));
        std::fs::write(&path, "from an earlier run\n").expect("the events file");
        let server = serve(read_notes_then_answer());
        let args = ["run", TASK, "--output", output, "--events", path.to_str().expect("UTF-8")];
        let run = sandbox.run_with_env(&server, &args, &[("OPENAGENT_RUN_ID", output)]);
        assert_eq!(run.code, Some(0), "{run:?}");
        let events = read_events(&path);
        let kinds: Vec<_> = events.iter().map(|event| event["kind"].as_str().unwrap_or_default()).collect();
        assert_eq!(kinds.first(), Some(&"session_start"), "{output}: {kinds:?}");
        for kind in ["user_input", "turn_start", "tool_call_start", "tool_decision", "tool_call_end", "assistant_text_end"] {
            assert!(kinds.contains(&kind), "{output}: no {kind} in {kinds:?}");
        }
        // The run ends its session: session_start and session_end bracket it (spec 9.10).
        assert_eq!(kinds[kinds.len() - 2..], ["processing_end", "session_end"], "{output}: {kinds:?}");
        for event in &events {
            assert!(event["timestamp"].is_string() && event["session_id"].is_string() && event["data"].is_object(), "{event}");
        }
        let kept = sandbox.data_dir().join("runs").join(output).join("events.jsonl");
        assert_eq!(std::fs::read(&path).ok(), std::fs::read(kept).ok(), "{output}: the run's artifacts keep the same lines");
    }
}

#[test]
fn artifacts_keep_the_config_with_its_fingerprint_and_the_result() {
    // One server for every run: its URL is part of the fingerprint.
    let sandbox = sandbox_with_notes();
    let server = serve([read_notes_then_answer(), read_notes_then_answer(), read_notes_then_answer()].concat());
    let run = |run_id: &str, args: &[&str]| {
        let finished = sandbox.run_with_env(&server, &[&["run", TASK], args].concat(), &[("OPENAGENT_RUN_ID", run_id)]);
        assert_eq!(finished.code, Some(0), "{finished:?}");
        let dir = sandbox.data_dir().join("runs").join(run_id);
        let events = read_events(&dir.join("events.jsonl"));
        assert_eq!(events.first().map(|event| &event["kind"]), Some(&json!("session_start")), "{run_id}");
        (read_json(&dir.join("config.json")), read_json(&dir.join("result.json")))
    };
    let (human, result) = run("r_human", &[]);
    let (json, _) = run("r_json", &["--output", "json"]);
    let (other_model, _) = run("r_model", &["--model", "claude-other-model"]);

    assert_eq!((human["output_mode"].as_str(), json["output_mode"].as_str()), (Some("human"), Some("json")));
    assert_eq!(human["task"], TASK);
    let fingerprint = |config: &Value| config["config_fingerprint"].as_str().expect("a fingerprint").to_owned();
    assert_eq!(fingerprint(&human), fingerprint(&json), "the output mode is presentation only");
    assert_ne!(fingerprint(&human), fingerprint(&other_model), "the model changes what the agent does");
    assert_eq!(
        [&result["run_id"], &result["exit_reason"], &result["ok"], &result["final_output"], &result["error"]],
        [&json!("r_human"), &json!("completed"), &json!(true), &json!(ANSWER), &Value::Null]
    );
}

/// `OPENAGENT_RUN_ID` names the run; set but empty (an unfilled CI variable) it is as if unset:
/// an empty `run_id` is reserved for a run that could not start.
#[test]
fn an_empty_run_id_variable_gives_a_generated_run_id() {
    let sandbox = sandbox_with_notes();
    let server = serve(read_notes_then_answer());
    let run = sandbox.run_with_env(&server, &["run", TASK, "--output", "json"], &[("OPENAGENT_RUN_ID", "")]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let run_id = run.records()[0]["run_id"].as_str().expect("a run id").to_owned();
    assert!(run_id.starts_with("r_"), "{run:?}");
    assert!(
        sandbox.data_dir().join("runs").join(&run_id).join("result.json").is_file(),
        "the artifacts are in their own directory"
    );
}

#[test]
fn artifacts_that_cannot_be_kept_are_a_warning_on_stderr_not_a_failure() {
    let sandbox = sandbox_with_notes();
    let not_a_dir = sandbox.path("home/data-file");
    std::fs::write(&not_a_dir, "").expect("a file");
    let args = ["run", TASK, "--output", "json", "--data-dir", not_a_dir.to_str().expect("UTF-8")];
    let run = Running::start(sandbox.bare(Some(&serve(read_notes_then_answer())), &args)).finish();
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.starts_with("warning: the run's artifacts are not kept:"), "{}", run.stderr);
    assert_eq!(run.data_of("run_started")[0]["artifacts_dir"], Value::Null, "{run:?}");
    assert_eq!(run.run_finished()["artifacts_dir"], Value::Null, "{run:?}");
}

#[test]
fn a_refused_key_exits_4_naming_the_key_variable() {
    let sandbox = Sandbox::new();
    let run = sandbox.run(&serve([Step::error(401, None)]), TASK, &[]);
    assert_eq!(run.code, Some(4), "{run:?}");
    assert!(run.stderr.contains("refused the API key; check ANTHROPIC_API_KEY"), "{}", run.stderr);
    assert!(!run.stderr.contains(KEY) && !run.stdout.contains(KEY), "the key itself is never printed");
}

#[test]
fn turn_and_round_limits_exit_3_with_a_step_blocked_record() {
    let sandbox = sandbox_with_notes();
    let reread = [read_notes_then_answer()[..1].to_vec(), read_notes_then_answer()].concat();
    for (flag, reason, count) in [("--max-turns", "max_turns", 1), ("--max-tool-rounds", "max_tool_rounds", 1)] {
        let run = sandbox.run_json(&serve(reread.clone()), TASK, &[flag, "1"]);
        assert_eq!(run.code, Some(3), "{flag}: {run:?}");
        let blocked = run.data_of("step_blocked");
        let limit = if flag == "--max-turns" { "max_turns" } else { "max_tool_rounds_per_input" };
        assert_eq!(blocked, [json!({"reason": limit, "count": count})], "{flag}: {run:?}");
        assert_eq!(run.run_finished()["exit_reason"], reason);
    }
}

#[test]
fn an_unknown_model_exits_2() {
    let sandbox = Sandbox::new();
    let run = sandbox.run_json(&serve([Step::error(404, None)]), TASK, &["--model", "claude-none"]);
    assert_eq!(run.code, Some(2), "{run:?}");
    let done = run.run_finished();
    assert_eq!(done["exit_reason"], "model_not_found");
    assert!(done["error"].as_str().is_some_and(|e| e.contains("does not know the model `claude-none`")), "{done}");
}

/// Everything that stops a run before it starts: exit 2, one `config_error` record (JSON) or
/// the message (human) saying what to do, and an earlier events file left as it was.
#[test]
fn pre_run_failures_exit_2_with_a_clear_message_and_leave_the_events_file_alone() {
    let sandbox = Sandbox::new();
    let server = serve([]);
    let (missing, file) = (sandbox.path("missing"), sandbox.path("home/.profile"));
    std::fs::write(&file, "").expect("a file");
    let unwritable = sandbox.path("missing/events.jsonl");
    let cases: [(&str, Option<&MockServer>, Vec<&str>, &[&str]); 6] = [
        ("unknown provider", Some(&server), vec!["--provider", "claude"], &["unknown provider `claude`"]),
        ("no provider", None, vec![], &["no provider is configured", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY"]),
        ("bad base URL", Some(&server), vec!["--base-url", "ftp://127.0.0.1"], &["`ftp://127.0.0.1` is not an http"]),
        ("missing --cwd", Some(&server), vec!["--cwd", missing.to_str().expect("UTF-8")], &["cannot use --cwd", "missing"]),
        ("--cwd is a file", Some(&server), vec!["--cwd", file.to_str().expect("UTF-8")], &["not a directory"]),
        ("unwritable events", Some(&server), vec!["--events", unwritable.to_str().expect("UTF-8")], &["cannot write the events"]),
    ];
    let (events, data_dir) = (sandbox.path("events.jsonl"), sandbox.data_dir());
    for (case, server, flags, words) in cases {
        for output in ["human", "json"] {
            std::fs::write(&events, "from an earlier run\n").expect("the events file");
            let mut args = vec!["run", TASK, "--output", output, "--data-dir", data_dir.to_str().expect("UTF-8")];
            args.extend(&flags);
            if !flags.contains(&"--events") {
                args.extend(["--events", events.to_str().expect("UTF-8")]);
            }
            let run = Running::start(sandbox.bare(server, &args)).finish();
            assert_eq!(run.code, Some(2), "{case}, {output}: {run:?}");
            for word in words {
                assert!(run.stderr.contains(word), "{case}, {output}: the message says {word:?}: {}", run.stderr);
            }
            assert_eq!(std::fs::read_to_string(&events).ok().as_deref(), Some("from an earlier run\n"), "{case}, {output}");
            if output == "human" {
                assert_eq!(run.stdout, "", "{case}");
                continue;
            }
            let records = run.records();
            assert_eq!(records.len(), 1, "{case}: {run:?}");
            let record = &records[0];
            assert_eq!((record["run_id"].as_str(), record["sequence"].as_u64()), (Some(""), Some(1)), "{case}: {record}");
            let done = &record["data"];
            assert_eq!((done["ok"].as_bool(), done["exit_reason"].as_str()), (Some(false), Some("config_error")), "{case}");
            assert!(words.iter().all(|word| done["error"].as_str().is_some_and(|e| e.contains(word))), "{case}: {done}");
        }
    }
    assert!(server.requests().is_empty(), "no run reached the model");
    assert!(!sandbox.data_dir().join("runs").exists(), "no run kept artifacts");
}

#[test]
fn a_rate_limit_is_retried_with_a_provider_retry_record() {
    let sandbox = sandbox_with_notes();
    let server = serve(rate_limited_then_read_notes());
    let run = sandbox.run_json(&server, TASK, &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let retries = run.data_of("provider_retry");
    assert_eq!(retries.len(), 1, "{run:?}");
    assert_eq!((retries[0]["attempt"].as_u64(), retries[0]["delay_ms"].as_u64()), (Some(1), Some(0)), "Retry-After: 0 is obeyed");
    assert_eq!(retries[0]["error_kind"], "rate_limit");
    assert!(retries[0]["message"].as_str().is_some_and(|m| m.contains("rate limit")), "{}", retries[0]);
    assert_eq!(run.run_finished()["exit_reason"], "completed");
}

#[test]
fn an_unknown_tool_is_denied_and_calling_it_again_is_a_tool_retry() {
    let sandbox = Sandbox::new();
    let server = serve([
        call("toolu_1", "fetch_url", json!({"url": "https://example.com"})),
        call("toolu_2", "fetch_url", json!({"url": "https://example.com"})),
        Step::reply(Reply::text(ANSWER)),
    ]);
    let run = sandbox.run_json(&server, TASK, &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let tool_types: Vec<_> = run.types().into_iter().filter(|t| t.starts_with("tool_")).collect();
    assert_eq!(
        tool_types,
        ["tool_call_detected", "tool_decision", "tool_call_detected", "tool_retry", "tool_decision"],
        "{run:?}"
    );
    for decision in run.data_of("tool_decision") {
        assert_eq!((decision["decision"].as_str(), decision["source"].as_str()), (Some("deny"), Some("registry")), "{decision}");
        assert!(decision["reason"].as_str().is_some_and(|r| r.starts_with("Unknown tool: fetch_url")), "{decision}");
    }
    let retry = &run.data_of("tool_retry")[0];
    assert_eq!(
        (retry["call_id"].as_str(), retry["tool"].as_str(), retry["attempt"].as_u64()),
        (Some("toolu_2"), Some("fetch_url"), Some(2))
    );
    assert!(retry["previous_error"].as_str().is_some_and(|e| e.starts_with("Unknown tool: fetch_url")), "{retry}");
}

/// The contract's optional-field rule: a key a type declares is `null` when unknown, never
/// left out, so every record of one type has the same `data` keys, whatever the run did.
#[test]
fn every_record_of_a_type_has_the_same_data_keys() {
    let sandbox = sandbox_with_notes();
    let busy = serve([
        Step::error(429, Some(0)),
        call("toolu_missing", "read_file", json!({"file_path": "missing.txt"})),
        call("toolu_unknown", "fetch_url", json!({})),
        call("toolu_again", "fetch_url", json!({})),
        Step::reply(Reply::text(ANSWER)),
    ]);
    let runs = [
        sandbox.run_json(&busy, TASK, &["--stream"]),
        sandbox.run_json(&serve(read_notes_then_answer()), TASK, &[]),
        sandbox.run_json(&serve(read_notes_then_answer()), TASK, &["--max-turns", "1"]),
        sandbox.run_json(&serve([Step::error(401, None)]), TASK, &[]),
        Running::start(sandbox.openagent(None, &["run", TASK, "--output", "json"])).finish(),
    ];
    let mut keys_of: BTreeMap<String, (BTreeSet<String>, Value)> = BTreeMap::new();
    for record in runs.iter().flat_map(Finished::records) {
        let kind = record["type"].as_str().expect("a type").to_owned();
        let keys: BTreeSet<String> = record["data"].as_object().expect("an object").keys().cloned().collect();
        let (first, example) = keys_of.entry(kind.clone()).or_insert_with(|| (keys.clone(), record.clone()));
        assert_eq!(&keys, first, "{kind}: {record}\nhas other keys than\n{example}");
    }
    let failed = &runs[0].data_of("tool_exec_finished")[0];
    assert_eq!(failed["ok"], false, "{failed}");
    assert!(failed["content_preview"].as_str().is_some_and(|p| p.contains("missing.txt")), "the error is the preview: {failed}");
    let seen: BTreeSet<&str> = keys_of.keys().map(String::as_str).collect();
    assert_eq!(
        seen,
        BTreeSet::from(PROJECTED_TYPES).union(&BTreeSet::from([run_event::TEXT_DELTA])).copied().collect(),
        "every type was seen"
    );
}

#[test]
fn interactive_session_runs_a_piped_task_and_exits_at_the_end_of_input() {
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text(ANSWER))]);
    let mut session = Running::with_stdin(sandbox.openagent(Some(&server), &[]));
    session.write("say hello\n");
    let run = session.finish();
    assert_eq!(run.code, Some(0), "{run:?}");
    assert_eq!(run.stdout, format!("{ANSWER}\n"), "{run:?}");
    assert!(run.stderr.contains("✓ completed · 1 turn"), "{}", run.stderr);
    let requests = server.requests();
    assert_eq!(requests.len(), 1, "one task, one model call");
    assert!(requests[0].body.to_string().contains("say hello"), "the piped line was the task");
}

#[test]
fn interactive_session_without_a_provider_exits_2_saying_what_to_set() {
    let run = Running::with_stdin(Sandbox::new().bare(None, &[])).finish();
    assert_eq!((run.code, run.stdout.as_str()), (Some(2), ""), "{run:?}");
    assert!(run.stderr.contains("no provider is configured. Set one of OPENAI_API_KEY"), "{}", run.stderr);
}

#[test]
fn run_tui_takes_the_task_as_the_first_input_of_the_interactive_session() {
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text(ANSWER))]);
    let run = Running::with_stdin(sandbox.openagent(Some(&server), &["run", TASK, "--tui"])).finish();
    assert_eq!((run.code, run.stdout.as_str()), (Some(0), format!("{ANSWER}\n").as_str()), "{run:?}");
    assert!(server.requests()[0].body.to_string().contains(TASK), "the task went to the model");
}

/// A line typed while a task runs steers it: it reaches the model with the next request.
#[test]
fn interactive_session_takes_a_line_typed_during_a_run_as_steering() {
    let sandbox = sandbox_with_notes();
    let server = serve(read_notes_then_answer());
    let mut session = Running::with_stdin(sandbox.openagent(Some(&server), &[]));
    // Both lines at once: the first is the task, the second is waiting when the run starts.
    session.write(&format!("{TASK}\nuse British spelling\n"));
    let run = session.finish();
    assert_eq!(run.code, Some(0), "{run:?}");
    assert!(run.stderr.contains("→ steering: use British spelling"), "{}", run.stderr);
    let requests = server.requests();
    assert!(!requests[0].body.to_string().contains("British"), "the first request is the task alone");
    assert!(requests[1].body.to_string().contains("use British spelling"), "the second carries the steering");
}

/// A line typed after the task's last tool round, while the model writes its answer, steers
/// nothing: it becomes the next task instead of being lost.
#[test]
fn interactive_session_takes_a_line_typed_after_the_last_tool_round_as_the_next_task() {
    let sandbox = sandbox_with_notes();
    let read = call("toolu_read_notes", "read_file", json!({"file_path": "notes.txt"}));
    let server = serve([read, Step::slow_first_byte(1_500, Reply::text("first answer")), Step::reply(Reply::text(ANSWER))]);
    let mut session = Running::with_stdin(sandbox.openagent(Some(&server), &["--approval", "full-auto"]));
    session.write(&format!("{TASK}\n"));
    session.wait_for_line(Pipe::Stderr, |line| line.contains("read_file"));
    session.write("and count the words\n");
    let run = session.finish();
    assert_eq!(run.code, Some(0), "{run:?}");
    let requests = server.requests();
    assert_eq!(requests.len(), 3, "the late line was a task of its own: {run:?}");
    let third = requests[2].body.to_string();
    assert!(third.contains("and count the words"), "{third}");
    assert!(run.stdout.contains(ANSWER), "{run:?}");
}

/// Ctrl-C stops the running task but not the session, which keeps the conversation.
#[test]
fn interactive_session_survives_ctrl_c_and_keeps_the_conversation() {
    let sandbox = Sandbox::new();
    let server = serve([Step::slow_first_byte(30_000, Reply::text("too late")), Step::reply(Reply::text(ANSWER))]);
    let mut session = Running::with_stdin(sandbox.openagent(Some(&server), &[]));
    session.write("wait for me\n");
    eventually("the first task reaches the model", || server.requests().len() == 1);
    session.signal(libc::SIGINT);
    session.wait_for_line(Pipe::Stderr, |line| line.contains("interrupted"));
    session.write("then answer\n");
    let run = session.finish();
    assert_eq!(run.code, Some(0), "Ctrl-D after the interrupted task quits normally: {run:?}");
    assert_eq!(run.stdout, format!("{ANSWER}\n"), "{run:?}");
    let second = server.requests()[1].body.to_string();
    assert!(second.contains("wait for me") && second.contains("then answer"), "the conversation goes on: {second}");
}

/// An answer cut off at the output token limit is not a success: its own exit reason, exit 3.
#[test]
fn an_answer_cut_off_at_the_output_limit_exits_3_with_max_output_tokens() {
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text("The first half of").cut_off())]);
    let run = sandbox.run_json(&server, "write an essay", &[]);
    assert_eq!(run.code, Some(3), "{run:?}");
    let done = run.run_finished();
    assert_eq!(
        (&done["exit_reason"], &done["ok"], &done["final_output"]),
        (&json!("max_output_tokens"), &json!(false), &json!("The first half of"))
    );
    assert_eq!(done["error"], "The answer was cut off at the output token limit.");
    assert_eq!(done["outcome"]["status"], "failure");
}

/// A subagent's events are not the run's: one `run_started`, steps that never go back, only
/// the parent's tool records; its turns, tool calls and tokens count in `run_finished`.
#[test]
fn a_subagent_shows_through_its_parents_calls_and_counts_in_the_totals() {
    let sandbox = Sandbox::new();
    let delegate = Step::reply(Reply {
        tool_calls: vec![
            ToolCall { name: "spawn_agent".into(), arguments: json!({"task": "say hi"}), id: Some("toolu_spawn".into()) },
            ToolCall { name: "wait".into(), arguments: json!({"agent_id": "agent_1"}), id: Some("toolu_wait".into()) },
        ],
        ..Reply::default()
    });
    let server = serve([delegate, Step::reply(Reply::text("hi from the child")), Step::reply(Reply::text("The child said hi."))]);
    let run = sandbox.run_json(&server, "delegate a greeting", &[]);
    assert_eq!(run.code, Some(0), "{run:?}");
    let types = run.types();
    assert_eq!(types.iter().filter(|t| *t == "run_started").count(), 1, "{types:?}");
    let steps: Vec<u64> = run.records().iter().map(|r| r["step"].as_u64().unwrap()).collect();
    assert!(steps.windows(2).all(|w| w[0] <= w[1]), "steps go back: {steps:?}");
    let tools: Vec<Value> = run.data_of("tool_call_detected").iter().map(|d| d["tool"].clone()).collect();
    assert_eq!(tools, [json!("spawn_agent"), json!("wait")]);
    let done = run.run_finished();
    assert_eq!(
        (&done["final_output"], &done["turns"], &done["tool_calls"]),
        (&json!("The child said hi."), &json!(3), &json!(2))
    );
    assert_eq!(done["usage"]["total_tokens"], 45, "three responses of 15 tokens, the child's included: {done}");
    // claude-sonnet-4-5 (the Anthropic default) at $3 in and $15 out per million tokens: three
    // responses of 10 in and 5 out cost 3 × (10 × 3 + 5 × 15) / 1e6 dollars, the child's included.
    let cost = done["cost_usd"].as_f64().expect("a priced model has a cost");
    assert!((cost - 0.000_315).abs() < 1e-12, "{done}");
}

/// `.openagent/models.json` reprices a model for the run: the cost in `run_finished`, the human
/// summary line and `openagent sessions` follow it; cached prompt tokens cost the cache price.
#[test]
fn a_models_json_price_is_what_the_run_costs_everywhere_it_is_shown() {
    let sandbox = Sandbox::new();
    let models = r#"{"models": [{"id": "claude-sonnet-4-5", "input_cost_per_million": 100, "output_cost_per_million": 1000,
        "cache_read_cost_per_million": 10}]}"#;
    std::fs::create_dir_all(sandbox.cwd().join(".openagent")).unwrap();
    std::fs::write(sandbox.cwd().join(".openagent/models.json"), models).unwrap();
    // Anthropic counts cached prompt tokens apart: a prompt of 1000 tokens, 600 of them cached.
    let usage = Usage { input_tokens: 400, output_tokens: 200, reasoning_tokens: 0, cache_read_tokens: 600 };
    let server = serve([Step::reply(Reply { usage, ..Reply::text("done") })]);
    let done = sandbox.run_json(&server, "say done", &[]).run_finished();
    // 400 fresh prompt tokens × $100 + 600 cached × $10 + 200 out × $1000, per million.
    let expected = (400.0 * 100.0 + 600.0 * 10.0 + 200.0 * 1000.0) / 1e6;
    assert!((done["cost_usd"].as_f64().unwrap() - expected).abs() < 1e-12, "{done}");

    let server = serve([Step::reply(Reply { usage, ..Reply::text("done") })]);
    let human = sandbox.run(&server, "say done again", &[]);
    assert!(human.stderr.contains(" tokens · $0.2460 · "), "{human:?}");

    let list = sandbox.sessions(&["list"]);
    let header = list.stdout.lines().next().unwrap_or_default().to_owned();
    assert!(header.contains("TOKENS") && header.contains("COST"), "{list:?}");
    assert_eq!(list.stdout.matches("$0.2460").count(), 2, "{list:?}");
    let shown = sandbox.sessions(&["list", "--json"]);
    let sessions: Value = serde_json::from_str(shown.stdout.trim()).unwrap();
    assert_eq!(sessions[0]["total_tokens"], 1200, "{sessions}");
    assert!((sessions[0]["cost_usd"].as_f64().unwrap() - expected).abs() < 1e-12, "{sessions}");
    let id = sessions[0]["id"].as_str().unwrap();
    let shown: Value = serde_json::from_str(sandbox.sessions(&["show", id, "--json"]).stdout.trim()).unwrap();
    assert_eq!(shown["total_tokens"], 1200, "{shown}");
    let human = sandbox.sessions(&["show", id]);
    assert!(human.stdout.contains("used       1200 tokens · $0.2460"), "{human:?}");
}

/// A model the catalog does not know goes unpriced: `cost_usd` is null, not 0.
#[test]
fn an_unpriced_model_has_a_null_cost() {
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text("done"))]);
    let done = sandbox.run_json(&server, "say done", &["--model", "claude-nonexistent-9"]).run_finished();
    assert_eq!((&done["cost_usd"], &done["usage"]["total_tokens"]), (&Value::Null, &json!(15)), "{done}");
}

/// A password in `--base-url` is never written down: not in the artifacts, the store, or the
/// error the run ends with.
#[test]
fn a_password_in_the_base_url_is_kept_out_of_everything_recorded() {
    let sandbox = Sandbox::new();
    let args = [
        "run",
        "say hi",
        "--provider",
        "openai-compatible",
        "--model",
        "m",
        "--base-url",
        "http://user:hunter2-secret@127.0.0.1:9/v1",
        "--output",
        "json",
    ];
    let mut command = sandbox.openagent(None, &args);
    command.env("OPENAGENT_RUN_ID", "r_pass");
    let run = Running::start(command).finish();
    assert_ne!(run.code, Some(0), "nothing listens there: {run:?}");
    let config = std::fs::read_to_string(sandbox.data_dir().join("runs/r_pass/config.json")).expect("the run's config");
    let stored = sandbox.sessions(&["show", "r_pass", "--json"]).stdout;
    for (what, text) in [("stdout", &run.stdout), ("stderr", &run.stderr), ("config.json", &config), ("the store", &stored)] {
        assert!(!text.contains("hunter2"), "{what}: {text}");
    }
    assert!(config.contains("http://user:***@127.0.0.1:9/v1"), "{config}");
}

/// An OpenAI-compatible server's `GET /v1/models` says the window it serves the model with
/// (llama.cpp's `meta.n_ctx`): the run warns against that window, not a guessed one, and
/// `--context-window` still wins over it.
#[test]
fn a_compatible_server_s_listed_window_is_the_run_s_window() {
    let sandbox = Sandbox::new();
    let context_warnings = |extra: &[&str]| {
        let server = serve([Step::reply(Reply::text("done"))]);
        // A served window smaller than the conversation; llama.cpp's shape, trimmed.
        server.list_models(json!({"object": "list", "data": [{"id": "qwen.gguf", "meta": {"n_ctx": 64, "n_ctx_train": 32768}}]}));
        let events = sandbox.path("events.jsonl");
        let base_url = format!("{}/v1", server.base_url());
        let mut args = vec!["--provider", "openai-compatible", "--base-url", &base_url, "--compact-at", "0"];
        args.extend(["--events", events.to_str().expect("UTF-8")]);
        args.extend(extra);
        let task = "say done ".repeat(40);
        let run = sandbox.run_json(&server, &task, &args);
        assert_eq!(run.code, Some(0), "{run:?}");
        let model = server.requests().iter().find_map(|r| r.body["model"].as_str().map(str::to_owned));
        assert_eq!(model.as_deref(), Some("qwen.gguf"), "the listed model is the one asked");
        let warnings: Vec<String> = read_events(&events)
            .iter()
            .filter(|e| e["kind"] == "warning")
            .filter_map(|e| e["data"]["message"].as_str().map(str::to_owned))
            .filter(|m| m.contains("of context window"))
            .collect();
        warnings
    };
    assert_eq!(context_warnings(&[]).len(), 1, "a task of ~90 tokens fills 64 at once");
    assert_eq!(context_warnings(&["--context-window", "1000000"]), Vec::<String>::new());
}

/// The listing is kept in the data directory: the next run against the same server takes the
/// window from it, without waiting for `GET /models` first (which it asks beside its work).
#[test]
fn a_compatible_server_s_listing_is_kept_for_the_next_run() {
    let sandbox = Sandbox::new();
    let server = serve([Step::reply(Reply::text("done")), Step::reply(Reply::text("done"))]);
    server.list_models(json!({"object": "list", "data": [{"id": "qwen.gguf", "meta": {"n_ctx": 64}}]}));
    let base_url = format!("{}/v1", server.base_url());
    let warned = |run: usize| {
        let events = sandbox.path(&format!("events-{run}.jsonl"));
        let args = [
            "--provider",
            "openai-compatible",
            "--base-url",
            &base_url,
            "--compact-at",
            "0",
            "--events",
            events.to_str().unwrap(),
        ];
        let done = sandbox.run_json(&server, &"say done ".repeat(40), &args);
        assert_eq!(done.code, Some(0), "{done:?}");
        read_events(&events)
            .iter()
            .any(|e| e["kind"] == "warning" && e["data"]["message"].as_str().unwrap_or("").contains("of context window"))
    };
    assert!(warned(1), "the first run asks the server, and has its window");
    let first: Vec<String> = server.requests().iter().map(|r| r.method.clone()).collect();
    assert_eq!(first, ["GET", "POST"], "asked before the call");
    let kept = std::fs::read_to_string(sandbox.data_dir().join("server-models.json")).expect("the listing is kept");
    assert!(kept.contains("qwen.gguf") && kept.contains("64"), "{kept}");
    // The server now serves a window far larger: a run that waited for its answer would not warn.
    server.list_models(json!({"object": "list", "data": [{"id": "qwen.gguf", "meta": {"n_ctx": 1_000_000}}]}));
    assert!(warned(2), "the second run has the kept window, not waiting for the server's new one");
}

/// `openagent <args>` with its stdout on `/dev/full`, to the end: its exit code and stderr.
fn onto_a_full_disk(mut command: std::process::Command) -> (Option<i32>, String) {
    let full = std::fs::File::options().write(true).open("/dev/full").expect("/dev/full");
    let ran = command.stdin(std::process::Stdio::null()).stdout(full).output().expect("openagent runs");
    (ran.status.code(), String::from_utf8_lossy(&ran.stderr).into_owned())
}

/// A stdout that cannot be written (a full disk) is an error of its own, exit 5 with one line on
/// stderr, in both output modes: human mode panicked (exit 101) and JSON mode exited 0 with the
/// answer lost. The run is still finished in the store, which keeps its result.
#[test]
fn a_stdout_that_cannot_be_written_exits_5_and_the_store_still_has_the_result() {
    let sandbox = sandbox_with_notes();
    for output in ["human", "json"] {
        let id = format!("r_full_{output}");
        let server = serve(read_notes_then_answer());
        let mut command = sandbox.openagent(Some(&server), &["run", TASK, "--output", output]);
        command.env("OPENAGENT_RUN_ID", &id);
        let (code, stderr) = onto_a_full_disk(command);
        assert_eq!(code, Some(5), "{output}: {stderr}");
        assert!(!stderr.contains("panicked"), "{output}: {stderr}");
        let said: Vec<_> = stderr.lines().filter(|line| line.starts_with("error: could not write to stdout")).collect();
        assert_eq!(said.len(), 1, "{output}: {stderr}");
        assert!(said[0].contains(&format!("openagent sessions result {id}")), "{output}: {stderr}");
        let result = sandbox.sessions(&["result", &id]);
        assert!(result.stdout.contains(ANSWER), "{output}: {result:?}");
        assert!(sandbox.sessions(&["show", &id]).stdout.contains("finished (completed)"), "{output}");
    }
    for args in [&["sessions", "list"][..], &["models"], &["agents", "list"]] {
        let mut command = sandbox.bare(None, args);
        match args[0] {
            "sessions" => command.arg("--data-dir").arg(sandbox.data_dir()),
            _ => command.arg("--cwd").arg(sandbox.cwd()),
        };
        if args[0] == "agents" {
            std::fs::create_dir_all(sandbox.cwd().join(".openagent/agents/a")).expect("an agent's folder");
            std::fs::write(sandbox.cwd().join(".openagent/agents/a/agent.yml"), "name: a\n").expect("an agent");
        }
        let (code, stderr) = onto_a_full_disk(command);
        assert_eq!((code, stderr.contains("panicked")), (Some(5), false), "{args:?}: {stderr}");
        assert!(stderr.contains("error: could not write to stdout"), "{args:?}: {stderr}");
    }
}

/// A reader that stops early (`openagent sessions list | head -1`) took what it wanted: no panic,
/// no error.
#[test]
fn a_reader_that_goes_away_early_is_no_error() {
    let sandbox = sandbox_with_notes();
    let server = serve([read_notes_then_answer(), read_notes_then_answer()].concat());
    for id in ["r_one", "r_two"] {
        assert_eq!(sandbox.run_with_env(&server, &["run", TASK], &[("OPENAGENT_RUN_ID", id)]).code, Some(0));
    }
    let mut command = sandbox.bare(None, &["sessions", "list"]);
    command.arg("--data-dir").arg(sandbox.data_dir());
    let mut child = command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped()).spawn().expect("starts");
    drop(child.stdout.take());
    let ran = child.wait_with_output().expect("it ends");
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert_eq!((ran.status.code(), stderr.as_ref()), (Some(0), ""), "{stderr}");
}

/// What the model says and what its tools touch reaches the terminal as text, never as control:
/// NUL, an escape sequence (here one that retitles the terminal) and bidi overrides and isolates
/// are shown as pictures in human mode, on stdout and on the tool lines of stderr. JSON mode keeps
/// the text as it was, JSON-escaped.
#[test]
fn human_mode_shows_control_and_bidi_characters_as_text() {
    let sandbox = sandbox_with_notes();
    let hostile = "done\u{0}\x1b]0;owned\x07 \u{202e}txt.exe\u{202c} \u{2066}x\u{2069}\u{9b}2J\r\nline\ttab";
    let steps = || {
        vec![call("toolu_evil", "read_file", json!({"file_path": "\x1b[2Jnotes\u{202e}.txt"})), Step::reply(Reply::text(hostile))]
    };
    let human = sandbox.run(&serve(steps()), TASK, &[]);
    assert_eq!(human.code, Some(0), "{human:?}");
    for (pipe, text) in [("stdout", &human.stdout), ("stderr", &human.stderr)] {
        let bad: Vec<char> = text.chars().filter(|c| c.is_control() && !matches!(c, '\n' | '\t')).collect();
        let bidi: Vec<char> = text.chars().filter(|c| matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')).collect();
        assert_eq!((bad, bidi), (vec![], vec![]), "{pipe}: {text:?}");
    }
    assert!(human.stdout.starts_with("done␀␛]0;owned␇ ") && human.stdout.ends_with("line\ttab\n"), "{:?}", human.stdout);
    assert!(human.stderr.contains("read_file ␛[2Jnotes"), "{:?}", human.stderr);

    let json = sandbox.run_json(&serve(steps()), TASK, &[]);
    assert_eq!(json.run_finished()["final_output"], hostile, "JSON mode keeps the text: {json:?}");
}
