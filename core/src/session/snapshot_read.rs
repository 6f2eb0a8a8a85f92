//! Reading a snapshot back, by hand: a derived `Deserialize` for the whole state costs the
//! browser bundle several times this reader (DESIGN.md: the bundle is a budget). It reads what
//! the derived `Serialize` writes, names the path of anything wrong, and ignores fields it does
//! not know, as the derived reader would.
//!
//! The first problem is kept aside and the reading goes on with empty values, rather than
//! returning at once: an early return in the middle of building a struct makes the compiler
//! write the clean-up of every field read so far at every field, which is most of a reader's size.

use std::cell::RefCell;

use serde_json::{Map, Value};

use super::outcome::{AgentOutcome, Evidence, EvidenceKind, OutcomeMetrics, OutcomeStatus};
use super::state::{SessionState, SubAgentRecord};
use super::{RunResult, SessionConfig, SessionSnapshot, SnapshotError, SubAgentResult, SubAgentStatus, ToolLimits, Turn};
use crate::llm::{base64, ContentPart, MediaData, Message, Role, ThinkingData, ToolCall, ToolResult, Usage};

/// Reads a snapshot whose schema is already checked.
pub(super) fn snapshot(value: Value) -> Result<SessionSnapshot, SnapshotError> {
    let problem = Problem::default();
    let mut o = Obj::new(value, String::new(), &problem);
    let snapshot = SessionSnapshot {
        schema: o.string("schema"),
        session_id: o.string("session_id"),
        provider: o.string("provider"),
        model: o.string("model"),
        state: state(o.obj("state")),
        output_schema: o.opt("output_schema"),
        user_instructions: o.opt_string("user_instructions"),
        environment: o.opt("environment"),
    };
    match problem.0.into_inner() {
        Some(error) => Err(error),
        None => Ok(snapshot),
    }
}

/// The first thing found wrong.
#[derive(Default)]
struct Problem(RefCell<Option<SnapshotError>>);

impl Problem {
    fn note(&self, path: &str, what: impl std::fmt::Display) {
        let mut first = self.0.borrow_mut();
        if first.is_none() {
            *first = Some(SnapshotError::Invalid(format!("{what} at {path}")));
        }
    }
}

/// One JSON object being read, its fields taken out as they are read (strings move, nothing is
/// copied), with its path for errors. Paths are written out only for an error.
struct Obj<'p> {
    map: Map<String, Value>,
    path: String,
    problem: &'p Problem,
}

impl<'p> Obj<'p> {
    fn new(value: Value, path: String, problem: &'p Problem) -> Self {
        let map = match value {
            Value::Object(map) => map,
            other => {
                problem.note(&path, expected(&other, "an object"));
                Map::new()
            }
        };
        Self { map, path, problem }
    }

    fn path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    fn wrong(&self, key: &str, value: &Value, what: &str) {
        self.problem.note(&self.path(key), expected(value, what));
    }

    /// The field, `None` when it is missing or null.
    fn opt(&mut self, key: &str) -> Option<Value> {
        // Taken, not removed: leaving a null behind spares the map's rebalancing.
        self.map.get_mut(key).map(Value::take).filter(|v| !v.is_null())
    }

    fn req(&mut self, key: &str) -> Value {
        self.opt(key).unwrap_or_else(|| {
            self.problem.note(&self.path, format!("missing field `{key}`"));
            Value::Null
        })
    }

