//! `Session`: the agentic loop of spec section 2.
//!
//! A session holds the history, calls the model through an [`LlmClient`], runs the tools the
//! model asks for in an [`ExecutionEnvironment`], and reports every step as a [`SessionEvent`].
//! It is a cheap handle (`Clone`): while one task awaits [`Session::submit`], another may
//! [`steer`](Session::steer), queue a [`follow_up`](Session::follow_up), change the reasoning
//! effort or [`abort`](Session::abort).
//!
//! What the loop mutates is one plain [`SessionState`] (history, usage, counters, queues, the
//! limits in force); the handle holds only what hosts share (config, abort and interrupt, the
//! event emitter). So a session can be saved at any time ([`Session::snapshot`]) and continued
//! later, in another process or another host ([`SessionBuilder::restore`]). The loop itself reads
//! top to bottom in `agent_loop.rs` and keeps what an input delivered and cost in a value of its
//! own; a tool call goes through named stages (`tool_call.rs`, `tool_finalize.rs`); older history
//! is summarised when the context window fills (`compaction.rs`).

mod agent_loop;
mod builder;
mod compaction;
mod config;
mod emitter;
mod events;
mod input;
mod lifecycle;
mod loop_detection;
mod named_files;
mod outcome;
mod prepared_prompt;
mod redact;
mod repair;
mod repeats;
mod results;
mod snapshot;
mod snapshot_read;
mod snapshot_write;
mod state;
mod subagents;
mod tool_call;
mod tool_finalize;
mod truncation;
mod turns;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use futures::channel::oneshot;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use builder::SessionBuilder;
pub use compaction::CompactionReason;
pub use config::{SessionConfig, ToolLimits, DEFAULT_COMMAND_TIMEOUT_MS};
pub use emitter::Events;
pub use events::{Decision, EventData, SessionEvent, StopReason};
pub use input::{sniff_image, ImageInput, InputError, UserInput};
pub use loop_detection::{detect_loop, signature};
pub use outcome::{AgentOutcome, Evidence, EvidenceKind, OutcomeMetrics, OutcomeStatus};
pub use redact::REDACTED;
pub use results::{check_output_schema, RunResult, GIVE_UP, SUBMIT_RESULT};
pub use snapshot::{SessionSnapshot, SnapshotError};
pub use state::{SessionState, SubAgentRecord};
pub use subagents::{SubAgentResult, SubAgentStatus, SUBAGENT_TOOLS};
pub use truncation::{
    default_char_limit, default_line_limit, truncate_lines, truncate_output, truncate_tool_output, TruncationMode,
};
pub use turns::Turn;

use crate::abort::AbortSignal;
use crate::env::ExecutionEnvironment;
use crate::hooks::Hooks;
use crate::llm::{LlmClient, LlmError, SharedText, Usage};
use crate::profiles::ProviderProfile;
use crate::runtime::{format_rfc3339, Runtime};
use crate::tools::{FilesSeen, RegisteredTool, ToolRegistry};
use emitter::Emitter;
use state::LoopCache;

/// Where a session is in its life (spec 2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS), ts(rename = "SessionState"))]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    Idle,
    Processing,
    /// The model ended its answer with a question for the user.
    AwaitingInput,
    Closed,
}

