//! The script a [`MockServer`](crate::MockServer) plays: a queue of steps, each a reply or a fault,
//! built in Rust or read from JSON (the format is in the crate docs).

use std::fmt;
use std::path::Path;

use serde::Deserialize;
use serde_json::Value;

use crate::api::Api;

/// Text of the reply that a `drop_mid_stream` or `slow_first_byte_ms` fault sends when its step
/// names none.
pub const DEFAULT_TEXT: &str = "Hello from the mock LLM server.";

/// What the model says: encoded in the wire format of whichever API was called.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Reply {
    #[serde(default)]
    pub text: Option<String>,
    /// Thinking: an Anthropic thinking block, a Responses reasoning summary, Chat
    /// `reasoning_content`, Gemini `thought` parts.
    #[serde(default)]
    pub reasoning: Option<String>,
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    #[serde(default)]
    pub usage: Usage,
    /// The answer stopped at the output token limit: each API's own finish reason for it
    /// (`max_tokens`, `length`, `MAX_TOKENS`, an `incomplete` response).
    #[serde(default)]
    pub cut_off: bool,
}

impl Reply {
    pub fn text(text: impl Into<String>) -> Self {
        Self { text: Some(text.into()), ..Self::default() }
    }

    pub fn with_reasoning(mut self, reasoning: impl Into<String>) -> Self {
        self.reasoning = Some(reasoning.into());
        self
    }

    pub fn with_tool_call(mut self, name: impl Into<String>, arguments: Value) -> Self {
        self.tool_calls.push(ToolCall { name: name.into(), arguments, id: None });
        self
    }

    pub fn cut_off(mut self) -> Self {
        self.cut_off = true;
        self
    }

    pub fn with_usage(mut self, input_tokens: u64, output_tokens: u64) -> Self {
        self.usage.input_tokens = input_tokens;
        self.usage.output_tokens = output_tokens;
        self
    }
}

#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolCall {
    pub name: String,
    #[serde(default = "empty_object")]
    pub arguments: Value,
    /// The call id; generated in the provider's style when absent (Gemini has none on the wire).
    #[serde(default)]
    pub id: Option<String>,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}

/// Token counts. `output_tokens` includes `reasoning_tokens`, as OpenAI counts them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default)]
    pub reasoning_tokens: u64,
    #[serde(default)]
    pub cache_read_tokens: u64,
}

impl Default for Usage {
    fn default() -> Self {
        Self { input_tokens: 10, output_tokens: 5, reasoning_tokens: 0, cache_read_tokens: 0 }
    }
}

/// One entry of the queue.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Serve this step only to a request for this API (steps without one serve any).
    pub expect: Option<Api>,
    pub action: Action,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    Reply(Reply),
    /// An error status with the called provider's error body.
    Error {
        status: u16,
        retry_after: Option<u64>,
        message: Option<String>,
    },
    /// Start the reply, send about half of it, then close the connection.
    DropMidStream(Reply),
    /// Wait before sending anything, then reply.
    SlowFirstByte {
        delay_ms: u64,
        reply: Reply,
    },
}

impl Step {
    pub fn reply(reply: Reply) -> Self {
        Self { expect: None, action: Action::Reply(reply) }
    }

    pub fn error(status: u16, retry_after: Option<u64>) -> Self {
        Self { expect: None, action: Action::Error { status, retry_after, message: None } }
    }

    pub fn drop_mid_stream(reply: Reply) -> Self {
        Self { expect: None, action: Action::DropMidStream(reply) }
    }

    pub fn slow_first_byte(delay_ms: u64, reply: Reply) -> Self {
        Self { expect: None, action: Action::SlowFirstByte { delay_ms, reply } }
    }

