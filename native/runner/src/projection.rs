//! The `openagent.run_event.v1` contract: the session's internal events projected, by a fixed
//! table, onto the eleven external types a CI pipeline reads from `openagent run --output json`.
//!
//! Each line is one envelope `{schema_version, sequence, ts, run_id, step, type, data}`.
//! `sequence` counts lines from 1 without gaps; `step` is the number of the model call the
//! event belongs to (0 before the first). Internal kinds missing from [`TABLE`] are dropped.
//! Every declared `data` key is always present (`null` when unknown), and each type's one
//! potentially large string is cut at [`PREVIEW_MAX_BYTES`] on a character boundary, flagged
//! with `truncated` and `original_bytes`. `run_finished` is not in the table: the run writes it,
//! exactly once, through [`Projector::finish`].

use std::collections::{HashMap, HashSet};

use openagent_core::llm::Usage;
use openagent_core::session::{AgentOutcome, Decision, EventData, SessionEvent};
use serde::Serialize;
use serde_json::{json, Map, Value};

// The contract's names are the core's, the one list its tests and the docs are held to.
use openagent_core::run_event::TEXT_DELTA;
pub use openagent_core::run_event::{RUN_FINISHED, SCHEMA_VERSION};

/// The bound on any large string in `data`, in bytes.
pub const PREVIEW_MAX_BYTES: usize = 4096;

/// Projects one internal event; pushes `(type, data)` records in occurrence order.
type Project = fn(&mut State, &EventData, &mut Vec<(&'static str, Value)>);

/// One row of the projection: an internal kind, the external types it may become, and how.
pub struct Row {
    pub internal: &'static str,
    pub external: &'static [&'static str],
    project: Project,
}

/// The projection. An internal kind not listed here never reaches the output.
pub const TABLE: &[Row] = &[
    Row { internal: "session_start", external: &["run_started"], project: run_started },
    Row { internal: "turn_start", external: &["step_started"], project: step_started },
    Row { internal: "tool_call_start", external: &["tool_call_detected", "tool_retry"], project: tool_call_detected },
    Row { internal: "tool_decision", external: &["tool_decision", "tool_exec_started"], project: tool_decision },
    Row { internal: "tool_call_end", external: &["tool_exec_finished"], project: tool_exec_finished },
    Row { internal: "turn_limit", external: &["step_blocked"], project: step_blocked },
    Row { internal: "provider_retry", external: &["provider_retry"], project: provider_retry },
    Row { internal: "error", external: &["provider_error"], project: provider_error },
    // Only with `--stream`: the model's text as it arrives.
    Row { internal: "assistant_text_delta", external: &[TEXT_DELTA], project: text_delta },
];

/// What the run itself knows, for `run_started`.
#[derive(Debug, Clone, Default)]
pub struct RunInfo {
    pub task: String,
    pub output_mode: String,
    pub config_fingerprint: String,
    pub artifacts_dir: Option<String>,
    /// The stored session the run continues; `None` for a new one.
    pub resumed_from: Option<String>,
    /// The session that one was forked from, if it was.
    pub forked_from: Option<String>,
    /// The sandbox policy the run's commands are held to (the core's serialised
    /// `SandboxPolicy`); `None` for a run without the native host's.
    pub sandbox: Option<Value>,
}

/// How the run ended, for `run_finished`.
#[derive(Debug, Clone, Default)]
pub struct RunEnd {
    pub exit_reason: String,
    pub exit_code: u8,
    pub final_output: String,
    pub error: Option<String>,
    pub turns: usize,
    pub tool_calls: usize,
    /// How often the session's history was compacted during the run.
    pub compactions: usize,
    pub usage: Usage,
    pub duration_ms: u64,
    /// The typed outcome of the run (seed 002).
    pub outcome: Option<AgentOutcome>,
    /// The accepted structured result, when the run had an output schema.
    pub result_data: Option<Value>,
}

impl RunEnd {
    pub fn ok(&self) -> bool {
        self.exit_code == 0
    }
}

/// What projecting needs to remember between events.
#[derive(Default)]
struct State {
    info: RunInfo,
    stream: bool,
    step: u64,
    /// Calls refused before running: their `tool_call_end` is not an execution.
    denied: HashSet<String>,
    /// Per tool, the consecutive failed calls so far and the last error.
    failures: HashMap<String, (u32, String)>,
}

/// Turns internal events into v1 lines for one run.
pub struct Projector {
    run_id: String,
    /// The run's own session; its subagents' events are not projected.
    root: Option<String>,
    sequence: u64,
    finished: bool,
    state: State,
}

#[derive(Serialize)]
struct Envelope<'a> {
    schema_version: &'static str,
    sequence: u64,
    ts: &'a str,
    run_id: &'a str,
    step: u64,
    #[serde(rename = "type")]
    kind: &'a str,
    data: Value,
}

