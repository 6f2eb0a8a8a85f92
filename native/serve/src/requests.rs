//! What the API's routes read from a request: the JSON bodies of `POST /sessions`, steer,
//! messages, fork and approvals, each checked field by field, and the query of an event stream.
//! Each error is a 400 that says what is wrong with the request.

use openagent_core::approval::{Approval, ApprovalMode};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::Value;

use super::runs::NewRun;
use crate::api_error::ApiError;
use openagent_core::sandbox::SandboxPolicy;
use openagent_http_server::Request;
use openagent_runner::{AgentOptions, LimitFlags, SandboxOptions};

/// `POST /sessions`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NewSessionBody {
    task: String,
    provider: Option<String>,
    model: Option<String>,
    pub(super) base_url: Option<String>,
    max_turns: Option<usize>,
    max_tool_rounds: Option<usize>,
    reasoning_effort: Option<String>,
    context_window: Option<usize>,
    compact_at: Option<usize>,
    output_schema: Option<Value>,
    /// An agent config of the server's working directory (`.openagent/agents/<id>/agent.yml`).
    agent: Option<String>,
    parent_id: Option<String>,
    /// The approval mode, over the agent config's and the server's `--approval`.
    approval: Option<String>,
    /// The sandbox policy (`"workspace-write"` or `{mode, writable_roots, network}`), whole, over
    /// the server's `--sandbox` and the agent config's.
    sandbox: Option<Value>,
}

impl NewSessionBody {
    pub(super) fn into_run(self) -> Result<NewRun, ApiError> {
        if self.task.trim().is_empty() {
            return Err(ApiError::new(400, "task is empty: say what the agent should do"));
        }
        let limits = LimitFlags {
            max_turns: self.max_turns,
            max_tool_rounds: self.max_tool_rounds,
            reasoning_effort: self.reasoning_effort,
            context_window: self.context_window,
            compact_at: self.compact_at,
        };
        limits.check().map_err(|e| ApiError::new(400, e.to_string()))?;
        if self.output_schema.as_ref().is_some_and(|schema| !schema.is_object()) {
            return Err(ApiError::new(400, "output_schema must be a JSON Schema object"));
        }
        let approval = self.approval.as_deref().map(ApprovalMode::parse).transpose().map_err(|e| ApiError::new(400, e))?;
        let sandbox = match self.sandbox {
            Some(value) => SandboxOptions::whole(
                serde_json::from_value::<SandboxPolicy>(value).map_err(|e| ApiError::new(400, format!("sandbox: {e}")))?,
            ),
            None => SandboxOptions::default(),
        };
        Ok(NewRun {
            task: self.task,
            agent: AgentOptions {
                provider: self.provider,
                model: self.model,
                base_url: self.base_url,
                cwd: None,
                agent: self.agent,
                approval,
                sandbox,
                ..AgentOptions::default()
            },
            limits,
            output_schema: self.output_schema,
            parent_id: self.parent_id,
            resume: None,
        })
    }
}

/// `POST /sessions/{id}/fork`'s body, which may be left out.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ForkBody {
    /// Fork from the latest snapshot at or before this event; the latest of all when absent.
    pub(super) at: Option<i64>,
}

/// `POST /sessions/{id}/approvals/{call_id}`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ApprovalBody {
    decision: String,
    reason: Option<String>,
}

/// The most a denial's reason may say: it goes to the model.
const MAX_REASON_BYTES: usize = 4096;

pub(super) fn approval(request: &Request) -> Result<Approval, ApiError> {
    let body: ApprovalBody = parse(&request.body)?;
    let reason = body.reason.filter(|reason| !reason.trim().is_empty());
    if reason.as_ref().is_some_and(|reason| reason.len() > MAX_REASON_BYTES) {
        return Err(ApiError::new(
            400,
            format!("reason is longer than {MAX_REASON_BYTES} bytes; it goes to the model: say it shorter"),
        ));
    }
    match body.decision.as_str() {
        "allow" | "always" if reason.is_some() => Err(ApiError::new(400, "reason is for a denial; leave it out to allow")),
        "allow" => Ok(Approval::Allow),
        "always" => Ok(Approval::AllowAlways),
        "deny" => Ok(Approval::Deny(reason.map(|reason| format!("the user denied this call: {reason}")))),
        other => Err(ApiError::new(400, format!("decision {other:?} is not one of allow, deny, always"))),
    }
}

/// The body of steer and messages.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MessageBody {
    message: String,
}

pub(super) fn message(request: &Request) -> Result<String, ApiError> {
    let body: MessageBody = parse(&request.body)?;
    if body.message.trim().is_empty() {
        return Err(ApiError::new(400, "message is empty"));
    }
    Ok(body.message)
}

/// The body as the JSON object a route takes; the error says what is wrong with it.
pub(super) fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    if body.is_empty() {
        return Err(ApiError::new(400, "the request has no body; this route takes a JSON object (see GET /openapi.json)"));
    }
    serde_json::from_slice(body).map_err(|e| ApiError::new(400, format!("invalid body: {e}")))
}

