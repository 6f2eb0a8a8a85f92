//! The last stage of a tool call (`tool_call.rs` has the others): whatever way the call ended, a
//! refusal, a tool error, a result a `post_tool_use` hook flagged or a success, `finalize` turns
//! it into what the model reads and emits the call's one `tool_call_end`.

use std::borrow::Cow;

use super::events::{Decision, EventData};
use super::tool_call::{Ended, Ran, Refusal, Round, Staged, ToolCallOutcome};
use super::truncation::truncate_tool_output;
use super::{repeats, Session};
use crate::hooks::HookEvent;
use crate::llm::{MediaData, SharedText, ToolCall, ToolResult};

/// How a call ended, as its `tool_call_end` event and its result say it.
struct Settled {
    /// The whole output, for the event; `None` when the tool did not run or failed.
    output: Option<SharedText>,
    error: Option<String>,
    /// What the model reads: the output, cut or annotated, or the error.
    content: SharedText,
    image: Option<MediaData>,
    failed: bool,
}

impl Settled {
    /// A call that gave no output: the model reads the error the event carries.
    fn error(message: String) -> Self {
        Self { output: None, error: Some(message.clone()), content: message.into(), image: None, failed: true }
    }
}

impl Session {
    /// Finalize: the model's result and the one `tool_call_end`, for every way a call ends.
    pub(super) async fn finalize(&self, round: &Round<'_>, staged: &Staged<'_>, ended: Ended) -> ToolCallOutcome {
        let (settled, answer_now) = match ended {
            Ended::Refused(refusal) => {
                let answer_now = refusal.answer_now;
                (self.refused(&staged.call, refusal), answer_now)
            }
            Ended::Ran(ran) => (self.settle(round, staged, ran).await, false),
        };
        let call = &*staged.call;
        self.emit(EventData::ToolCallEnd {
            call_id: call.id.clone(),
            tool_name: call.name.clone(),
            output: settled.output,
            error: settled.error,
            duration_ms: self.now().saturating_sub(staged.started),
        });
        let mut result = ToolResult::new(call.id.clone(), settled.content, settled.failed);
        if let Some(image) = settled.image {
            result.image_media_type = image.media_type;
            result.image_data = image.data;
        }
        ToolCallOutcome { result, answer_now }
    }

    /// A call a check refused: the refusal is said as the call's decision, and is its error.
    fn refused(&self, call: &ToolCall, refusal: Refusal) -> Settled {
        self.decision(call, Decision::Deny, Some(refusal.reason), refusal.source);
        Settled::error(refusal.message)
    }

    /// A call that ran: its output redacted, shown to the `post_tool_use` hooks, recorded by the
    /// repeat guard (not when a hook flagged it) and truncated for the model.
    async fn settle(&self, round: &Round<'_>, staged: &Staged<'_>, ran: Ran) -> Settled {
        let call = &*staged.call;
        let config = round.config;
        let text = self.inner.redactions.apply(ran.text);
        let flagged = match self.inner.hooks.is_some() {
            true => self.post_tool_use(call, &text, ran.failed).await,
            false => None,
        };
        let record =
            |failed| config.enable_repeat_guard && round.input().repeats.record(staged.signature, &call.name, &text, failed);
        match (ran.failed, flagged) {
            (true, flagged) => Settled::error(match (flagged, record(true)) {
                (Some(reason), _) => [&text, "\n\n", &reason].concat(),
                (None, true) => [&text, "\n\n", repeats::FAILED_NOTE].concat(),
                (None, false) => text,
            }),
            (false, Some(reason)) => {
                let content = [&truncate_tool_output(&text, &call.name, config), "\n\n", &reason].concat();
                Settled { output: Some(text.into()), error: Some(reason), content: content.into(), image: None, failed: true }
            }
            (false, None) => {
                let repeated = record(false);
                // The event carries the whole output; the model gets the same text, shared,
                // unless it was cut or annotated.
                let text = SharedText::from(text);
                let content = match (truncate_tool_output(&text, &call.name, config), repeated) {
                    (Cow::Borrowed(_), false) => text.clone(),
                    (content, false) => content.into(),
                    (content, true) => [&content, "\n\n", repeats::NOTE].concat().into(),
                };
                Settled { output: Some(text), error: None, content, image: ran.image, failed: false }
            }
        }
    }

    /// Runs the `post_tool_use` hooks on a call's output; what the model should read if one
    /// flagged it.
    async fn post_tool_use(&self, call: &ToolCall, output: &str, is_error: bool) -> Option<String> {
        let event = HookEvent::PostToolUse {
            call_id: call.id.clone(),
            tool_name: call.name.clone(),
            tool_input: call.arguments.clone(),
            tool_output: output.to_owned(),
            is_error,
        };
        let reason = self.hook(event).await.block?;
        Some(["A post_tool_use hook flagged this result: ", &reason].concat())
    }
}