impl Projector {
    /// `stream`: also project text deltas (`--stream`).
    pub fn new(run_id: impl Into<String>, info: RunInfo, stream: bool) -> Self {
        let state = State { info, stream, ..State::default() };
        Self { run_id: run_id.into(), root: None, sequence: 0, finished: false, state }
    }

    /// The lines `event` projects to (often none). Only the run's own session is projected (the
    /// session of the first event): a subagent's events are in `--events` and the store, and its
    /// work shows here through the `spawn_agent` and `wait` calls that run it.
    pub fn project(&mut self, event: &SessionEvent) -> Vec<String> {
        if *self.root.get_or_insert_with(|| event.session_id.to_string()) != event.session_id {
            return Vec::new();
        }
        let Some(row) = TABLE.iter().find(|row| row.internal == event.kind()) else { return Vec::new() };
        let mut records = Vec::new();
        (row.project)(&mut self.state, &event.data, &mut records);
        records.into_iter().map(|(kind, data)| self.line(&event.timestamp, kind, data)).collect()
    }

    /// The terminal `run_finished` line; `None` if it was already written.
    pub fn finish(&mut self, ts: &str, end: &RunEnd) -> Option<String> {
        if std::mem::replace(&mut self.finished, true) {
            return None;
        }
        let data = run_finished_data(end, self.state.info.artifacts_dir.as_deref());
        Some(self.line(ts, RUN_FINISHED, data))
    }

    /// The one line written when the run could not start (no run id yet): `run_id` empty,
    /// `sequence` 1, `ok` false.
    pub fn pre_run_failure(ts: &str, end: &RunEnd) -> String {
        Projector::new("", RunInfo::default(), false).finish(ts, end).expect("a new projector has not finished")
    }

    fn line(&mut self, ts: &str, kind: &str, data: Value) -> String {
        self.sequence += 1;
        let envelope = Envelope {
            schema_version: SCHEMA_VERSION,
            sequence: self.sequence,
            ts,
            run_id: &self.run_id,
            step: self.state.step,
            kind,
            data,
        };
        serde_json::to_string(&envelope).expect("an envelope of JSON values serialises")
    }
}

/// `text` cut to [`PREVIEW_MAX_BYTES`] at a character boundary, and its size if it was cut.
pub fn bound(text: &str) -> (&str, Option<usize>) {
    if text.len() <= PREVIEW_MAX_BYTES {
        return (text, None);
    }
    let mut end = PREVIEW_MAX_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    (&text[..end], Some(text.len()))
}

/// Puts `text`, bounded, under `key`, with the `truncated` and `original_bytes` that describe it.
fn insert_bounded(data: &mut Map<String, Value>, key: &str, text: Option<&str>) {
    let (value, original) = match text.map(bound) {
        Some((cut, original)) => (Value::String(cut.to_owned()), original),
        None => (Value::Null, None),
    };
    data.insert(key.to_owned(), value);
    data.insert("truncated".into(), Value::Bool(original.is_some()));
    data.insert("original_bytes".into(), original.map_or(Value::Null, Value::from));
}

fn object(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        _ => unreachable!("every record is built from a json! object"),
    }
}