    fn obj(&mut self, key: &str) -> Obj<'p> {
        let value = self.req(key);
        Obj::new(value, self.path(key), self.problem)
    }

    fn opt_obj(&mut self, key: &str) -> Option<Obj<'p>> {
        self.opt(key).map(|value| Obj::new(value, self.path(key), self.problem))
    }

    fn string(&mut self, key: &str) -> String {
        let value = self.req(key);
        self.text_of(key, value).unwrap_or_default()
    }

    fn opt_string(&mut self, key: &str) -> Option<String> {
        let value = self.opt(key)?;
        self.text_of(key, value)
    }

    fn text_of(&self, key: &str, value: Value) -> Option<String> {
        match value {
            Value::String(s) => Some(s),
            Value::Null => None,
            other => {
                self.wrong(key, &other, "a string");
                None
            }
        }
    }

    fn u64(&mut self, key: &str) -> u64 {
        let value = self.req(key);
        self.number_of(key, &value).unwrap_or_default()
    }

    fn opt_u64(&mut self, key: &str) -> Option<u64> {
        let value = self.opt(key)?;
        self.number_of(key, &value)
    }

    fn number_of(&self, key: &str, value: &Value) -> Option<u64> {
        let number = value.as_u64();
        if number.is_none() && !value.is_null() {
            self.wrong(key, value, "an unsigned integer");
        }
        number
    }

    fn usize(&mut self, key: &str) -> usize {
        self.u64(key) as usize
    }

    fn opt_usize(&mut self, key: &str) -> Option<usize> {
        self.opt_u64(key).map(|n| n as usize)
    }

    fn bool(&mut self, key: &str) -> Option<bool> {
        let value = self.opt(key)?;
        let flag = value.as_bool();
        if flag.is_none() {
            self.wrong(key, &value, "a boolean");
        }
        flag
    }

    /// The list field's items; `required` says whether a missing list is wrong or empty.
    fn items(&mut self, key: &str, required: bool) -> Vec<Value> {
        let value = if required { self.req(key) } else { self.opt(key).unwrap_or(Value::Array(Vec::new())) };
        match value {
            Value::Array(items) => items,
            Value::Null => Vec::new(),
            other => {
                self.wrong(key, &other, "a list");
                Vec::new()
            }
        }
    }

    /// A list of objects, each read by `item`. A plain function, not a closure, so the loop is
    /// compiled once per item type.
    fn list<T>(&mut self, key: &str, required: bool, item: fn(Obj<'p>) -> T) -> Vec<T> {
        let path = self.path(key);
        let items = self.items(key, required);
        items.into_iter().enumerate().map(|(i, v)| item(Obj::new(v, format!("{path}[{i}]"), self.problem))).collect()
    }

    fn strings(&mut self, key: &str) -> Vec<String> {
        let items = self.items(key, false);
        items.into_iter().filter_map(|v| self.text_of(key, v)).collect()
    }

    fn numbers(&mut self, key: &str) -> Vec<u64> {
        let items = self.items(key, false);
        items.iter().filter_map(|v| self.number_of(key, v)).collect()
    }

    /// A unit enum field: the value of `all` whose name (as its `Serialize` writes it) is in
    /// `names` at the same place.
    fn pick<T: Copy>(&mut self, key: &str, names: &[&str], all: &[T]) -> T {
        let name = self.string(key);
        match names.iter().position(|n| *n == name) {
            Some(at) => all[at],
            None => {
                self.problem.note(&self.path(key), format!("unknown variant `{name}`"));
                all[0]
            }
        }
    }

    fn bytes(&mut self, key: &str) -> Option<Vec<u8>> {
        let text = self.opt_string(key)?;
        base64::decode(&text).map_err(|e| self.problem.note(&self.path(key), e)).ok()
    }
}

fn expected(value: &Value, what: &str) -> String {
    let kind = match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    };
    format!("invalid type: expected {what}, found {kind}")
}

fn state(mut o: Obj) -> SessionState {
    SessionState {
        history: o.list("history", true, turn),
        total_usage: usage(o.obj("total_usage")),
        turns: o.usize("turns"),
        steering: o.strings("steering"),
        followups: o.strings("followups"),
        config: config(o.obj("config")),
        last_result: o.opt_obj("last_result").map(run_result),
        recent_calls: o.numbers("recent_calls"),
        compactions: o.opt_usize("compactions").unwrap_or(0),
        subagents: o.list("subagents", false, subagent),
    }
}

fn turn(mut o: Obj) -> Turn {
    let timestamp = o.u64("timestamp");
    let kind = o.string("type");
    match kind.as_str() {
        "user" => Turn::User { content: o.string("content"), images: o.list("images", false, media), timestamp },
        "steering" => Turn::Steering { content: o.string("content"), timestamp },
        "system" => Turn::System { content: o.string("content"), timestamp },
        "summary" => Turn::Summary { content: o.string("content"), summarized_turns: o.usize("summarized_turns"), timestamp },
        "assistant" => Turn::Assistant {
            message: message(o.obj("message")),
            usage: usage(o.obj("usage")),
            response_id: o.opt_string("response_id"),
            timestamp,
        },
        "tool_results" => Turn::ToolResults { results: o.list("results", true, tool_result), timestamp },
        other => {
            o.problem.note(&o.path("type"), format!("unknown turn type `{other}`"));
            Turn::System { content: String::new(), timestamp }
        }
    }
}

