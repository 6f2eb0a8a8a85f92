//! How an input ended, typed (seed 002): every input the session processes ends in an
//! [`AgentOutcome`], carried by the `result` event with the run's result text and data.
//!
//! | how the input stopped | status |
//! |---|---|
//! | a valid `submit_result` | `success` |
//! | `give_up` with a description of what was done | `partial_success` |
//! | `give_up` without one | `give_up` |
//! | the model answered without tools, no output schema | `done` |
//! | `max_turns` or `max_tool_rounds_per_input` | `timeout` |
//! | an output schema and no valid submission within the attempts, a model error, abort, interrupt | `failure` |

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The outcome of one input. Deserialising is tolerant of caller-built shapes: `summary`,
/// `evidence`, `metrics` and `timestamp` may be missing and unknown fields are ignored;
/// serialising always writes every field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
pub struct AgentOutcome {
    pub status: OutcomeStatus,
    #[serde(default)]
    pub summary: String,
    #[serde(default)]
    pub evidence: Vec<Evidence>,
    #[serde(default)]
    pub metrics: OutcomeMetrics,
    /// RFC 3339 UTC. The core reads no clock of its own: an outcome read without one has an
    /// empty timestamp until [`AgentOutcome::parse`] (or the host) stamps it.
    #[serde(default)]
    pub timestamp: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum OutcomeStatus {
    /// The task was done and its result delivered.
    Success,
    /// Some of the task was done; the agent says what.
    PartialSuccess,
    /// The agent decided it cannot do the task.
    GiveUp,
    /// A turn or round limit stopped it.
    Timeout,
    /// An error, a missing result, or a cancellation stopped it.
    Failure,
    /// The agent finished without a structured verdict (neutral).
    Done,
}

impl OutcomeStatus {
    /// Any form of completion (not a failure, timeout or give-up).
    pub fn is_completed(self) -> bool {
        matches!(self, Self::Success | Self::PartialSuccess | Self::Done)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
pub struct Evidence {
    pub kind: EvidenceKind,
    pub description: String,
    #[serde(default)]
    pub data: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum EvidenceKind {
    /// The agent's own assessment (its `give_up` reason).
    SelfAssessment,
    /// A tool result that shows completion (an accepted `submit_result`).
    ToolResult,
    StateChange,
    ExternalVerification,
    /// Why execution stopped (a limit, an error, a cancellation).
    StopReason,
    Evaluator,
}

/// Counts for one input. Every field defaults to zero when missing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
#[serde(default)]
pub struct OutcomeMetrics {
    /// Model responses.
    pub turns: u32,
    pub tool_calls: u32,
    pub duration_ms: f64,
    /// Model calls retried after transient errors, plus corrections of the result.
    pub retries: u32,
    /// Tool calls that succeeded and failed.
    pub actions_succeeded: u32,
    pub actions_failed: u32,
}

impl AgentOutcome {
    pub fn new(status: OutcomeStatus, summary: impl Into<String>) -> Self {
        Self {
            status,
            summary: summary.into(),
            evidence: Vec::new(),
            metrics: OutcomeMetrics::default(),
            timestamp: String::new(),
        }
    }

    pub fn with_evidence(mut self, kind: EvidenceKind, description: impl Into<String>, data: Option<Value>) -> Self {
        self.evidence.push(Evidence { kind, description: description.into(), data });
        self
    }

    /// Reads an outcome built elsewhere (a harness, a stored record), stamping it with `now`
    /// (RFC 3339) when it has no timestamp.
    pub fn parse(json: &str, now: &str) -> Result<Self, serde_json::Error> {
        // `from_slice`, as response bodies are read: `from_str` would put a second JSON reader in the browser bundle.
        let mut outcome: Self = serde_json::from_slice(json.as_bytes())?;
        if outcome.timestamp.is_empty() {
            now.clone_into(&mut outcome.timestamp);
        }
        Ok(outcome)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;

    #[test]
    fn statuses_serialise_in_snake_case_and_say_whether_they_completed() {
        assert_eq!(serde_json::to_string(&OutcomeStatus::PartialSuccess).unwrap(), "\"partial_success\"");
        assert_eq!(serde_json::to_string(&OutcomeStatus::GiveUp).unwrap(), "\"give_up\"");
        let completed: Vec<_> = [
            OutcomeStatus::Success,
            OutcomeStatus::PartialSuccess,
            OutcomeStatus::GiveUp,
            OutcomeStatus::Timeout,
            OutcomeStatus::Failure,
            OutcomeStatus::Done,
        ]
        .into_iter()
        .filter(|s| s.is_completed())
        .collect();
        assert_eq!(completed, [OutcomeStatus::Success, OutcomeStatus::PartialSuccess, OutcomeStatus::Done]);
    }

    /// The harness of seed 002 sends `{status, summary, evidence, metrics, tools_called}`: no
    /// timestamp, an extra field, and partial metrics.
    #[test]
    fn the_harness_shape_deserialises() {
        let harness = r#"{"status":"success","summary":"Created file","evidence":[],"metrics":{"turns":3,"tool_calls":3,"actions_succeeded":3,"actions_failed":0},"tools_called":["drive_cli","check_outcome","finish"]}"#;
        let outcome = AgentOutcome::parse(harness, "2026-01-01T00:00:00.000Z").unwrap();
        assert_eq!((outcome.status, outcome.summary.as_str()), (OutcomeStatus::Success, "Created file"));
        assert!(outcome.evidence.is_empty());
        let m = &outcome.metrics;
        assert_eq!((m.turns, m.tool_calls, m.actions_succeeded, m.actions_failed), (3, 3, 3, 0));
        assert_eq!((m.duration_ms, m.retries), (0.0, 0));
        assert_eq!(outcome.timestamp, "2026-01-01T00:00:00.000Z");
        let json = serde_json::to_value(&outcome).unwrap();
        for field in ["status", "summary", "evidence", "metrics", "timestamp"] {
            assert!(json.get(field).is_some(), "{field} missing from {json}");
        }
        // The bare minimum is a status.
        assert_eq!(serde_json::from_str::<AgentOutcome>(r#"{"status":"done"}"#).unwrap().summary, "");
        assert!(serde_json::from_str::<AgentOutcome>(r#"{"status":"finished"}"#).is_err());
    }

    #[test]
    fn round_trips_with_evidence_and_metrics() {
        let mut outcome = AgentOutcome::new(OutcomeStatus::Timeout, "Exceeded step limit").with_evidence(
            EvidenceKind::StopReason,
            "Reached 10 of 10 max turns",
            Some(json!({"turns": 10, "max_turns": 10})),
        );
        outcome.metrics = OutcomeMetrics { turns: 10, tool_calls: 4, duration_ms: 1234.5, retries: 1, ..Default::default() };
        let back: AgentOutcome = serde_json::from_str(&serde_json::to_string(&outcome).unwrap()).unwrap();
        assert_eq!(back, outcome);
        assert_eq!(back.evidence[0].kind, EvidenceKind::StopReason);
    }
}
