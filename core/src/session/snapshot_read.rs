//! Reading a snapshot back, by hand: a derived `Deserialize` for the whole state costs the
//! browser bundle several times this reader (DESIGN.md: the bundle is a budget). It reads what
//! the derived `Serialize` writes, names the path of anything wrong, and ignores fields it does
//! not know, as the derived reader would.

use std::collections::{BTreeMap, VecDeque};

use serde_json::{Map, Value};

use super::outcome::{AgentOutcome, Evidence, EvidenceKind, OutcomeMetrics, OutcomeStatus};
use super::state::{SessionState, SubAgentRecord};
use super::{RunResult, SessionConfig, SessionSnapshot, SnapshotError, SubAgentResult, SubAgentStatus, Turn};
use crate::llm::{base64, ContentPart, MediaData, Message, Role, ThinkingData, ToolCall, ToolResult, Usage};

type Read<T> = Result<T, SnapshotError>;

/// Reads one item of a list, given its path for errors. Plain functions rather than closures, so
/// the list loop is compiled once per item type (the browser bundle is a budget).
type Item<T> = fn(Value, &dyn Fn() -> String) -> Read<T>;

fn invalid(path: &str, what: impl std::fmt::Display) -> SnapshotError {
    SnapshotError::Invalid(format!("{what} at {path}"))
}

/// One JSON object being read, its fields taken out as they are read (strings move, nothing is
/// copied), with its path for errors. Paths are written out only for an error.
struct Obj {
    map: Map<String, Value>,
    path: String,
}

impl Obj {
    fn new(value: Value, path: String) -> Read<Self> {
        match value {
            Value::Object(map) => Ok(Self { map, path }),
            other => Err(expected(&other, "an object", &path)),
        }
    }

