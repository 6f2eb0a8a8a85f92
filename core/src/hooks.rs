//! Hooks: the host's own code, run at four points of a session, that can block, rewrite or add
//! to what the agent does. Natively a hook is a configured command given the [`HookInput`] as
//! JSON on stdin (exit 2 blocks, with stderr as the reason); in the browser it is an async
//! JavaScript function. Both sit behind [`Hooks`]: the session asks it and acts on the
//! [`HookOutcome`], the same way for every host.
//!
//! - `pre_tool_use`, after a call's arguments are validated and before the approval policy: a
//!   block refuses the call (the model reads the reason); new `tool_input` replaces the
//!   arguments, validated again.
//! - `post_tool_use`, after the tool ran: a block turns the result into an error result that
//!   carries the reason, so the model acts on it.
//! - `user_prompt_submit`, before an input of the host reaches the history: a block drops the
//!   input (the input ends `blocked`); `context` is added after it, as a steering message.
//! - `session_end`, once the session is closed; it cannot block.
//!
//! A hook that fails (crashes, hangs past its timeout, answers what cannot be read) is reported as
//! a `warning` event and otherwise ignored: the session goes on. Subagents share their parent's
//! hooks for tool calls; only the session the host started has prompts and an end.

use async_trait::async_trait;
use serde::Serialize;
use serde_json::Value;

/// The points a hook runs at, by the names hooks are configured and told with.
pub const HOOK_POINTS: [&str; 4] = ["pre_tool_use", "post_tool_use", "user_prompt_submit", "session_end"];

/// What a hook is told, tagged by `hook_event_name`; the JSON a command reads on stdin.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "hook_event_name", rename_all = "snake_case")]
pub enum HookEvent {
    PreToolUse { call_id: String, tool_name: String, tool_input: Value },
    PostToolUse { call_id: String, tool_name: String, tool_input: Value, tool_output: String, is_error: bool },
    UserPromptSubmit { prompt: String },
    SessionEnd { reason: String },
}

impl HookEvent {
    /// The hook point's name, as configured (`pre_tool_use`, ...).
    pub fn name(&self) -> &'static str {
        HOOK_POINTS[self.index()]
    }

    /// The point's place in [`HOOK_POINTS`].
    pub fn index(&self) -> usize {
        match self {
            Self::PreToolUse { .. } => 0,
            Self::PostToolUse { .. } => 1,
            Self::UserPromptSubmit { .. } => 2,
            Self::SessionEnd { .. } => 3,
        }
    }

    /// The tool a `*_tool_use` event is about; hooks can be limited to some tools by name.
    pub fn tool_name(&self) -> Option<&str> {
        match self {
            Self::PreToolUse { tool_name, .. } | Self::PostToolUse { tool_name, .. } => Some(tool_name),
            _ => None,
        }
    }
}

/// A [`HookEvent`] with the session it happens in.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HookInput {
    pub session_id: String,
    /// The session's working directory.
    pub cwd: String,
    #[serde(flatten)]
    pub event: HookEvent,
}

/// What the hooks of one point answered, all of them together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutcome {
    /// Refuse the call or the prompt (for `post_tool_use`: flag the result), for this reason.
    pub block: Option<String>,
    /// `pre_tool_use`: run the call with these arguments instead.
    pub tool_input: Option<Value>,
    /// `user_prompt_submit`: text the model reads after the prompt.
    pub context: Option<String>,
    /// Hooks that failed, each described for a `warning` event; they do not change anything else.
    pub failures: Vec<String>,
}

/// The host seam: runs the hooks configured for `input.event`'s point (none: the default outcome).
#[async_trait(?Send)]
pub trait Hooks {
    async fn run(&self, input: &HookInput) -> HookOutcome;
}