fn run_started(state: &mut State, event: &EventData, out: &mut Vec<(&'static str, Value)>) {
    let EventData::SessionStart { provider, model, working_directory } = event else { return };
    let info = &state.info;
    let (task, original) = bound(&info.task);
    out.push((
        "run_started",
        json!({
            "task": task,
            "provider": provider,
            "model": model,
            "working_directory": working_directory,
            "output_mode": info.output_mode,
            "config_fingerprint": info.config_fingerprint,
            "artifacts_dir": info.artifacts_dir,
            "resumed_from": info.resumed_from,
            "forked_from": info.forked_from,
            "sandbox": info.sandbox,
            "truncated": original.is_some(),
            "original_bytes": original,
        }),
    ));
}

fn step_started(state: &mut State, event: &EventData, out: &mut Vec<(&'static str, Value)>) {
    let EventData::TurnStart { turn } = event else { return };
    state.step = *turn as u64;
    out.push(("step_started", json!({ "step": turn })));
}

fn tool_call_detected(state: &mut State, event: &EventData, out: &mut Vec<(&'static str, Value)>) {
    let EventData::ToolCallStart { call_id, tool_name, arguments } = event else { return };
    let mut data = object(json!({ "call_id": call_id, "tool": tool_name }));
    insert_bounded(&mut data, "arguments", Some(&arguments.to_string()));
    out.push(("tool_call_detected", Value::Object(data)));
    // The model calling a tool again right after that tool failed is a retry.
    if let Some((failures, last_error)) = state.failures.get(tool_name) {
        let mut data = object(json!({ "call_id": call_id, "tool": tool_name, "attempt": failures + 1 }));
        insert_bounded(&mut data, "previous_error", Some(last_error));
        out.push(("tool_retry", Value::Object(data)));
    }
}

fn tool_decision(state: &mut State, event: &EventData, out: &mut Vec<(&'static str, Value)>) {
    let EventData::ToolDecision { call_id, tool_name, decision, reason, source } = event else { return };
    let word = match decision {
        Decision::Allow => "allow",
        Decision::Deny => "deny",
    };
    let mut data = object(json!({ "call_id": call_id, "tool": tool_name, "decision": word, "source": source }));
    insert_bounded(&mut data, "reason", reason.as_deref());
    out.push(("tool_decision", Value::Object(data)));
    match decision {
        Decision::Allow => out.push(("tool_exec_started", json!({ "call_id": call_id, "tool": tool_name }))),
        Decision::Deny => {
            state.denied.insert(call_id.clone());
            note_outcome(state, tool_name, reason.as_deref());
        }
    }
}

fn tool_exec_finished(state: &mut State, event: &EventData, out: &mut Vec<(&'static str, Value)>) {
    let EventData::ToolCallEnd { call_id, tool_name, output, error, duration_ms } = event else { return };
    if state.denied.remove(call_id) {
        return;
    }
    note_outcome(state, tool_name, error.as_deref());
    let mut data = object(json!({
        "call_id": call_id,
        "tool": tool_name,
        "ok": error.is_none(),
        "duration_ms": duration_ms,
    }));
    insert_bounded(&mut data, "content_preview", error.as_deref().or(output.as_deref()));
    out.push(("tool_exec_finished", Value::Object(data)));
}

/// Counts a tool's consecutive failures, for `tool_retry`; a success resets them.
fn note_outcome(state: &mut State, tool: &str, error: Option<&str>) {
    match error {
        Some(error) => {
            let entry = state.failures.entry(tool.to_owned()).or_insert((0, String::new()));
            *entry = (entry.0 + 1, error.to_owned());
        }
        None => {
            state.failures.remove(tool);
        }
    }
}

fn step_blocked(_: &mut State, event: &EventData, out: &mut Vec<(&'static str, Value)>) {
    let EventData::TurnLimit { limit, count } = event else { return };
    out.push(("step_blocked", json!({ "reason": limit, "count": count })));
}

fn provider_retry(_: &mut State, event: &EventData, out: &mut Vec<(&'static str, Value)>) {
    let EventData::ProviderRetry { attempt, delay_ms, error_kind, message } = event else { return };
    let mut data = object(json!({ "attempt": attempt, "delay_ms": delay_ms, "error_kind": error_kind }));
    insert_bounded(&mut data, "message", Some(message));
    out.push(("provider_retry", Value::Object(data)));
}

fn provider_error(_: &mut State, event: &EventData, out: &mut Vec<(&'static str, Value)>) {
    let EventData::Error { message, error_kind } = event else { return };
    let mut data = object(json!({ "error_kind": error_kind }));
    insert_bounded(&mut data, "message", Some(message));
    out.push(("provider_error", Value::Object(data)));
}

fn text_delta(state: &mut State, event: &EventData, out: &mut Vec<(&'static str, Value)>) {
    let EventData::AssistantTextDelta { delta } = event else { return };
    if state.stream {
        out.push((TEXT_DELTA, json!({ "delta": delta })));
    }
}

fn run_finished_data(end: &RunEnd, artifacts_dir: Option<&str>) -> Value {
    let usage = &end.usage;
    // Seed 000: a run that is not ok says why; without an error message, its outcome does.
    let why =
        end.outcome.as_ref().map(|o| o.summary.clone()).unwrap_or_else(|| format!("the run ended with {}", end.exit_reason));
    let error = end.error.clone().or_else(|| (!end.ok()).then_some(why));
    let mut data = object(json!({
        "exit_reason": end.exit_reason,
        "ok": end.ok(),
        "exit_code": end.exit_code,
        "error": error.as_deref().map(|error| bound(error).0),
        "turns": end.turns,
        "tool_calls": end.tool_calls,
        "compactions": end.compactions,
        "usage": {
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "total_tokens": usage.total_tokens,
            "reasoning_tokens": usage.reasoning_tokens,
        },
        // Dollars by the catalog's prices, subagents included; null when no response was priced.
        "cost_usd": usage.cost_usd,
        "duration_ms": end.duration_ms,
        "artifacts_dir": artifacts_dir,
        "outcome": end.outcome,
        "result_data": end.result_data,
    }));
    insert_bounded(&mut data, "final_output", Some(&end.final_output));
    // `original_bytes` describes `final_output`; a cut error still sets `truncated`.
    if error.is_some_and(|error| error.len() > PREVIEW_MAX_BYTES) {
        data.insert("truncated".into(), Value::Bool(true));
    }
    Value::Object(data)
}

#[cfg(test)]
#[path = "projection_tests.rs"]
mod tests;
