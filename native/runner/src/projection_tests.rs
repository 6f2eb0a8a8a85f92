//! The projection table and its rules, event by event (the CLI's integration tests hold the
//! whole stream against the mock LLM server).

use openagent_core::llm::ErrorKind;
use openagent_core::run_event::{TEXT_DELTA, TYPES as V1_TYPES};
use openagent_core::session::{CompactionReason, SessionStatus};
use serde_json::json;

use super::*;

fn event(data: EventData) -> SessionEvent {
    SessionEvent { timestamp: "2025-01-01T00:00:00.000Z".into(), session_id: "s".into(), data }
}

fn records(projector: &mut Projector, data: EventData) -> Vec<Value> {
    projector.project(&event(data)).iter().map(|line| serde_json::from_str(line).unwrap()).collect()
}

fn start(call: &str, tool: &str) -> EventData {
    EventData::ToolCallStart { call_id: call.into(), tool_name: tool.into(), arguments: json!({"command": "make"}) }
}

fn decide(call: &str, tool: &str, decision: Decision) -> EventData {
    let reason = (decision == Decision::Deny).then(|| "Unknown tool".to_owned());
    EventData::ToolDecision { call_id: call.into(), tool_name: tool.into(), decision, reason, source: "registry".into() }
}

fn end(call: &str, tool: &str, error: Option<&str>) -> EventData {
    EventData::ToolCallEnd {
        call_id: call.into(),
        tool_name: tool.into(),
        output: error.is_none().then(|| "ok".into()),
        error: error.map(str::to_owned),
        duration_ms: 3,
    }
}

#[test]
fn the_table_covers_every_v1_type_and_nothing_else_but_text_deltas() {
    let mut produced: Vec<&str> = TABLE.iter().flat_map(|row| row.external.iter().copied()).collect();
    produced.push(RUN_FINISHED);
    for kind in V1_TYPES {
        assert!(produced.contains(&kind), "nothing projects to {kind}");
    }
    produced.retain(|kind| !V1_TYPES.contains(kind));
    assert_eq!(produced, [TEXT_DELTA]);
}

#[test]
fn unmapped_kinds_produce_nothing() {
    let mut projector = Projector::new("r", RunInfo::default(), true);
    for data in [
        EventData::UserInput { content: "hi".into(), images: vec![] },
        EventData::AssistantTextStart { response_id: None },
        EventData::Warning { message: "careful".into() },
        EventData::SteeringInjected { content: "also".into() },
        EventData::ToolCallOutputDelta { call_id: "c".into(), delta: "x".into() },
        EventData::ProcessingEnd { state: SessionStatus::Idle, reason: openagent_core::session::StopReason::Completed },
        // v1's types are fixed: a compaction is counted in `run_finished` (`compactions`) instead.
        EventData::CompactionStart { reason: CompactionReason::Threshold, tokens_before: 30_000, context_window: 32_000 },
        EventData::CompactionEnd {
            reason: CompactionReason::Threshold,
            tokens_before: 30_000,
            tokens_after: 6_000,
            summarized_turns: 40,
            kept_turns: 4,
            error: None,
        },
    ] {
        assert!(projector.project(&event(data)).is_empty());
    }
    // Nothing was written, so the next line is still number 1.
    let first = records(&mut projector, EventData::TurnStart { turn: 1 });
    assert_eq!(first[0]["sequence"], 1);
}

#[test]
fn envelopes_count_lines_and_carry_the_step() {
    let mut projector = Projector::new("r_1", RunInfo::default(), false);
    let mut lines = records(&mut projector, EventData::TurnStart { turn: 1 });
    lines.extend(records(&mut projector, start("c1", "shell")));
    lines.extend(records(&mut projector, decide("c1", "shell", Decision::Allow)));
    lines.extend(records(&mut projector, EventData::TurnStart { turn: 2 }));
    let kinds: Vec<_> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["step_started", "tool_call_detected", "tool_decision", "tool_exec_started", "step_started"]);
    let sequence: Vec<_> = lines.iter().map(|l| l["sequence"].as_u64().unwrap()).collect();
    assert_eq!(sequence, [1, 2, 3, 4, 5]);
    let steps: Vec<_> = lines.iter().map(|l| l["step"].as_u64().unwrap()).collect();
    assert_eq!(steps, [1, 1, 1, 1, 2]);
    let keys: Vec<_> = lines[0].as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys.len(), 7);
    assert_eq!((lines[0]["schema_version"].as_str(), lines[0]["run_id"].as_str()), (Some(SCHEMA_VERSION), Some("r_1")));
}