/// Where an event stream starts: after `Last-Event-ID` (a reconnecting client), or `?after=`.
pub(super) fn events_after(request: &Request) -> Result<i64, ApiError> {
    let query = request.query();
    let given = request
        .header("last-event-id")
        .map(|value| ("Last-Event-ID", value.to_owned()))
        .or_else(|| query.into_iter().find(|(name, _)| name == "after").map(|(_, value)| ("after", value)));
    match given {
        None => Ok(0),
        Some((name, value)) => value
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|seq| *seq >= 0)
            .ok_or_else(|| ApiError::new(400, format!("{name} {value:?} is not an event number (0 or more)"))),
    }
}

pub(super) fn flag(value: &str) -> Result<bool, ApiError> {
    match value {
        "true" | "1" | "" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(ApiError::new(400, format!("subagents {value:?} is not true or false"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_session_body_is_checked_field_by_field() {
        let error =
            |body: &str| parse::<NewSessionBody>(body.as_bytes()).and_then(NewSessionBody::into_run).expect_err(body).message;
        assert!(error("").contains("no body"));
        assert!(error("{").starts_with("invalid body: EOF"));
        assert!(error(r#"{"model": "m"}"#).contains("missing field `task`"));
        assert!(error(r#"{"task": "x", "max_turns": -1}"#).contains("invalid value: integer `-1`"));
        assert!(error(r#"{"task": "x", "tusk": 1}"#).contains("unknown field `tusk`"));
        assert!(error(r#"{"task": " "}"#).contains("task is empty"));
        assert!(error(r#"{"task": "x", "reasoning_effort": "max"}"#).contains("not one of low, medium, high"));
        assert!(error(r#"{"task": "x", "output_schema": "object"}"#).contains("JSON Schema object"));
        assert_eq!(
            error(r#"{"task": "x", "sandbox": "yolo"}"#),
            "sandbox: unknown sandbox mode `yolo`; the modes are read-only, workspace-write, full-access"
        );
        assert!(error(r#"{"task": "x", "sandbox": {"mode": "read-only", "network": "maybe"}}"#).starts_with("sandbox: "));
        let run = parse::<NewSessionBody>(br#"{"task": "x", "max_turns": 3, "model": "m", "parent_id": "r_1"}"#)
            .and_then(NewSessionBody::into_run)
            .expect("valid");
        assert_eq!(
            (run.limits.max_turns, run.agent.model.as_deref(), run.parent_id.as_deref()),
            (Some(3), Some("m"), Some("r_1"))
        );
        assert_eq!(run.agent.sandbox, SandboxOptions::default(), "no sandbox: the server's");
        let run = parse::<NewSessionBody>(br#"{"task": "x", "sandbox": {"mode": "workspace-write", "network": ["crates.io"]}}"#)
            .and_then(NewSessionBody::into_run)
            .expect("valid");
        let policy = run.agent.sandbox.policy(None).expect("usable");
        assert_eq!(policy.describe(), "workspace-write, network to crates.io only");
    }

    /// The window and compaction settings `openagent run` takes as flags, a request takes too.
    #[test]
    fn a_new_session_takes_the_window_and_compaction_settings_and_refuses_impossible_ones() {
        let error = |body: &str| parse::<NewSessionBody>(body.as_bytes()).and_then(NewSessionBody::into_run).unwrap_err().message;
        assert!(error(r#"{"task": "x", "context_window": 0}"#).contains("context_window must be at least 1 token"));
        assert!(error(r#"{"task": "x", "compact_at": 101}"#).contains("compact_at 101 is a percent"));
        let run = parse::<NewSessionBody>(br#"{"task": "x", "context_window": 8192, "compact_at": 0}"#)
            .and_then(NewSessionBody::into_run)
            .expect("valid");
        assert_eq!((run.limits.context_window, run.limits.compact_at), (Some(8192), Some(0)));
    }

    #[test]
    fn an_event_stream_starts_after_last_event_id_or_after() {
        let request = |target: &str, header: Option<&str>| Request {
            method: "GET".into(),
            target: target.into(),
            headers: header.map(|v| ("Last-Event-ID".to_owned(), v.to_owned())).into_iter().collect(),
            body: Vec::new(),
        };
        assert_eq!(events_after(&request("/sessions/r/events", None)), Ok(0));
        assert_eq!(events_after(&request("/sessions/r/events?after=4", None)), Ok(4));
        assert_eq!(events_after(&request("/sessions/r/events?after=4", Some("9"))), Ok(9));
        assert_eq!(events_after(&request("/sessions/r/events", Some("-1"))).map_err(|e| e.status), Err(400));
        assert_eq!(events_after(&request("/sessions/r/events?after=x", None)).map_err(|e| e.status), Err(400));
    }
}