/// Why a call on the session could not be carried out.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SessionError {
    #[error("the session is closed; start a new session to continue")]
    Closed,
    #[error("the session is already processing an input; use steer() or follow_up() to add to it")]
    Busy,
    #[error("LLM error: {0}")]
    Llm(#[from] LlmError),
    /// The input was refused before any request: an image that cannot be sent.
    #[error("{0}")]
    Input(#[from] InputError),
}

/// The agentic loop's handle for the host.
#[derive(Clone)]
pub struct Session {
    inner: Rc<Inner>,
}

struct Inner {
    /// Shared by every event the session emits.
    id: SharedText,
    profile: Rc<dyn ProviderProfile>,
    env: Rc<dyn ExecutionEnvironment>,
    client: Rc<dyn LlmClient>,
    runtime: Rc<dyn Runtime>,
    user_instructions: Option<String>,
    /// The structure every input's result must have, if any.
    output_schema: Option<Value>,
    /// How deep in a tree of subagents this session is (0: started by the host).
    depth: usize,
    /// The profile's tools plus any registered on this session.
    tools: RefCell<ToolRegistry>,
    status: Cell<SessionStatus>,
    started: Cell<bool>,
    /// What the loop mutates and a snapshot saves.
    state: RefCell<SessionState>,
    /// What the loop derives from the state: the next request and the context estimate.
    cache: RefCell<LoopCache>,
    /// The provider's retries in the current input, counted by the retrying client's callback
    /// while the loop awaits the call (what else the input delivered and cost, the loop keeps).
    retries: Cell<u32>,
    abort: AbortSignal,
    /// Stops the current input only; a fresh one for each input.
    interrupt: RefCell<AbortSignal>,
    emitter: Rc<Emitter>,
    last_timestamp: RefCell<(u64, SharedText)>,
    subagents: RefCell<Vec<subagents::SubAgent>>,
    /// Said once the session starts (a restore that had to drop something).
    pending_warnings: RefCell<Vec<String>>,
    /// The files read or written so far, for profiles that require a read before a write.
    files_seen: FilesSeen,
    /// Secret values replaced in tool outputs; shared with subagents.
    redactions: Rc<redact::Redactions>,
    /// The approval policy and the host's approver; shared with subagents.
    gate: Rc<crate::approval::Gate>,
    /// The host's hooks; shared with subagents.
    hooks: Option<Rc<dyn Hooks>>,
    /// `submit_result` and `give_up`, when a result is required.
    result_tools: Vec<Rc<results::ResultTool>>,
    /// Done when the `session_end` hooks, started as the session closed, have finished.
    end_hooks: RefCell<Option<oneshot::Receiver<()>>>,
    /// The system prompt [`Session::prepare_prompt`] began, until the first input takes it.
    pending_prompt: RefCell<Option<prepared_prompt::PendingPrompt>>,
}

impl Session {
    pub fn builder(
        profile: Rc<dyn ProviderProfile>,
        env: Rc<dyn ExecutionEnvironment>,
        client: Rc<dyn LlmClient>,
        runtime: Rc<dyn Runtime>,
    ) -> SessionBuilder {
        SessionBuilder::new(profile, env, client, runtime)
    }

    pub fn id(&self) -> &str {
        self.inner.id.as_str()
    }

    pub fn status(&self) -> SessionStatus {
        self.inner.status.get()
    }

    /// A new subscription to the session's events, from now on. Subscribe before the first
    /// [`submit`](Self::submit) to see `SESSION_START`.
    pub fn events(&self) -> Events {
        self.inner.emitter.subscribe()
    }

    pub fn history(&self) -> Vec<Turn> {
        self.inner.state.borrow().history.clone()
    }

    /// The text of the model's last answer (its last assistant turn); empty before the first.
    /// Read in place: `history()` copies every turn, tool outputs and all.
    pub fn last_answer(&self) -> String {
        let state = self.inner.state.borrow();
        let last = state.history.iter().rev().find_map(|turn| match turn {
            Turn::Assistant { message, .. } => Some(message.text()),
            _ => None,
        });
        last.unwrap_or_default()
    }

    pub fn config(&self) -> SessionConfig {
        self.inner.state.borrow().config.clone()
    }

    /// How the last input ended (what its `result` event carried); `None` before the first ends.
    pub fn last_result(&self) -> Option<RunResult> {
        self.inner.state.borrow().last_result.clone()
    }

    /// Token usage summed over every model call so far.
    pub fn total_usage(&self) -> Usage {
        self.inner.state.borrow().total_usage.clone()
    }

    pub fn environment(&self) -> Rc<dyn ExecutionEnvironment> {
        self.inner.env.clone()
    }

    /// The session saved as it stands, at any time: taken mid-input it holds the history up to
    /// the last complete turn (a tool round in flight is left out), and it restores as an idle
    /// session. Subagents are saved inside it.
    pub fn snapshot(&self) -> SessionSnapshot {
        let mut state = self.inner.state.borrow().clone();
        state.history.truncate(snapshot::complete_len(&state.history));
        state.subagents = self.subagent_records();
        SessionSnapshot {
            schema: SessionSnapshot::SCHEMA.to_owned(),
            session_id: self.inner.id.to_string(),
            provider: self.inner.profile.id().to_owned(),
            model: self.inner.cache.borrow().request.model.clone(),
            state,
            output_schema: self.inner.output_schema.clone(),
            user_instructions: self.inner.user_instructions.clone(),
            environment: None,
        }
    }

    /// Summarises the older history now, as the session does by itself when the context window
    /// fills. Reports through `compaction_start` and `compaction_end`; nothing changes when there
    /// is nothing old enough to summarise.
    pub async fn compact(&self) -> Result<(), SessionError> {
        match self.status() {
            SessionStatus::Closed => return Err(SessionError::Closed),
            SessionStatus::Processing => return Err(SessionError::Busy),
            SessionStatus::Idle | SessionStatus::AwaitingInput => {}
        }
        self.start();
        let before = self.inner.status.replace(SessionStatus::Processing);
        let outcome = self.inner.abort.guard(self.compact_history(CompactionReason::Manual)).await;
        self.inner.status.set(before);
        match outcome {
            // `abort` leaves a busy session for its work to close, which is this.
            None => {
                self.shut_down("aborted");
                Err(SessionError::Closed)
            }
            Some(Err(error)) => Err(SessionError::Llm(error)),
            Some(Ok(_)) => Ok(()),
        }
    }

    /// Takes effect on the next model call (spec 2.7).
    pub fn set_reasoning_effort(&self, effort: Option<String>) {
        self.inner.state.borrow_mut().config.reasoning_effort = effort;
    }

    /// Adds a tool on top of the profile's; a tool of the same name is replaced (spec 3.7).
    pub fn register_tool(&self, tool: RegisteredTool) {
        self.inner.tools.borrow_mut().register(tool);
    }

    pub fn unregister_tool(&self, name: &str) -> bool {
        self.inner.tools.borrow_mut().unregister(name)
    }

    pub fn tool_names(&self) -> Vec<String> {
        self.inner.tools.borrow().names()
    }

    /// Queues a message for the model, injected after the current tool round, or at the start of
    /// the next input when idle (spec 2.6).
    pub fn steer(&self, message: impl Into<String>) {
        self.inner.state.borrow_mut().steering.push(message.into());
    }

    /// Takes back the steering messages not injected yet: those queued after the input's last
    /// tool round, which would otherwise wait for the start of the next input. A host that must
    /// not let a message wait (a child's result for its parent) delivers them another way.
    pub fn take_steering(&self) -> Vec<String> {
        self.inner.state.borrow_mut().steering.drain(..).collect()
    }

    /// Queues an input to process once the current one is done (spec 2.6).
    pub fn follow_up(&self, message: impl Into<String>) {
        self.inner.state.borrow_mut().followups.push(message.into());
    }

    /// Cancels the model call and the running tools, then closes the session. When nothing is
    /// running the session closes at once.
    pub fn abort(&self) {
        self.inner.abort.abort();
        if self.status() != SessionStatus::Processing {
            self.shut_down("aborted");
        }
    }

    /// Stops the current input, like [`abort`](Self::abort), but keeps the session: the history
    /// stays (a tool round cut short is answered with an "interrupted" result for each call, so
    /// the next request is well formed) and the session is ready for the next input. Does nothing
    /// when idle.
    pub fn interrupt(&self) {
        self.inner.interrupt.borrow().abort();
    }

    /// Closes an idle session. Closing twice is harmless.
    pub fn close(&self) {
        self.shut_down("closed");
    }

    /// Runs the agentic loop for `input` (text, or text with images), then for each queued
    /// follow-up, and says why it stopped. Images are read and checked first: one that cannot be
    /// sent is [`SessionError::Input`] before any request. Model errors end the input with `Err`;
    /// authentication and other unrecoverable errors also close the session.
    pub async fn submit(&self, input: impl Into<UserInput>) -> Result<StopReason, SessionError> {
        match self.status() {
            SessionStatus::Closed => return Err(SessionError::Closed),
            SessionStatus::Processing => return Err(SessionError::Busy),
            SessionStatus::Idle | SessionStatus::AwaitingInput => {}
        }
        self.start();
        let mut input = input.into();
        loop {
            // Boxed: the loop's state machine is then compiled once, not into every caller's
            // (the browser bundle holds the JS `submit` and the subagents' runs).
            let reason = Box::pin(self.process_input(input)).await?;
            let next = state::take_first(&mut self.inner.state.borrow_mut().followups);
            match next {
                Some(next) if reason != StopReason::Aborted => input = UserInput::new(next),
                _ => return Ok(reason),
            }
        }
    }

    fn emit(&self, data: EventData) {
        self.inner.emitter.emit(SessionEvent { timestamp: self.timestamp(), session_id: self.inner.id.clone(), data });
    }

    /// The current time as RFC 3339, formatted once per millisecond: a round emits several events
    /// within the same one.
    fn timestamp(&self) -> SharedText {
        let now = self.now();
        let mut cached = self.inner.last_timestamp.borrow_mut();
        if cached.0 != now || cached.1.is_empty() {
            *cached = (now, format_rfc3339(now).into());
        }
        cached.1.clone()
    }

    fn now(&self) -> u64 {
        self.inner.runtime.now_ms()
    }

    /// Sets what `usage` cost by the profile's catalog entry (unpriced without one).
    fn price(&self, usage: &mut Usage) {
        usage.cost_usd = self.inner.profile.model_info().and_then(|info| info.cost(usage));
    }
}
