//! Structured results (seeds 001 to 003). With an output schema the session offers
//! `submit_result`, whose parameters are that schema, and `give_up`; it tells the model it must
//! submit. Submissions are validated by the core's JSON Schema validator; a refused one goes back
//! to the model listing every problem, and so does an answer that ends without a submission,
//! until `max_result_attempts` is spent. Every input, with or without a schema, ends with a
//! `result` event: the result text, the data (`null` without a schema) and the [`AgentOutcome`].

use std::rc::Rc;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use super::outcome::{AgentOutcome, EvidenceKind, OutcomeMetrics, OutcomeStatus};
use super::{EventData, Session, StopReason, Turn};
use crate::llm::{LlmError, ToolDefinition};
use crate::runtime::format_rfc3339;
use crate::schema::SchemaError;
use crate::tools::{RegisteredTool, ToolContext, ToolError, ToolExecutor, ToolOutput, ToolRegistry};

pub const SUBMIT_RESULT: &str = "submit_result";
pub const GIVE_UP: &str = "give_up";

/// Added to the system prompt when a result is required.
const RESULT_INSTRUCTIONS: &str = "\n\n# Result\nThis task requires a structured result. When the task is done, you MUST \
call `submit_result` with the result as its arguments, exactly as its schema requires: nothing else you write is read as \
the result. If it is refused, fix every problem it lists and call it again. If you cannot do the task, call `give_up` with \
the reason instead.";

/// The end of an input, as the `result` event carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
pub struct RunResult {
    /// Human-readable: the model's last answer, or why there is none.
    pub result_text: String,
    /// The accepted submission; `null` without an output schema or without a valid submission.
    pub result_data: Option<Value>,
    pub outcome: AgentOutcome,
}

/// What the model delivered during the current input, and what the input has cost so far.
#[derive(Debug, Default)]
pub(super) struct InputState {
    pub submitted: Option<Value>,
    /// `give_up`'s reason, and what the model says it did manage.
    pub gave_up: Option<(String, Option<String>)>,
    /// Why a `user_prompt_submit` hook refused the input.
    pub blocked: Option<String>,
    /// Refused submissions and answers that ended without one.
    pub misses: usize,
    pub turns: u32,
    pub tool_calls: u32,
    pub succeeded: u32,
    pub failed: u32,
    pub started_ms: u64,
    pub repeats: super::repeats::Repeats,
    /// A repeated call was refused: the next request asks for an answer without tools.
    pub answer_now: bool,
}

impl InputState {
    pub fn deliver(&mut self, delivery: Delivery) {
        match delivery {
            Delivery::Submitted(data) => self.submitted = Some(data),
            Delivery::GaveUp { reason, completed } => self.gave_up = Some((reason, completed)),
        }
    }
}

/// What a call to a result tool delivered.
pub(super) enum Delivery {
    Submitted(Value),
    GaveUp { reason: String, completed: Option<String> },
}

/// `submit_result` and `give_up`: each returns what the model delivered, which the loop records
/// when the call runs; the loop decides what follows.
pub(super) struct ResultTool {
    give_up: bool,
}

impl ResultTool {
    /// What a call with `arguments` (valid by the tool's schema) delivers.
    pub fn delivery(&self, arguments: &Value) -> Delivery {
        if self.give_up {
            let text = |key: &str| arguments[key].as_str().map(str::trim).filter(|s| !s.is_empty()).map(str::to_owned);
            Delivery::GaveUp { reason: text("reason").unwrap_or_default(), completed: text("completed") }
        } else {
            Delivery::Submitted(arguments.clone())
        }
    }
}

#[async_trait(?Send)]
impl ToolExecutor for ResultTool {
    async fn execute(&self, _: &Value, _: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        Ok(match self.give_up {
            true => "Understood: the task ends here.".into(),
            false => "Result accepted. The task is complete; do not call any more tools.".into(),
        })
    }
}

/// Checks that `schema` can be an output schema (the parameters of `submit_result`): an object
/// schema that compiles. [`SessionBuilder::output_schema`](super::SessionBuilder::output_schema)
/// checks the same; hosts call this to refuse a bad schema when they load it, before any session.
pub fn check_output_schema(schema: &Value) -> Result<(), SchemaError> {
    let mut scratch = ToolRegistry::new();
    Session::register_result_tools(&mut scratch, schema).map(drop)
}

