//! What an input's events add up to: turns, tool calls, compactions, tokens and the final text.

use std::collections::BTreeMap;

use openagent_core::llm::Usage;
use openagent_core::session::{AgentOutcome, EventData, SessionEvent, StopReason};
use openagent_core::{Session, SessionError};
use openagent_store::ExitReason;

use crate::launcher::Launcher;
use crate::projection::RunEnd;

/// What a run counts as its events pass.
#[derive(Default)]
/// Turns, tool calls, compactions and tokens count the subagents' with the session's own; the
/// final output is the session's own.
pub struct Tally {
    turns: usize,
    tool_calls: usize,
    /// Compactions that summarised older turns (manual, by threshold, or on overflow).
    compactions: usize,
    final_output: String,
    /// The session the events are of (the first one seen); the others are its subagents.
    root: Option<String>,
    /// Each session's running total, as its last response reported it.
    usage: BTreeMap<String, Usage>,
}

impl Tally {
    pub fn observe(&mut self, event: &SessionEvent) {
        let root = self.root.get_or_insert_with(|| event.session_id.to_string());
        let own = *root == event.session_id;
        match &event.data {
            EventData::TurnStart { .. } => self.turns += 1,
            EventData::ToolCallStart { .. } => self.tool_calls += 1,
            EventData::CompactionEnd { summarized_turns, error: None, .. } if *summarized_turns > 0 => self.compactions += 1,
            EventData::AssistantTextEnd { text, total_usage, .. } => {
                if own {
                    self.final_output.clone_from(text);
                }
                self.usage.insert(event.session_id.to_string(), total_usage.clone());
            }
            _ => {}
        }
    }

    /// `own`, the session's total, with its subagents' added.
    fn with_subagents(&self, own: Usage) -> Usage {
        let subagents = self.usage.iter().filter(|(id, _)| Some(*id) != self.root.as_ref());
        subagents.fold(own, |total, (_, usage)| total + usage.clone())
    }

    /// How the input ended, once `result` is in.
    pub fn end(
        &self,
        result: &Result<StopReason, SessionError>,
        agent: &Launcher,
        session: &Session,
        duration_ms: u64,
    ) -> RunEnd {
        let last = session.last_result();
        self.run_end(
            ExitReason::of(result),
            result.as_ref().err().map(|error| agent.explain(error)),
            self.with_subagents(session.total_usage()),
            duration_ms,
            last.as_ref().map(|r| r.outcome.clone()),
            last.and_then(|r| r.result_data),
        )
    }

    /// The tokens used so far, as the last responses reported them: for a run whose end was not reported.
    pub fn usage(&self) -> Usage {
        let own = self.root.as_ref().and_then(|root| self.usage.get(root)).cloned().unwrap_or_default();
        self.with_subagents(own)
    }

    /// The run's end record: how it ended, with what the events added up to.
    pub fn run_end(
        &self,
        reason: ExitReason,
        error: Option<String>,
        usage: Usage,
        duration_ms: u64,
        outcome: Option<AgentOutcome>,
        result_data: Option<serde_json::Value>,
    ) -> RunEnd {
        RunEnd {
            exit_reason: reason.as_str().into(),
            exit_code: reason.code(),
            final_output: self.final_output.clone(),
            error,
            turns: self.turns,
            tool_calls: self.tool_calls,
            compactions: self.compactions,
            usage,
            duration_ms,
            outcome,
            result_data,
        }
    }
}