fn message(mut o: Obj) -> Message {
    use Role::*;
    Message {
        role: o.pick("role", &["system", "user", "assistant", "tool", "developer"], &[System, User, Assistant, Tool, Developer]),
        content: o.list("content", true, part),
        name: o.opt_string("name"),
        tool_call_id: o.opt_string("tool_call_id"),
    }
}

fn part(mut o: Obj) -> ContentPart {
    let kind = o.string("kind");
    match kind.as_str() {
        "text" => ContentPart::Text { text: o.string("text") },
        "image" => ContentPart::Image { image: media(o.obj("image")) },
        "audio" => ContentPart::Audio { audio: media(o.obj("audio")) },
        "document" => ContentPart::Document { document: media(o.obj("document")) },
        "tool_call" => ContentPart::ToolCall { tool_call: tool_call(o.obj("tool_call")) },
        "tool_result" => ContentPart::ToolResult { tool_result: tool_result(o.obj("tool_result")) },
        "thinking" => ContentPart::Thinking { thinking: thinking(o.obj("thinking")) },
        "redacted_thinking" => ContentPart::RedactedThinking { thinking: thinking(o.obj("thinking")) },
        other => {
            o.problem.note(&o.path("kind"), format!("unknown content kind `{other}`"));
            ContentPart::text("")
        }
    }
}

fn media(mut o: Obj) -> MediaData {
    MediaData {
        url: o.opt_string("url"),
        data: o.bytes("data"),
        media_type: o.opt_string("media_type"),
        detail: o.opt_string("detail"),
        file_name: o.opt_string("file_name"),
    }
}

fn tool_call(mut o: Obj) -> ToolCall {
    let mut call = ToolCall::new(o.string("id"), o.string("name"), o.opt("arguments").unwrap_or(Value::Null));
    call.raw_arguments = o.opt_string("raw_arguments");
    call.signature = o.opt_string("signature");
    if let Some(call_type) = o.opt_string("type") {
        call.call_type = call_type.into();
    }
    call
}

fn tool_result(mut o: Obj) -> ToolResult {
    let mut result = ToolResult::new(o.string("tool_call_id"), o.string("content"), o.bool("is_error").unwrap_or(false));
    result.image_data = o.bytes("image_data");
    result.image_media_type = o.opt_string("image_media_type");
    result
}

fn thinking(mut o: Obj) -> ThinkingData {
    ThinkingData {
        text: o.string("text"),
        signature: o.opt_string("signature"),
        redacted: o.bool("redacted").unwrap_or(false),
        id: o.opt_string("id"),
    }
}

fn usage(mut o: Obj) -> Usage {
    Usage {
        input_tokens: o.u64("input_tokens"),
        output_tokens: o.u64("output_tokens"),
        total_tokens: o.u64("total_tokens"),
        reasoning_tokens: o.opt_u64("reasoning_tokens"),
        cache_read_tokens: o.opt_u64("cache_read_tokens"),
        cache_write_tokens: o.opt_u64("cache_write_tokens"),
        cost_usd: o.opt("cost_usd").and_then(|cost| cost.as_f64()),
        raw: o.opt("raw"),
    }
}

/// A map of tool names to limits; a missing map is empty.
fn limits(o: &mut Obj, key: &str) -> ToolLimits {
    let mut limits = ToolLimits::default();
    if let Some(mut map) = o.opt_obj(key) {
        let tools: Vec<String> = map.map.keys().cloned().collect();
        for tool in tools {
            let limit = map.usize(&tool);
            limits.insert(tool, limit);
        }
    }
    limits
}