    pub fn expecting(mut self, api: Api) -> Self {
        self.expect = Some(api);
        self
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Script {
    pub steps: Vec<Step>,
}

impl Script {
    pub fn new(steps: impl IntoIterator<Item = Step>) -> Self {
        Self { steps: steps.into_iter().collect() }
    }

    /// A JSON array of steps.
    pub fn from_json(json: &str) -> Result<Self, ScriptError> {
        let steps: Vec<Value> =
            serde_json::from_str(json).map_err(|e| ScriptError(format!("a script is a JSON array of steps: {e}")))?;
        let steps = steps
            .into_iter()
            .enumerate()
            .map(|(i, step)| parse_step(step).map_err(|e| ScriptError(format!("step {}: {e}", i + 1))));
        Ok(Self { steps: steps.collect::<Result<_, _>>()? })
    }

    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, ScriptError> {
        let path = path.as_ref();
        let json = std::fs::read_to_string(path).map_err(|e| ScriptError(format!("cannot read {}: {e}", path.display())))?;
        Self::from_json(&json).map_err(|e| ScriptError(format!("{}: {e}", path.display())))
    }
}

/// A script that does not parse; the message names the step and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScriptError(pub String);

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ScriptError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStep {
    reply: Option<Reply>,
    fault: Option<Value>,
    expect: Option<Expect>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Expect {
    api: Api,
}

const FAULT_FORMS: &str = r#"a fault is "drop_mid_stream", {"status": 400-599, "retry_after"?: seconds, "message"?: text} or {"slow_first_byte_ms": N}"#;

fn parse_step(step: Value) -> Result<Step, String> {
    let raw: RawStep = serde_json::from_value(step).map_err(|e| e.to_string())?;
    let action = match (raw.fault, raw.reply) {
        (None, Some(reply)) => Action::Reply(reply),
        (None, None) => return Err("a step needs \"reply\" or \"fault\"".into()),
        (Some(fault), reply) => parse_fault(&fault, reply)?,
    };
    Ok(Step { expect: raw.expect.map(|e| e.api), action })
}

fn parse_fault(fault: &Value, reply: Option<Reply>) -> Result<Action, String> {
    let reply_or_default = |reply: Option<Reply>| reply.unwrap_or_else(|| Reply::text(DEFAULT_TEXT));
    if fault.as_str() == Some("drop_mid_stream") {
        return Ok(Action::DropMidStream(reply_or_default(reply)));
    }
    let Some(spec) = fault.as_object() else { return Err(FAULT_FORMS.into()) };
    let number = |key: &str| spec.get(key).map(|v| v.as_u64().ok_or_else(|| format!("\"{key}\" must be a whole number")));
    if let Some(delay_ms) = number("slow_first_byte_ms") {
        if spec.len() > 1 {
            return Err(format!("{FAULT_FORMS}; slow_first_byte_ms stands alone"));
        }
        return Ok(Action::SlowFirstByte { delay_ms: delay_ms?, reply: reply_or_default(reply) });
    }
    if let Some(unknown) = spec.keys().find(|k| !["status", "retry_after", "message"].contains(&k.as_str())) {
        return Err(format!("unknown fault field \"{unknown}\"; {FAULT_FORMS}"));
    }
    let status = number("status").ok_or_else(|| FAULT_FORMS.to_owned())??;
    let status = u16::try_from(status).ok().filter(|s| (400..600).contains(s)).ok_or("\"status\" must be 400-599")?;
    if reply.is_some() {
        return Err("an error status sends no reply; move the reply to the next step".into());
    }
    let message = match spec.get("message") {
        None => None,
        Some(m) => Some(m.as_str().ok_or("\"message\" must be a string")?.to_owned()),
    };
    Ok(Action::Error { status, retry_after: number("retry_after").transpose()?, message })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn parses_every_step_form() {
        let script = Script::from_json(
            r#"[
                {"reply": {"text": "hi", "reasoning": "think", "tool_calls": [{"name": "f", "arguments": {"a": 1}}],
                           "usage": {"input_tokens": 3, "output_tokens": 4}}, "expect": {"api": "gemini"}},
                {"fault": {"status": 429, "retry_after": 1}},
                {"fault": "drop_mid_stream"},
                {"fault": {"slow_first_byte_ms": 250}, "reply": {"text": "late"}}
            ]"#,
        )
        .expect("a valid script");
        let reply = Reply::text("hi").with_reasoning("think").with_tool_call("f", json!({"a": 1})).with_usage(3, 4);
        assert_eq!(
            script,
            Script::new([
                Step::reply(reply).expecting(Api::Gemini),
                Step::error(429, Some(1)),
                Step::drop_mid_stream(Reply::text(DEFAULT_TEXT)),
                Step::slow_first_byte(250, Reply::text("late")),
            ])
        );
    }

    #[test]
    fn errors_name_the_step_and_the_problem() {
        let error = |json: &str| Script::from_json(json).expect_err("invalid").0;
        assert!(error(r#"[{"reply": {}}, {}]"#).starts_with("step 2: a step needs"));
        assert!(error(r#"[{"reply": {"txt": "x"}}]"#).contains("unknown field `txt`"));
        assert!(error(r#"[{"fault": {"status": 200}}]"#).contains("400-599"));
        assert!(error(r#"[{"fault": "explode"}]"#).contains("drop_mid_stream"));
        assert!(error(r#"[{"fault": {"status": 500}, "reply": {}}]"#).contains("sends no reply"));
        assert!(error(r#"[{"reply": {}, "expect": {"api": "bard"}}]"#).contains("unknown variant `bard`"));
        assert!(error(r#"{"steps": []}"#).starts_with("a script is a JSON array"));
    }
}
