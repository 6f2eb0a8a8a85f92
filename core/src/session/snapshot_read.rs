//! Reading a snapshot back, by hand: a derived `Deserialize` for the whole state costs the
//! browser bundle several times this reader (DESIGN.md: the bundle is a budget). It reads what
//! the derived `Serialize` writes, names the path of anything wrong, and ignores fields it does
//! not know, as the derived reader would.

use std::collections::{BTreeMap, VecDeque};

use serde::Serialize;
use serde_json::{Map, Value};

use super::outcome::{AgentOutcome, Evidence, EvidenceKind, OutcomeMetrics, OutcomeStatus};
use super::state::{SessionState, SubAgentRecord};
use super::{RunResult, SessionConfig, SessionSnapshot, SnapshotError, SubAgentResult, SubAgentStatus, Turn};
use crate::llm::{base64, ContentPart, MediaData, Message, Role, ThinkingData, ToolCall, ToolResult, Usage};

type Read<T> = Result<T, SnapshotError>;

fn invalid(path: &str, what: impl std::fmt::Display) -> SnapshotError {
    SnapshotError::Invalid(format!("{what} at {path}"))
}

/// One JSON object being read, with its path for errors.
struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Obj<'a> {
    fn new(value: &'a Value, path: String) -> Read<Self> {
        match value.as_object() {
            Some(map) => Ok(Self { map, path }),
            None => Err(invalid(&path, format!("invalid type: expected an object, found {}", kind(value)))),
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
    fn opt(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn req(&self, key: &str) -> Read<&'a Value> {
        self.opt(key).ok_or_else(|| invalid(&self.path, format!("missing field `{key}`")))
    }

    fn obj(&self, key: &str) -> Read<Obj<'a>> {
        Obj::new(self.req(key)?, self.path(key))
    }

    fn string(&self, key: &str) -> Read<String> {
        string(self.req(key)?, &self.path(key))
    }

    fn opt_string(&self, key: &str) -> Read<Option<String>> {
        self.opt(key).map(|v| string(v, &self.path(key))).transpose()
    }

    fn u64(&self, key: &str) -> Read<u64> {
        number(self.req(key)?, &self.path(key))
    }

    fn opt_u64(&self, key: &str) -> Read<Option<u64>> {
        self.opt(key).map(|v| number(v, &self.path(key))).transpose()
    }

    fn usize(&self, key: &str) -> Read<usize> {
        self.u64(key).map(|n| n as usize)
    }

    fn bool(&self, key: &str) -> Read<Option<bool>> {
        let path = self.path(key);
        self.opt(key).map(|v| v.as_bool().ok_or_else(|| expected(v, "a boolean", &path))).transpose()
    }

    /// The items of a list field that must be there.
    fn list<T>(&self, key: &str, item: impl FnMut(&'a Value, String) -> Read<T>) -> Read<Vec<T>> {
        self.req(key)?;
        self.opt_list(key, item)
    }

    /// The items of a list field; a missing list is empty.
    fn opt_list<T>(&self, key: &str, mut item: impl FnMut(&'a Value, String) -> Read<T>) -> Read<Vec<T>> {
        let Some(value) = self.opt(key) else { return Ok(Vec::new()) };
        let path = self.path(key);
        let items = value.as_array().ok_or_else(|| expected(value, "a list", &path))?;
        items.iter().enumerate().map(|(i, v)| item(v, format!("{path}[{i}]"))).collect()
    }

    fn strings(&self, key: &str) -> Read<VecDeque<String>> {
        Ok(self.opt_list(key, |v, path| string(v, &path))?.into())
    }

    /// A unit enum field, read by the names its `Serialize` writes.
    fn pick<T: Serialize + Copy>(&self, key: &str, all: &[T]) -> Read<T> {
        let path = self.path(key);
        let name = string(self.req(key)?, &path)?;
        let found = all.iter().find(|v| serde_json::to_value(v).ok().as_ref().and_then(Value::as_str) == Some(&name));
        found.copied().ok_or_else(|| invalid(&path, format!("unknown variant `{name}`")))
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

fn string(value: &Value, path: &str) -> Read<String> {
    value.as_str().map(str::to_owned).ok_or_else(|| expected(value, "a string", path))
}

fn number(value: &Value, path: &str) -> Read<u64> {
    value.as_u64().ok_or_else(|| expected(value, "an unsigned integer", path))
}

fn bytes(o: &Obj<'_>, key: &str) -> Read<Option<Vec<u8>>> {
    let Some(text) = o.opt_string(key)? else { return Ok(None) };
    base64::decode(&text).map(Some).map_err(|e| invalid(&o.path(key), e))
}

pub(super) fn snapshot(value: &Value) -> Read<SessionSnapshot> {
    let o = Obj::new(value, String::new())?;
    Ok(SessionSnapshot {
        schema: o.string("schema")?,
        session_id: o.string("session_id")?,
        provider: o.string("provider")?,
        model: o.string("model")?,
        state: state(&o.obj("state")?)?,
        environment: o.opt("environment").cloned(),
    })
}

fn state(o: &Obj<'_>) -> Read<SessionState> {
    Ok(SessionState {
        history: o.list("history", |v, path| turn(&Obj::new(v, path)?))?,
        total_usage: usage(&o.obj("total_usage")?)?,
        turns: o.usize("turns")?,
        steering: o.strings("steering")?,
        followups: o.strings("followups")?,
        config: config(&o.obj("config")?)?,
        last_result: o.opt("last_result").map(|v| run_result(&Obj::new(v, o.path("last_result"))?)).transpose()?,
        recent_calls: o.opt_list("recent_calls", |v, path| number(v, &path))?.into(),
        compactions: o.opt_u64("compactions")?.unwrap_or(0) as usize,
        subagents: o.opt_list("subagents", |v, path| subagent(&Obj::new(v, path)?))?,
    })
}

fn turn(o: &Obj<'_>) -> Read<Turn> {
    let timestamp = o.u64("timestamp")?;
    Ok(match o.string("type")?.as_str() {
        "user" => Turn::User { content: o.string("content")?, timestamp },
        "steering" => Turn::Steering { content: o.string("content")?, timestamp },
        "system" => Turn::System { content: o.string("content")?, timestamp },
        "summary" => Turn::Summary { content: o.string("content")?, summarized_turns: o.usize("summarized_turns")?, timestamp },
        "assistant" => Turn::Assistant {
            message: message(&o.obj("message")?)?,
            usage: usage(&o.obj("usage")?)?,
            response_id: o.opt_string("response_id")?,
            timestamp,
        },
        "tool_results" => {
            Turn::ToolResults { results: o.list("results", |v, path| tool_result(&Obj::new(v, path)?))?, timestamp }
        }
        other => return Err(invalid(&o.path("type"), format!("unknown turn type `{other}`"))),
    })
}

fn message(o: &Obj<'_>) -> Read<Message> {
    use Role::*;
    Ok(Message {
        role: o.pick("role", &[System, User, Assistant, Tool, Developer])?,
        content: o.list("content", |v, path| part(&Obj::new(v, path)?))?,
        name: o.opt_string("name")?,
        tool_call_id: o.opt_string("tool_call_id")?,
    })
}

fn part(o: &Obj<'_>) -> Read<ContentPart> {
    Ok(match o.string("kind")?.as_str() {
        "text" => ContentPart::Text { text: o.string("text")? },
        "image" => ContentPart::Image { image: media(&o.obj("image")?)? },
        "audio" => ContentPart::Audio { audio: media(&o.obj("audio")?)? },
        "document" => ContentPart::Document { document: media(&o.obj("document")?)? },
        "tool_call" => ContentPart::ToolCall { tool_call: tool_call(&o.obj("tool_call")?)? },
        "tool_result" => ContentPart::ToolResult { tool_result: tool_result(&o.obj("tool_result")?)? },
        "thinking" => ContentPart::Thinking { thinking: thinking(&o.obj("thinking")?)? },
        "redacted_thinking" => ContentPart::RedactedThinking { thinking: thinking(&o.obj("thinking")?)? },
        other => return Err(invalid(&o.path("kind"), format!("unknown content kind `{other}`"))),
    })
}

fn media(o: &Obj<'_>) -> Read<MediaData> {
    Ok(MediaData {
        url: o.opt_string("url")?,
        data: bytes(o, "data")?,
        media_type: o.opt_string("media_type")?,
        detail: o.opt_string("detail")?,
        file_name: o.opt_string("file_name")?,
    })
}

fn tool_call(o: &Obj<'_>) -> Read<ToolCall> {
    let mut call = ToolCall::new(o.string("id")?, o.string("name")?, o.opt("arguments").cloned().unwrap_or(Value::Null));
    call.raw_arguments = o.opt_string("raw_arguments")?;
    call.signature = o.opt_string("signature")?;
    if let Some(call_type) = o.opt_string("type")? {
        call.call_type = call_type;
    }
    Ok(call)
}

fn tool_result(o: &Obj<'_>) -> Read<ToolResult> {
    let mut result = ToolResult::new(o.string("tool_call_id")?, o.string("content")?, o.bool("is_error")?.unwrap_or(false));
    result.image_data = bytes(o, "image_data")?;
    result.image_media_type = o.opt_string("image_media_type")?;
    Ok(result)
}

fn thinking(o: &Obj<'_>) -> Read<ThinkingData> {
    Ok(ThinkingData {
        text: o.string("text")?,
        signature: o.opt_string("signature")?,
        redacted: o.bool("redacted")?.unwrap_or(false),
        id: o.opt_string("id")?,
    })
}

fn usage(o: &Obj<'_>) -> Read<Usage> {
    Ok(Usage {
        input_tokens: o.u64("input_tokens")?,
        output_tokens: o.u64("output_tokens")?,
        total_tokens: o.u64("total_tokens")?,
        reasoning_tokens: o.opt_u64("reasoning_tokens")?,
        cache_read_tokens: o.opt_u64("cache_read_tokens")?,
        cache_write_tokens: o.opt_u64("cache_write_tokens")?,
        raw: o.opt("raw").cloned(),
    })
}

/// Every setting may be left out and keeps its default.
fn config(o: &Obj<'_>) -> Read<SessionConfig> {
    let d = SessionConfig::default();
    let limits = |key: &str| -> Read<BTreeMap<String, usize>> {
        let Some(value) = o.opt(key) else { return Ok(BTreeMap::new()) };
        let map = Obj::new(value, o.path(key))?;
        map.map.keys().map(|tool| Ok((tool.clone(), map.usize(tool)?))).collect()
    };
    let size = |key: &str| -> Read<Option<usize>> { Ok(o.opt_u64(key)?.map(|n| n as usize)) };
    Ok(SessionConfig {
        max_turns: size("max_turns")?.unwrap_or(d.max_turns),
        max_tool_rounds_per_input: size("max_tool_rounds_per_input")?.unwrap_or(d.max_tool_rounds_per_input),
        default_command_timeout_ms: o.opt_u64("default_command_timeout_ms")?.unwrap_or(d.default_command_timeout_ms),
        max_command_timeout_ms: o.opt_u64("max_command_timeout_ms")?.unwrap_or(d.max_command_timeout_ms),
        reasoning_effort: o.opt_string("reasoning_effort")?,
        max_output_tokens: o.opt_u64("max_output_tokens")?,
        tool_output_limits: limits("tool_output_limits")?,
        tool_line_limits: limits("tool_line_limits")?,
        enable_loop_detection: o.bool("enable_loop_detection")?.unwrap_or(d.enable_loop_detection),
        loop_detection_window: size("loop_detection_window")?.unwrap_or(d.loop_detection_window),
        max_subagent_depth: size("max_subagent_depth")?.unwrap_or(d.max_subagent_depth),
        max_result_attempts: size("max_result_attempts")?.unwrap_or(d.max_result_attempts),
        context_window: size("context_window")?,
        compaction_threshold_percent: size("compaction_threshold_percent")?.unwrap_or(d.compaction_threshold_percent),
        compaction_keep_recent_tokens: size("compaction_keep_recent_tokens")?,
    })
}

fn run_result(o: &Obj<'_>) -> Read<RunResult> {
    Ok(RunResult {
        result_text: o.string("result_text")?,
        result_data: o.opt("result_data").cloned(),
        outcome: outcome(&o.obj("outcome")?)?,
    })
}

fn outcome(o: &Obj<'_>) -> Read<AgentOutcome> {
    use EvidenceKind::*;
    use OutcomeStatus::*;
    let evidence = |v: &Value, path: String| {
        let e = Obj::new(v, path)?;
        let kinds = [SelfAssessment, ToolResult, StateChange, ExternalVerification, StopReason, Evaluator];
        Ok(Evidence { kind: e.pick("kind", &kinds)?, description: e.string("description")?, data: e.opt("data").cloned() })
    };
    let metrics = match o.opt("metrics") {
        Some(value) => {
            let m = Obj::new(value, o.path("metrics"))?;
            let count = |key: &str| -> Read<u32> { Ok(m.opt_u64(key)?.unwrap_or(0) as u32) };
            OutcomeMetrics {
                turns: count("turns")?,
                tool_calls: count("tool_calls")?,
                duration_ms: m.opt("duration_ms").and_then(Value::as_f64).unwrap_or(0.0),
                retries: count("retries")?,
                actions_succeeded: count("actions_succeeded")?,
                actions_failed: count("actions_failed")?,
            }
        }
        None => OutcomeMetrics::default(),
    };
    Ok(AgentOutcome {
        status: o.pick("status", &[Success, PartialSuccess, GiveUp, Timeout, Failure, Done])?,
        summary: o.opt_string("summary")?.unwrap_or_default(),
        evidence: o.opt_list("evidence", evidence)?,
        metrics,
        timestamp: o.opt_string("timestamp")?.unwrap_or_default(),
    })
}

fn subagent(o: &Obj<'_>) -> Read<SubAgentRecord> {
    Ok(SubAgentRecord {
        agent_id: o.string("agent_id")?,
        working_dir: o.opt_string("working_dir")?,
        model: o.opt_string("model")?,
        output_schema: o.opt("output_schema").cloned(),
        state: state(&o.obj("state")?)?,
        result: o.opt("result").map(|v| subagent_result(&Obj::new(v, o.path("result"))?)).transpose()?,
    })
}

fn subagent_result(o: &Obj<'_>) -> Read<SubAgentResult> {
    use SubAgentStatus::*;
    Ok(SubAgentResult {
        agent_id: o.string("agent_id")?,
        status: o.pick("status", &[Running, Completed, Failed])?,
        output: o.string("output")?,
        success: o.bool("success")?.unwrap_or(false),
        turns_used: o.usize("turns_used")?,
        result_text: o.opt_string("result_text")?.unwrap_or_default(),
        result_data: o.opt("result_data").cloned(),
    })
}