/// Every setting may be left out and keeps its default.
fn config(mut o: Obj) -> SessionConfig {
    let d = SessionConfig::default();
    SessionConfig {
        max_turns: o.opt_usize("max_turns").unwrap_or(d.max_turns),
        max_tool_rounds_per_input: o.opt_usize("max_tool_rounds_per_input").unwrap_or(d.max_tool_rounds_per_input),
        default_command_timeout_ms: o.opt_u64("default_command_timeout_ms"),
        max_command_timeout_ms: o.opt_u64("max_command_timeout_ms").unwrap_or(d.max_command_timeout_ms),
        reasoning_effort: o.opt_string("reasoning_effort"),
        max_output_tokens: o.opt_u64("max_output_tokens"),
        tool_output_limits: limits(&mut o, "tool_output_limits"),
        tool_line_limits: limits(&mut o, "tool_line_limits"),
        enable_loop_detection: o.bool("enable_loop_detection").unwrap_or(d.enable_loop_detection),
        enable_repeat_guard: o.bool("enable_repeat_guard").unwrap_or(d.enable_repeat_guard),
        loop_detection_window: o.opt_usize("loop_detection_window").unwrap_or(d.loop_detection_window),
        max_subagent_depth: o.opt_usize("max_subagent_depth").unwrap_or(d.max_subagent_depth),
        max_result_attempts: o.opt_usize("max_result_attempts").unwrap_or(d.max_result_attempts),
        context_window: o.opt_usize("context_window"),
        compaction_threshold_percent: o.opt_usize("compaction_threshold_percent").unwrap_or(d.compaction_threshold_percent),
        compaction_keep_recent_tokens: o.opt_usize("compaction_keep_recent_tokens"),
    }
}

fn run_result(mut o: Obj) -> RunResult {
    RunResult { result_text: o.string("result_text"), result_data: o.opt("result_data"), outcome: outcome(o.obj("outcome")) }
}

fn evidence(mut o: Obj) -> Evidence {
    use EvidenceKind::*;
    let names = ["self_assessment", "tool_result", "state_change", "external_verification", "stop_reason", "evaluator"];
    let kinds = [SelfAssessment, ToolResult, StateChange, ExternalVerification, StopReason, Evaluator];
    Evidence { kind: o.pick("kind", &names, &kinds), description: o.string("description"), data: o.opt("data") }
}

fn metrics(mut o: Obj) -> OutcomeMetrics {
    let mut count = |key: &str| o.opt_u64(key).unwrap_or(0) as u32;
    OutcomeMetrics {
        turns: count("turns"),
        tool_calls: count("tool_calls"),
        retries: count("retries"),
        actions_succeeded: count("actions_succeeded"),
        actions_failed: count("actions_failed"),
        duration_ms: o.opt("duration_ms").and_then(|v| v.as_f64()).unwrap_or(0.0),
    }
}

fn outcome(mut o: Obj) -> AgentOutcome {
    use OutcomeStatus::*;
    AgentOutcome {
        status: o.pick(
            "status",
            &["success", "partial_success", "give_up", "timeout", "failure", "done"],
            &[Success, PartialSuccess, GiveUp, Timeout, Failure, Done],
        ),
        summary: o.opt_string("summary").unwrap_or_default(),
        evidence: o.list("evidence", false, evidence),
        metrics: o.opt_obj("metrics").map(metrics).unwrap_or_default(),
        timestamp: o.opt_string("timestamp").unwrap_or_default(),
    }
}

fn subagent(mut o: Obj) -> SubAgentRecord {
    SubAgentRecord {
        agent_id: o.string("agent_id"),
        working_dir: o.opt_string("working_dir"),
        model: o.opt_string("model"),
        output_schema: o.opt("output_schema"),
        state: state(o.obj("state")),
        result: o.opt_obj("result").map(subagent_result),
    }
}

fn subagent_result(mut o: Obj) -> SubAgentResult {
    use SubAgentStatus::*;
    SubAgentResult {
        agent_id: o.string("agent_id"),
        status: o.pick("status", &["running", "completed", "failed"], &[Running, Completed, Failed]),
        output: o.string("output"),
        success: o.bool("success").unwrap_or(false),
        turns_used: o.usize("turns_used"),
        result_text: o.opt_string("result_text").unwrap_or_default(),
        result_data: o.opt("result_data"),
    }
}
