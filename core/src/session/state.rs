//! What a session's loop mutates, kept apart from the handle hosts share: the state a snapshot
//! saves ([`SessionState`]) and what the loop derives from it and rebuilds on restore
//! ([`LoopCache`]).

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::results::RunResult;
use super::subagents::SubAgentResult;
use super::{SessionConfig, Turn};
use crate::llm::{Message, Request, ToolChoice, ToolDefinition, Usage};

/// The loop's state: plain data, serialisable, everything a saved session needs to go on.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS), ts(rename = "SavedState"))]
pub struct SessionState {
    pub history: Vec<Turn>,
    /// Token usage summed over every model call, compaction's included.
    pub total_usage: Usage,
    /// Model responses over the whole session (what `max_turns` limits).
    pub turns: usize,
    /// Steering not injected yet, and inputs queued after the current one.
    #[cfg_attr(feature = "typings", ts(as = "Vec<String>"))]
    pub steering: Vec<String>,
    #[cfg_attr(feature = "typings", ts(as = "Vec<String>"))]
    pub followups: Vec<String>,
    /// The reasoning effort and limits in force.
    pub config: SessionConfig,
    /// How the last input ended.
    pub last_result: Option<RunResult>,
    /// Signatures of the most recent tool calls, oldest first, at most the detection window.
    #[cfg_attr(feature = "typings", ts(as = "Vec<u64>"))]
    pub recent_calls: Vec<u64>,
    /// How many times older history was replaced by a summary.
    pub compactions: usize,
    pub subagents: Vec<SubAgentRecord>,
}

/// Written by hand, as a snapshot writes it (`snapshot_write`).
impl Serialize for SessionState {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        super::snapshot_write::Node::State(self).serialize(serializer)
    }
}

impl SessionState {
    pub fn new(config: SessionConfig) -> Self {
        Self {
            history: Vec::new(),
            total_usage: Usage::default(),
            turns: 0,
            steering: Vec::new(),
            followups: Vec::new(),
            config,
            last_result: None,
            recent_calls: Vec::new(),
            compactions: 0,
            subagents: Vec::new(),
        }
    }
}

/// A subagent as a snapshot keeps it: how it was started, its own state, and its last run's
/// result (`None` while it ran).
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
pub struct SubAgentRecord {
    pub agent_id: String,
    pub working_dir: Option<String>,
    pub model: Option<String>,
    pub output_schema: Option<Value>,
    pub state: SessionState,
    pub result: Option<SubAgentResult>,
}

/// What the loop derives from the state: the next request, kept in step with the history and
/// only appended to (so a round costs the same at the 10th as at the 2000th), and the figures
/// the context estimate reads. Never saved; rebuilt from the state.
pub(super) struct LoopCache {
    /// A system message, then the history as messages.
    pub request: Request,
    /// The registry generation `request.tools` was last built from.
    pub tools_generation: Option<u64>,
    /// Whether the system prompt is in; it is built at the first input.
    pub prompt_built: bool,
    /// Characters of the system prompt, and of the tool definitions.
    pub system_chars: usize,
    pub tools_chars: usize,
    pub history_chars: usize,
    /// The last response's real `input_tokens`, and the history characters added since.
    pub known_input_tokens: Option<u64>,
    pub chars_since_known: usize,
}

impl LoopCache {
    pub fn new(request: Request) -> Self {
        Self {
            request,
            tools_generation: None,
            prompt_built: false,
            system_chars: 0,
            tools_chars: 0,
            history_chars: 0,
            known_input_tokens: None,
            chars_since_known: 0,
        }
    }

    /// Appends `turn`'s messages to the request.
    pub fn push(&mut self, turn: &Turn) {
        let chars = turn.approx_chars();
        self.history_chars += chars;
        self.chars_since_known += chars;
        turn.append_messages(&mut self.request.messages);
    }

    /// Rebuilds the request's messages after the history was replaced (a restore, a compaction).
    pub fn rebuild(&mut self, history: &[Turn]) {
        let system = self.request.messages.first().cloned().unwrap_or_else(|| Message::system(String::new()));
        self.request.messages = vec![system];
        self.request.memo.forget_from(0);
        self.history_chars = 0;
        self.known_input_tokens = None;
        for turn in history {
            self.push(turn);
        }
    }

    /// The next request's size in tokens: the larger of the last response's real input count
    /// plus a quarter of the characters added since, and a quarter of every character. The
    /// larger, so a server that reports no usage (or a wrong one) cannot hide the growth.
    pub fn estimate_tokens(&self) -> u64 {
        let by_chars = ((self.system_chars + self.tools_chars + self.history_chars) / 4) as u64;
        match self.known_input_tokens {
            Some(known) if known > 0 => by_chars.max(known + (self.chars_since_known / 4) as u64),
            _ => by_chars,
        }
    }

    /// Puts `prompt` in as the system message.
    pub fn set_system_prompt(&mut self, prompt: String) {
        self.prompt_built = true;
        self.system_chars = prompt.len();
        self.request.messages[0] = Message::system(prompt);
        self.request.memo.forget_from(0);
    }

    /// Puts `tools` in as the request's tools.
    pub fn set_tools(&mut self, tools: Vec<ToolDefinition>, generation: u64) {
        self.tools_chars =
            tools.iter().map(|t| t.name.len() + t.description.len() + crate::llm::json_text::to_vec(&t.parameters).len()).sum();
        self.request.tool_choice = (!tools.is_empty()).then_some(ToolChoice::Auto);
        self.request.tools = tools;
        self.tools_generation = Some(generation);
    }

    /// Records a response's real input count; the response itself is added by `push` next.
    pub fn known_usage(&mut self, input_tokens: u64) {
        self.known_input_tokens = Some(input_tokens);
        self.chars_since_known = 0;
    }
}

/// The oldest entry of a queue of a few (steering and follow-up messages), taken out. A `Vec`
/// rather than a `VecDeque` for these: the deque's code cost the browser bundle more than moving
/// a handful of strings ever costs.
pub(super) fn take_first(queue: &mut Vec<String>) -> Option<String> {
    (!queue.is_empty()).then(|| queue.remove(0))
}