#[test]
fn a_refused_call_is_decided_not_executed_and_a_repeat_after_failure_is_a_retry() {
    let mut p = Projector::new("r", RunInfo::default(), false);
    records(&mut p, start("c1", "nope"));
    let denied = records(&mut p, decide("c1", "nope", Decision::Deny));
    assert_eq!(denied.len(), 1);
    assert_eq!(denied[0]["data"]["decision"], "deny");
    assert_eq!(denied[0]["data"]["reason"], "Unknown tool");
    assert!(records(&mut p, end("c1", "nope", Some("Unknown tool"))).is_empty());

    let retried = records(&mut p, start("c2", "nope"));
    let kinds: Vec<_> = retried.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["tool_call_detected", "tool_retry"]);
    assert_eq!(retried[1]["data"]["attempt"], 2);
    assert_eq!(retried[1]["data"]["previous_error"], "Unknown tool");

    // A failure that ran counts too; a success ends the streak.
    records(&mut p, start("c3", "shell"));
    records(&mut p, decide("c3", "shell", Decision::Allow));
    let failed = records(&mut p, end("c3", "shell", Some("exit 1")));
    assert_eq!((failed[0]["data"]["ok"].as_bool(), failed[0]["data"]["content_preview"].as_str()), (Some(false), Some("exit 1")));
    assert_eq!(records(&mut p, start("c4", "shell")).len(), 2);
    records(&mut p, decide("c4", "shell", Decision::Allow));
    records(&mut p, end("c4", "shell", None));
    assert_eq!(records(&mut p, start("c5", "shell")).len(), 1);
}

#[test]
fn declared_keys_are_null_not_missing() {
    let mut p = Projector::new("r", RunInfo::default(), false);
    let allowed = records(&mut p, decide("c1", "shell", Decision::Allow));
    let data = &allowed[0]["data"];
    for key in ["decision", "reason", "source", "tool", "truncated", "original_bytes"] {
        assert!(data.get(key).is_some(), "{key} missing from {data}");
    }
    assert!(data["reason"].is_null() && data["original_bytes"].is_null());
    let error = records(&mut p, EventData::Error { message: "down".into(), error_kind: None });
    assert!(error[0]["data"]["error_kind"].is_null());
    let retry = EventData::ProviderRetry { attempt: 1, delay_ms: 500, error_kind: ErrorKind::RateLimit, message: "429".into() };
    assert_eq!(records(&mut p, retry)[0]["data"]["error_kind"], "rate_limit");
}

#[test]
fn large_fields_are_cut_on_a_character_boundary_with_their_size() {
    let mut p = Projector::new("r", RunInfo::default(), false);
    let big = format!("a{}", "é".repeat(3000)); // 6001 bytes; byte 4096 falls inside an `é`
    records(&mut p, decide("c1", "read_file", Decision::Allow));
    let finished = EventData::ToolCallEnd {
        call_id: "c1".into(),
        tool_name: "read_file".into(),
        output: Some(big.as_str().into()),
        error: None,
        duration_ms: 1,
    };
    let data = &records(&mut p, finished)[0]["data"];
    let preview = data["content_preview"].as_str().unwrap();
    assert_eq!(preview.len(), 4095);
    assert!(big.starts_with(preview));
    assert_eq!((data["truncated"].as_bool(), data["original_bytes"].as_u64()), (Some(true), Some(6001)));
    assert_eq!(bound("short"), ("short", None));
}

#[test]
fn text_deltas_only_with_stream() {
    let delta = || EventData::AssistantTextDelta { delta: "Hel".into() };
    assert!(Projector::new("r", RunInfo::default(), false).project(&event(delta())).is_empty());
    let streamed = records(&mut Projector::new("r", RunInfo::default(), true), delta());
    assert_eq!((streamed[0]["type"].as_str(), streamed[0]["data"]["delta"].as_str()), (Some("text_delta"), Some("Hel")));
}

#[test]
fn run_finished_is_written_once_and_a_pre_run_failure_has_no_run_id() {
    let mut p = Projector::new("r", RunInfo::default(), false);
    let end = RunEnd { exit_reason: "completed".into(), final_output: "done".into(), ..RunEnd::default() };
    let line: Value = serde_json::from_str(&p.finish("t", &end).unwrap()).unwrap();
    assert_eq!((line["data"]["ok"].as_bool(), line["data"]["error"].is_null()), (Some(true), true));
    assert!(p.finish("t", &end).is_none());

    let failed =
        RunEnd { exit_reason: "config_error".into(), exit_code: 2, error: Some("no provider".into()), ..RunEnd::default() };
    let line: Value = serde_json::from_str(&Projector::pre_run_failure("t", &failed)).unwrap();
    assert_eq!((line["run_id"].as_str(), line["sequence"].as_u64()), (Some(""), Some(1)));
    assert_eq!((line["data"]["ok"].as_bool(), line["data"]["error"].as_str()), (Some(false), Some("no provider")));
}

#[test]
fn run_started_says_which_session_a_run_resumes_and_where_it_was_forked_from() {
    let session_start =
        || EventData::SessionStart { provider: "anthropic".into(), model: "m".into(), working_directory: "/w".into() };
    let new = records(&mut Projector::new("r_1", RunInfo::default(), false), session_start());
    assert!(new[0]["data"]["resumed_from"].is_null() && new[0]["data"]["forked_from"].is_null(), "{}", new[0]);
    let info = RunInfo { resumed_from: Some("r_fork".into()), forked_from: Some("r_origin".into()), ..RunInfo::default() };
    let resumed = records(&mut Projector::new("r_2", info, false), session_start());
    assert_eq!((&resumed[0]["data"]["resumed_from"], &resumed[0]["data"]["forked_from"]), (&json!("r_fork"), &json!("r_origin")));
}