    fn path(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_owned()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// The field, `None` when it is missing or null.
    fn opt(&mut self, key: &str) -> Option<Value> {
        // Taken, not removed: leaving a null behind spares the map's rebalancing.
        self.map.get_mut(key).map(Value::take).filter(|v| !v.is_null())
    }

    fn req(&mut self, key: &str) -> Read<Value> {
        self.opt(key).ok_or_else(|| invalid(&self.path, format!("missing field `{key}`")))
    }

    fn obj(&mut self, key: &str) -> Read<Obj> {
        let value = self.req(key)?;
        Obj::new(value, self.path(key))
    }

    fn opt_obj(&mut self, key: &str) -> Read<Option<Obj>> {
        self.opt(key).map(|value| Obj::new(value, self.path(key))).transpose()
    }

    fn string(&mut self, key: &str) -> Read<String> {
        let value = self.req(key)?;
        into_string(value).map_err(|v| expected(&v, "a string", &self.path(key)))
    }

    fn opt_string(&mut self, key: &str) -> Read<Option<String>> {
        match self.opt(key) {
            None => Ok(None),
            Some(value) => into_string(value).map(Some).map_err(|v| expected(&v, "a string", &self.path(key))),
        }
    }

    fn u64(&mut self, key: &str) -> Read<u64> {
        let value = self.req(key)?;
        value.as_u64().ok_or_else(|| expected(&value, "an unsigned integer", &self.path(key)))
    }

    fn opt_u64(&mut self, key: &str) -> Read<Option<u64>> {
        match self.opt(key) {
            None => Ok(None),
            Some(value) => value.as_u64().map(Some).ok_or_else(|| expected(&value, "an unsigned integer", &self.path(key))),
        }
    }

    fn usize(&mut self, key: &str) -> Read<usize> {
        self.u64(key).map(|n| n as usize)
    }

    fn opt_usize(&mut self, key: &str) -> Read<Option<usize>> {
        Ok(self.opt_u64(key)?.map(|n| n as usize))
    }

    fn bool(&mut self, key: &str) -> Read<Option<bool>> {
        match self.opt(key) {
            None => Ok(None),
            Some(value) => value.as_bool().map(Some).ok_or_else(|| expected(&value, "a boolean", &self.path(key))),
        }
    }

    /// The items of a list field that must be there.
    fn list<T>(&mut self, key: &str, item: Item<T>) -> Read<Vec<T>> {
        let value = self.req(key)?;
        self.items(key, value, item)
    }

    /// The items of a list field; a missing list is empty.
    fn opt_list<T>(&mut self, key: &str, item: Item<T>) -> Read<Vec<T>> {
        match self.opt(key) {
            None => Ok(Vec::new()),
            Some(value) => self.items(key, value, item),
        }
    }

    fn items<T>(&self, key: &str, value: Value, item: Item<T>) -> Read<Vec<T>> {
        let Value::Array(items) = value else { return Err(expected(&value, "a list", &self.path(key))) };
        let list = self.path(key);
        let mut out = Vec::with_capacity(items.len());
        for (i, value) in items.into_iter().enumerate() {
            out.push(item(value, &|| format!("{list}[{i}]"))?);
        }
        Ok(out)
    }

    fn strings(&mut self, key: &str) -> Read<VecDeque<String>> {
        let strings = self.opt_list(key, |v, path| into_string(v).map_err(|v| expected(&v, "a string", &path())))?;
        Ok(strings.into())
    }

    /// A unit enum field: the value of `all` whose name (as its `Serialize` writes it) is in
    /// `names` at the same place.
    fn pick<T: Copy>(&mut self, key: &str, names: &[&str], all: &[T]) -> Read<T> {
        let name = self.string(key)?;
        match names.iter().position(|n| *n == name) {
            Some(at) => Ok(all[at]),
            None => Err(invalid(&self.path(key), format!("unknown variant `{name}`"))),
        }
    }

    /// An object in a list, from its item path.
    fn item(value: Value, path: &dyn Fn() -> String) -> Read<Obj> {
        match value {
            Value::Object(map) => Ok(Self { map, path: path() }),
            other => Err(expected(&other, "an object", &path())),
        }
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

fn expected(value: &Value, what: &str, path: &str) -> SnapshotError {
    invalid(path, format!("invalid type: expected {what}, found {}", kind(value)))
}

fn into_string(value: Value) -> Result<String, Value> {
    match value {
        Value::String(s) => Ok(s),
        other => Err(other),
    }
}

fn bytes(o: &mut Obj, key: &str) -> Read<Option<Vec<u8>>> {
    let Some(text) = o.opt_string(key)? else { return Ok(None) };
    base64::decode(&text).map(Some).map_err(|e| invalid(&o.path(key), e))
}

pub(super) fn snapshot(value: Value) -> Read<SessionSnapshot> {
    let mut o = Obj::new(value, String::new())?;
    Ok(SessionSnapshot {
        schema: o.string("schema")?,
        session_id: o.string("session_id")?,
        provider: o.string("provider")?,
        model: o.string("model")?,
        state: state(o.obj("state")?)?,
        output_schema: o.opt("output_schema"),
        user_instructions: o.opt_string("user_instructions")?,
        environment: o.opt("environment"),
    })
}

fn state(mut o: Obj) -> Read<SessionState> {
    Ok(SessionState {
        history: o.list("history", |v, path| turn(Obj::item(v, path)?))?,
        total_usage: usage(o.obj("total_usage")?)?,
        turns: o.usize("turns")?,
        steering: o.strings("steering")?,
        followups: o.strings("followups")?,
        config: config(o.obj("config")?)?,
        last_result: o.opt_obj("last_result")?.map(run_result).transpose()?,
        recent_calls: o
            .opt_list("recent_calls", |v, path| v.as_u64().ok_or_else(|| expected(&v, "an unsigned integer", &path())))?
            .into(),
        compactions: o.opt_u64("compactions")?.unwrap_or(0) as usize,
        subagents: o.opt_list("subagents", |v, path| subagent(Obj::item(v, path)?))?,
    })
}

fn turn(mut o: Obj) -> Read<Turn> {
    let timestamp = o.u64("timestamp")?;
    Ok(match o.string("type")?.as_str() {
        "user" => Turn::User { content: o.string("content")?, timestamp },
        "steering" => Turn::Steering { content: o.string("content")?, timestamp },
        "system" => Turn::System { content: o.string("content")?, timestamp },
        "summary" => Turn::Summary { content: o.string("content")?, summarized_turns: o.usize("summarized_turns")?, timestamp },
        "assistant" => Turn::Assistant {
            message: message(o.obj("message")?)?,
            usage: usage(o.obj("usage")?)?,
            response_id: o.opt_string("response_id")?,
            timestamp,
        },
        "tool_results" => {
            Turn::ToolResults { results: o.list("results", |v, path| tool_result(Obj::item(v, path)?))?, timestamp }
        }
        other => return Err(invalid(&o.path("type"), format!("unknown turn type `{other}`"))),
    })
}

fn message(mut o: Obj) -> Read<Message> {
    use Role::*;
    Ok(Message {
        role: o.pick(
            "role",
            &["system", "user", "assistant", "tool", "developer"],
            &[System, User, Assistant, Tool, Developer],
        )?,
        content: o.list("content", |v, path| part(Obj::item(v, path)?))?,
        name: o.opt_string("name")?,
        tool_call_id: o.opt_string("tool_call_id")?,
    })
}

fn part(mut o: Obj) -> Read<ContentPart> {
    Ok(match o.string("kind")?.as_str() {
        "text" => ContentPart::Text { text: o.string("text")? },
        "image" => ContentPart::Image { image: media(o.obj("image")?)? },
        "audio" => ContentPart::Audio { audio: media(o.obj("audio")?)? },
        "document" => ContentPart::Document { document: media(o.obj("document")?)? },
        "tool_call" => ContentPart::ToolCall { tool_call: tool_call(o.obj("tool_call")?)? },
        "tool_result" => ContentPart::ToolResult { tool_result: tool_result(o.obj("tool_result")?)? },
        "thinking" => ContentPart::Thinking { thinking: thinking(o.obj("thinking")?)? },
        "redacted_thinking" => ContentPart::RedactedThinking { thinking: thinking(o.obj("thinking")?)? },
        other => return Err(invalid(&o.path("kind"), format!("unknown content kind `{other}`"))),
    })
}

fn media(mut o: Obj) -> Read<MediaData> {
    Ok(MediaData {
        url: o.opt_string("url")?,
        data: bytes(&mut o, "data")?,
        media_type: o.opt_string("media_type")?,
        detail: o.opt_string("detail")?,
        file_name: o.opt_string("file_name")?,
    })
}

fn tool_call(mut o: Obj) -> Read<ToolCall> {
    let mut call = ToolCall::new(o.string("id")?, o.string("name")?, o.opt("arguments").unwrap_or(Value::Null));
    call.raw_arguments = o.opt_string("raw_arguments")?;
    call.signature = o.opt_string("signature")?;
    if let Some(call_type) = o.opt_string("type")? {
        call.call_type = call_type;
    }
    Ok(call)
}

fn tool_result(mut o: Obj) -> Read<ToolResult> {
    let mut result = ToolResult::new(o.string("tool_call_id")?, o.string("content")?, o.bool("is_error")?.unwrap_or(false));
    result.image_data = bytes(&mut o, "image_data")?;
    result.image_media_type = o.opt_string("image_media_type")?;
    Ok(result)
}

fn thinking(mut o: Obj) -> Read<ThinkingData> {
    Ok(ThinkingData {
        text: o.string("text")?,
        signature: o.opt_string("signature")?,
        redacted: o.bool("redacted")?.unwrap_or(false),
        id: o.opt_string("id")?,
    })
}

fn usage(mut o: Obj) -> Read<Usage> {
    Ok(Usage {
        input_tokens: o.u64("input_tokens")?,
        output_tokens: o.u64("output_tokens")?,
        total_tokens: o.u64("total_tokens")?,
        reasoning_tokens: o.opt_u64("reasoning_tokens")?,
        cache_read_tokens: o.opt_u64("cache_read_tokens")?,
        cache_write_tokens: o.opt_u64("cache_write_tokens")?,
        raw: o.opt("raw"),
    })
}

/// A map of tool names to limits; a missing map is empty.
fn limits(o: &mut Obj, key: &str) -> Read<BTreeMap<String, usize>> {
    let Some(mut map) = o.opt_obj(key)? else { return Ok(BTreeMap::new()) };
    let mut limits = BTreeMap::new();
    let tools: Vec<String> = map.map.keys().cloned().collect();
    for tool in tools {
        let limit = map.usize(&tool)?;
        limits.insert(tool, limit);
    }
    Ok(limits)
}

/// Every setting may be left out and keeps its default.
fn config(mut o: Obj) -> Read<SessionConfig> {
    let d = SessionConfig::default();
    Ok(SessionConfig {
        max_turns: o.opt_usize("max_turns")?.unwrap_or(d.max_turns),
        max_tool_rounds_per_input: o.opt_usize("max_tool_rounds_per_input")?.unwrap_or(d.max_tool_rounds_per_input),
        default_command_timeout_ms: o.opt_u64("default_command_timeout_ms")?,
        max_command_timeout_ms: o.opt_u64("max_command_timeout_ms")?.unwrap_or(d.max_command_timeout_ms),
        reasoning_effort: o.opt_string("reasoning_effort")?,
        max_output_tokens: o.opt_u64("max_output_tokens")?,
        tool_output_limits: limits(&mut o, "tool_output_limits")?,
        tool_line_limits: limits(&mut o, "tool_line_limits")?,
        enable_loop_detection: o.bool("enable_loop_detection")?.unwrap_or(d.enable_loop_detection),
        loop_detection_window: o.opt_usize("loop_detection_window")?.unwrap_or(d.loop_detection_window),
        max_subagent_depth: o.opt_usize("max_subagent_depth")?.unwrap_or(d.max_subagent_depth),
        max_result_attempts: o.opt_usize("max_result_attempts")?.unwrap_or(d.max_result_attempts),
        context_window: o.opt_usize("context_window")?,
        compaction_threshold_percent: o.opt_usize("compaction_threshold_percent")?.unwrap_or(d.compaction_threshold_percent),
        compaction_keep_recent_tokens: o.opt_usize("compaction_keep_recent_tokens")?,
    })
}

fn run_result(mut o: Obj) -> Read<RunResult> {
    Ok(RunResult {
        result_text: o.string("result_text")?,
        result_data: o.opt("result_data"),
        outcome: outcome(o.obj("outcome")?)?,
    })
}

fn outcome(mut o: Obj) -> Read<AgentOutcome> {
    use EvidenceKind::*;
    use OutcomeStatus::*;
    let evidence = |v: Value, path: &dyn Fn() -> String| {
        let mut e = Obj::item(v, path)?;
        let names = ["self_assessment", "tool_result", "state_change", "external_verification", "stop_reason", "evaluator"];
        let kinds = [SelfAssessment, ToolResult, StateChange, ExternalVerification, StopReason, Evaluator];
        Ok(Evidence { kind: e.pick("kind", &names, &kinds)?, description: e.string("description")?, data: e.opt("data") })
    };
    let metrics = match o.opt_obj("metrics")? {
        Some(mut m) => {
            let mut count = |key: &str| -> Read<u32> { Ok(m.opt_u64(key)?.unwrap_or(0) as u32) };
            OutcomeMetrics {
                turns: count("turns")?,
                tool_calls: count("tool_calls")?,
                retries: count("retries")?,
                actions_succeeded: count("actions_succeeded")?,
                actions_failed: count("actions_failed")?,
                duration_ms: m.opt("duration_ms").and_then(|v| v.as_f64()).unwrap_or(0.0),
            }
        }
        None => OutcomeMetrics::default(),
    };
    Ok(AgentOutcome {
        status: o.pick(
            "status",
            &["success", "partial_success", "give_up", "timeout", "failure", "done"],
            &[Success, PartialSuccess, GiveUp, Timeout, Failure, Done],
        )?,
        summary: o.opt_string("summary")?.unwrap_or_default(),
        evidence: o.opt_list("evidence", evidence)?,
        metrics,
        timestamp: o.opt_string("timestamp")?.unwrap_or_default(),
    })
}

fn subagent(mut o: Obj) -> Read<SubAgentRecord> {
    Ok(SubAgentRecord {
        agent_id: o.string("agent_id")?,
        working_dir: o.opt_string("working_dir")?,
        model: o.opt_string("model")?,
        output_schema: o.opt("output_schema"),
        state: state(o.obj("state")?)?,
        result: o.opt_obj("result")?.map(subagent_result).transpose()?,
    })
}

fn subagent_result(mut o: Obj) -> Read<SubAgentResult> {
    use SubAgentStatus::*;
    Ok(SubAgentResult {
        agent_id: o.string("agent_id")?,
        status: o.pick("status", &["running", "completed", "failed"], &[Running, Completed, Failed])?,
        output: o.string("output")?,
        success: o.bool("success")?.unwrap_or(false),
        turns_used: o.usize("turns_used")?,
        result_text: o.opt_string("result_text")?.unwrap_or_default(),
        result_data: o.opt("result_data"),
    })
}