impl Session {
    /// Registers `submit_result` (parameters: `schema`) and `give_up` on `registry`; returns
    /// both, for [`result_tool`](Self::result_tool) to know them when they run.
    pub(super) fn register_result_tools(registry: &mut ToolRegistry, schema: &Value) -> Result<Vec<Rc<ResultTool>>, SchemaError> {
        let submit = ToolDefinition {
            name: SUBMIT_RESULT.into(),
            description: "Submit the result of the task. You MUST call this once the task is done; its arguments are the \
                          result, in the required structure. If it is refused, fix the problems listed and call it again."
                .into(),
            parameters: schema.clone(),
        };
        let give_up = ToolDefinition {
            name: GIVE_UP.into(),
            description: "Stop without a result because the task cannot be done. Say why, and what you did manage, if anything."
                .into(),
            parameters: crate::tools::schema(
                r#"{
                "type": "object",
                "properties": {
                    "reason": {"type": "string", "minLength": 1, "description": "Why the task cannot be done."},
                    "completed": {"type": "string", "description": "What part of the task was done, if any."}
                },
                "required": ["reason"]
            }"#,
            ),
        };
        let tools = vec![Rc::new(ResultTool { give_up: false }), Rc::new(ResultTool { give_up: true })];
        registry.register(RegisteredTool::new(submit, tools[0].clone())?);
        registry.register(RegisteredTool::new(give_up, tools[1].clone())?);
        Ok(tools)
    }

    /// The session's own result tool behind `executor`, if it is one: known by identity, not by
    /// name, so a host's tool registered under the same name delivers nothing.
    pub(super) fn result_tool(&self, executor: &Rc<dyn ToolExecutor>) -> Option<&ResultTool> {
        let tool = self.inner.result_tools.iter().find(|tool| std::ptr::addr_eq(Rc::as_ptr(tool), Rc::as_ptr(executor)))?;
        Some(tool)
    }

    pub(super) fn requires_result(&self) -> bool {
        self.inner.output_schema.is_some()
    }

    /// The system prompt's addition when a result is required.
    pub(super) fn result_instructions(&self) -> &'static str {
        if self.requires_result() {
            RESULT_INSTRUCTIONS
        } else {
            ""
        }
    }

    /// The message for a refused submission: every problem, and the attempts left.
    pub(super) fn refused_submission(&self, problems: &[String], input: &mut InputState) -> String {
        let max = self.inner.state.borrow().config.max_result_attempts;
        input.misses += 1;
        let attempt = input.misses;
        let next = if attempt >= max { "That was the last attempt." } else { "Fix every problem and call submit_result again." };
        format!("The result does not match the required structure (attempt {attempt} of {max}):\n{}\n{next}", problems.join("\n"))
    }

    /// After a tool round: whether the model's delivery (or its attempts running out) ends the input.
    pub(super) fn delivery_stop(&self, state: &InputState) -> Option<StopReason> {
        if state.submitted.is_some() {
            Some(StopReason::Completed)
        } else if state.gave_up.is_some() {
            Some(StopReason::GaveUp)
        } else if self.requires_result() && state.misses >= self.inner.state.borrow().config.max_result_attempts {
            Some(StopReason::NoResult)
        } else {
            None
        }
    }

    /// The model answered without tools. Without a required result that completes the input;
    /// with one, the model is reminded to submit while attempts remain.
    pub(super) fn answer_without_result(&self, input: &mut InputState) -> Option<StopReason> {
        if !self.requires_result() {
            return Some(StopReason::Completed);
        }
        let max = self.inner.state.borrow().config.max_result_attempts;
        input.misses += 1;
        let misses = input.misses;
        if misses >= max {
            return Some(StopReason::NoResult);
        }
        let content = format!(
            "You ended your answer without calling submit_result (attempt {misses} of {max}). The task is only done when \
             submit_result accepts the result: call it now, or call give_up if the task cannot be done."
        );
        self.push_turn(Turn::Steering { content: content.clone(), timestamp: self.now() });
        self.emit(EventData::SteeringInjected { content });
        None
    }

    /// The result of the input that just ended, emitted as the `result` event and kept for
    /// [`Session::last_result`].
    pub(super) fn finish_input(&self, input: &mut InputState, reason: StopReason, final_text: &str, error: Option<&LlmError>) {
        let state = std::mem::take(input);
        let retries = self.inner.retries.replace(0);
        let now = self.now();
        let max_turns = self.inner.state.borrow().config.max_turns;
        let (mut outcome, result_data, result_text) = match reason {
            StopReason::Completed => match state.submitted {
                Some(data) => {
                    let text = if final_text.trim().is_empty() {
                        crate::llm::json_text::to_string(&data)
                    } else {
                        final_text.to_owned()
                    };
                    let outcome = AgentOutcome::new(OutcomeStatus::Success, "The result was submitted and accepted.")
                        .with_evidence(EvidenceKind::ToolResult, "submit_result accepted the result", None);
                    (outcome, Some(data), text)
                }
                None => (AgentOutcome::new(OutcomeStatus::Done, "The model finished its answer."), None, final_text.to_owned()),
            },
            StopReason::GaveUp => {
                let (reason, completed) = state.gave_up.unwrap_or_default();
                let status = if completed.is_some() { OutcomeStatus::PartialSuccess } else { OutcomeStatus::GiveUp };
                let text = match &completed {
                    Some(done) => format!("Gave up: {reason}\nDone: {done}"),
                    None => format!("Gave up: {reason}"),
                };
                let outcome = AgentOutcome::new(status, reason.clone()).with_evidence(
                    EvidenceKind::SelfAssessment,
                    reason,
                    completed.map(|done| json!({ "completed": done })),
                );
                (outcome, None, text)
            }
            StopReason::Blocked => {
                let reason = state.blocked.unwrap_or_default();
                let summary = ["A user_prompt_submit hook blocked the input: ", &reason].concat();
                let outcome = AgentOutcome::new(OutcomeStatus::Failure, summary.clone()).with_evidence(
                    EvidenceKind::StopReason,
                    "blocked by a hook",
                    None,
                );
                (outcome, None, summary)
            }
            StopReason::NoResult => {
                // Seed 001's words, which its monitoring greps for ("did not call submit_result").
                let summary =
                    format!("Agent did not call submit_result tool with a valid result within {} attempts.", state.misses);
                let outcome = AgentOutcome::new(OutcomeStatus::Failure, summary.clone()).with_evidence(
                    EvidenceKind::StopReason,
                    "the result attempts ran out",
                    Some(json!({ "attempts": state.misses })),
                );
                (outcome, None, summary)
            }
            StopReason::OutputLimit => {
                let limit = self.inner.state.borrow().config.max_output_tokens;
                let summary = "The answer was cut off at the output token limit.".to_owned();
                let outcome = AgentOutcome::new(OutcomeStatus::Failure, summary).with_evidence(
                    EvidenceKind::StopReason,
                    "finish reason `length`",
                    Some(json!({ "max_output_tokens": limit })),
                );
                (outcome, None, final_text.to_owned())
            }
            StopReason::TurnLimit | StopReason::RoundLimit => {
                let limit = if reason == StopReason::TurnLimit { "max_turns" } else { "max_tool_rounds_per_input" };
                let summary = format!("Stopped by {limit} after {} model responses.", state.turns);
                let data = json!({ "limit": limit, "turns": state.turns, "max_turns": max_turns });
                let outcome = AgentOutcome::new(OutcomeStatus::Timeout, summary).with_evidence(
                    EvidenceKind::StopReason,
                    format!("{limit} reached"),
                    Some(data),
                );
                (outcome, None, final_text.to_owned())
            }
            StopReason::Aborted | StopReason::Interrupted | StopReason::Error => {
                let why = match (reason, error) {
                    (_, Some(error)) => error.to_string(),
                    (StopReason::Aborted, None) => "The session was aborted.".to_owned(),
                    _ => "The input was interrupted.".to_owned(),
                };
                let kind = error.map(|e| json!({ "error_kind": e.kind }));
                let outcome = AgentOutcome::new(OutcomeStatus::Failure, why.clone()).with_evidence(
                    EvidenceKind::StopReason,
                    // The variant names are ASCII; `to_lowercase` would bring the Unicode case tables
                    // (8 KB gzipped) into the browser bundle.
                    format!("{reason:?}").to_ascii_lowercase(),
                    kind,
                );
                let text = if final_text.trim().is_empty() { why } else { final_text.to_owned() };
                (outcome, None, text)
            }
        };
        // Every miss but a final one was followed by another try.
        let corrections = if reason == StopReason::NoResult { state.misses.saturating_sub(1) } else { state.misses };
        outcome.metrics = OutcomeMetrics {
            turns: state.turns,
            tool_calls: state.tool_calls,
            duration_ms: now.saturating_sub(state.started_ms) as f64,
            retries: retries + corrections as u32,
            actions_succeeded: state.succeeded,
            actions_failed: state.failed,
        };
        outcome.timestamp = format_rfc3339(now);
        let result = RunResult { result_text, result_data, outcome };
        self.emit(EventData::Result {
            result_text: result.result_text.clone(),
            result_data: result.result_data.clone(),
            outcome: result.outcome.clone(),
        });
        self.inner.state.borrow_mut().last_result = Some(result);
    }
}
