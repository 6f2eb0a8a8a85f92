//! `Session`: the agentic loop of spec section 2.
//!
//! A session holds the history, calls the model through an [`LlmClient`], runs the tools the
//! model asks for in an [`ExecutionEnvironment`], and reports every step as a [`SessionEvent`].
//! It is a cheap handle (`Clone`): while one task awaits [`Session::submit`], another may
//! [`steer`](Session::steer), queue a [`follow_up`](Session::follow_up), change the reasoning
//! effort or [`abort`](Session::abort).
//!
//! The request sent to the model is kept between calls and only appended to, so a round costs
//! the same whether it is the 10th or the 2000th.

mod config;
mod events;
mod loop_detection;
mod outcome;
mod results;
mod subagents;
mod tool_calls;
mod truncation;
mod turns;

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;

use futures::channel::mpsc::UnboundedReceiver;
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use config::SessionConfig;
pub use events::{Decision, EventData, SessionEvent, StopReason};
pub use loop_detection::{detect_loop, signature};
pub use outcome::{AgentOutcome, Evidence, EvidenceKind, OutcomeMetrics, OutcomeStatus};
pub use results::{check_output_schema, RunResult, GIVE_UP, SUBMIT_RESULT};
pub use subagents::{SubAgentResult, SubAgentStatus, SUBAGENT_TOOLS};
pub use truncation::{
    default_char_limit, default_line_limit, truncate_lines, truncate_output, truncate_tool_output, TruncationMode,
};
pub use turns::Turn;

use crate::abort::AbortSignal;
use crate::env::ExecutionEnvironment;
use crate::llm::{
    ErrorKind, LlmClient, LlmError, Message, Request, Response, RetryPolicy, RetryingClient, StreamAccumulator, StreamEvent,
    ToolChoice, ToolResult, Usage,
};
use crate::profile::{PromptContext, ProviderProfile};
use crate::runtime::{format_rfc3339, Runtime};
use crate::schema::SchemaError;
use crate::tools::{RegisteredTool, ToolRegistry};
use events::Emitter;

/// Where a session is in its life (spec 2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionState {
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
}

/// Builds a [`Session`] from its seams.
pub struct SessionBuilder {
    profile: Rc<dyn ProviderProfile>,
    env: Rc<dyn ExecutionEnvironment>,
    client: Rc<dyn LlmClient>,
    runtime: Rc<dyn Runtime>,
    config: SessionConfig,
    id: Option<String>,
    user_instructions: Option<String>,
    model: Option<String>,
    /// How deep in a tree of subagents this session is (0: started by the host).
    depth: usize,
    /// A subagent reports into its parent's event stream.
    emitter: Option<Rc<Emitter>>,
    retries: Option<RetryPolicy>,
    output_schema: Option<Value>,
}

impl SessionBuilder {
    /// A model to use instead of the profile's.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    pub fn config(mut self, config: SessionConfig) -> Self {
        self.config = config;
        self
    }

    /// A fixed session id (a random UUID otherwise).
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Instructions appended last to the system prompt (spec 6.1, layer 5).
    pub fn user_instructions(mut self, text: impl Into<String>) -> Self {
        self.user_instructions = Some(text.into());
        self
    }

    /// Requires a structured result of every input: the session offers `submit_result` with
    /// `schema` as its parameters (and `give_up`), and an input succeeds only with a submission
    /// that validates. Fails when `schema` is not an object schema that compiles.
    pub fn output_schema(mut self, schema: Value) -> Result<Self, SchemaError> {
        results::check_output_schema(&schema)?;
        self.output_schema = Some(schema);
        Ok(self)
    }

    /// Retries failed model calls with `policy` (above the client, which should then not retry
    /// itself), reporting each retry as a `provider_retry` event.
    pub fn retries(mut self, policy: RetryPolicy) -> Self {
        self.retries = Some(policy);
        self
    }

    pub fn build(self) -> Session {
        let request = Request {
            model: self.model.unwrap_or_else(|| self.profile.model().to_owned()),
            messages: vec![Message::system(String::new())],
            provider: Some(self.profile.id().to_owned()),
            provider_options: self.profile.provider_options(),
            ..Request::default()
        };
        let inner = Rc::new_cyclic(|session| {
            let mut tools = self.profile.tool_registry().clone();
            if self.depth < self.config.max_subagent_depth {
                Session::register_subagent_tools(&mut tools, session);
            }
            if let Some(schema) = &self.output_schema {
                // Checked by `output_schema`, so this cannot fail.
                let _ = Session::register_result_tools(&mut tools, session, schema);
            }
            let client = match self.retries {
                Some(policy) => Session::retrying(self.client, policy, session.clone(), self.runtime.clone()),
                None => self.client,
            };
            Inner {
                id: self.id.unwrap_or_else(crate::id::random_uuid),
                profile: self.profile,
                env: self.env,
                client,
                runtime: self.runtime,
                config: RefCell::new(self.config),
                user_instructions: self.user_instructions,
                tools: RefCell::new(tools),
                tools_generation: Cell::new(None),
                state: Cell::new(SessionState::Idle),
                started: Cell::new(false),
                history: RefCell::new(Vec::new()),
                request: RefCell::new(request),
                steering: RefCell::new(VecDeque::new()),
                followups: RefCell::new(VecDeque::new()),
                output_schema: self.output_schema,
                input: RefCell::default(),
                last_result: RefCell::new(None),
                abort: AbortSignal::new(),
                interrupt: RefCell::new(AbortSignal::new()),
                emitter: self.emitter.unwrap_or_default(),
                total_usage: RefCell::new(Usage::default()),
                assistant_turns: Cell::new(0),
                history_chars: Cell::new(0),
                recent_calls: RefCell::new(VecDeque::new()),
                last_timestamp: RefCell::new((0, String::new())),
                depth: self.depth,
                subagents: RefCell::new(Vec::new()),
            }
        });
        Session { inner }
    }
}

/// The agentic loop's state and its handle for the host.
#[derive(Clone)]
pub struct Session {
    inner: Rc<Inner>,
}

struct Inner {
    id: String,
    profile: Rc<dyn ProviderProfile>,
    env: Rc<dyn ExecutionEnvironment>,
    client: Rc<dyn LlmClient>,
    runtime: Rc<dyn Runtime>,
    config: RefCell<SessionConfig>,
    user_instructions: Option<String>,
    /// The profile's tools plus any registered on this session.
    tools: RefCell<ToolRegistry>,
    /// The registry generation `request.tools` was last built from.
    tools_generation: Cell<Option<u64>>,
    state: Cell<SessionState>,
    started: Cell<bool>,
    history: RefCell<Vec<Turn>>,
    /// The next request: a system message, then the history as messages, kept in step with it.
    request: RefCell<Request>,
    steering: RefCell<VecDeque<String>>,
    followups: RefCell<VecDeque<String>>,
    /// The structure every input's result must have, if any.
    output_schema: Option<Value>,
    /// What the current input delivered and cost so far.
    input: RefCell<results::InputState>,
    last_result: RefCell<Option<RunResult>>,
    abort: AbortSignal,
    /// Stops the current input only; a fresh one for each input.
    interrupt: RefCell<AbortSignal>,
    emitter: Rc<Emitter>,
    total_usage: RefCell<Usage>,
    assistant_turns: Cell<usize>,
    history_chars: Cell<usize>,
    /// Signatures of the most recent tool calls, oldest first, at most the detection window.
    recent_calls: RefCell<VecDeque<u64>>,
    last_timestamp: RefCell<(u64, String)>,
    depth: usize,
    subagents: RefCell<Vec<subagents::SubAgent>>,
}

impl Session {
    pub fn builder(
        profile: Rc<dyn ProviderProfile>,
        env: Rc<dyn ExecutionEnvironment>,
        client: Rc<dyn LlmClient>,
        runtime: Rc<dyn Runtime>,
    ) -> SessionBuilder {
        SessionBuilder {
            profile,
            env,
            client,
            runtime,
            config: SessionConfig::default(),
            id: None,
            user_instructions: None,
            model: None,
            depth: 0,
            emitter: None,
            retries: None,
            output_schema: None,
        }
    }

    /// `client` retried by `policy`, each retry reported on the session's event stream.
    fn retrying(
        client: Rc<dyn LlmClient>,
        mut policy: RetryPolicy,
        session: std::rc::Weak<Inner>,
        runtime: Rc<dyn Runtime>,
    ) -> Rc<dyn LlmClient> {
        let host_callback = policy.on_retry.take();
        policy.on_retry = Some(Rc::new(move |error: &LlmError, attempt: u32, seconds: f64| {
            if let Some(inner) = session.upgrade() {
                let data = EventData::ProviderRetry {
                    attempt,
                    delay_ms: (seconds * 1000.0).round() as u64,
                    error_kind: error.kind,
                    message: error.to_string(),
                };
                inner.input.borrow_mut().retries += 1;
                Session { inner }.emit(data);
            }
            if let Some(callback) = &host_callback {
                callback(error, attempt, seconds);
            }
        }));
        Rc::new(RetryingClient::new(client, policy, runtime))
    }

    pub fn id(&self) -> &str {
        &self.inner.id
    }

    pub fn state(&self) -> SessionState {
        self.inner.state.get()
    }

    /// A new subscription to the session's events, from now on. Subscribe before the first
    /// [`submit`](Self::submit) to see `SESSION_START`.
    pub fn events(&self) -> UnboundedReceiver<SessionEvent> {
        self.inner.emitter.subscribe()
    }

    pub fn history(&self) -> Vec<Turn> {
        self.inner.history.borrow().clone()
    }

    pub fn config(&self) -> SessionConfig {
        self.inner.config.borrow().clone()
    }

    /// How the last input ended (what its `result` event carried); `None` before the first ends.
    pub fn last_result(&self) -> Option<RunResult> {
        self.inner.last_result.borrow().clone()
    }

    /// Token usage summed over every model call so far.
    pub fn total_usage(&self) -> Usage {
        self.inner.total_usage.borrow().clone()
    }

    pub fn environment(&self) -> Rc<dyn ExecutionEnvironment> {
        self.inner.env.clone()
    }

    /// Takes effect on the next model call (spec 2.7).
    pub fn set_reasoning_effort(&self, effort: Option<String>) {
        self.inner.config.borrow_mut().reasoning_effort = effort;
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
        self.inner.steering.borrow_mut().push_back(message.into());
    }

    /// Takes back the steering messages not injected yet: those queued after the input's last
    /// tool round, which would otherwise wait for the start of the next input. A host that must
    /// not let a message wait (a child's result for its parent) delivers them another way.
    pub fn take_steering(&self) -> Vec<String> {
        self.inner.steering.borrow_mut().drain(..).collect()
    }

    /// Queues an input to process once the current one is done (spec 2.6).
    pub fn follow_up(&self, message: impl Into<String>) {
        self.inner.followups.borrow_mut().push_back(message.into());
    }

    /// Cancels the model call and the running tools, then closes the session. When nothing is
    /// running the session closes at once.
    pub fn abort(&self) {
        self.inner.abort.abort();
        if self.state() != SessionState::Processing {
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

    /// Runs the agentic loop for `input`, then for each queued follow-up, and says why it
    /// stopped. Model errors end the input with `Err`; authentication and other unrecoverable
    /// errors also close the session.
    pub async fn submit(&self, input: impl Into<String>) -> Result<StopReason, SessionError> {
        match self.state() {
            SessionState::Closed => return Err(SessionError::Closed),
            SessionState::Processing => return Err(SessionError::Busy),
            SessionState::Idle | SessionState::AwaitingInput => {}
        }
        self.start();
        let mut input = input.into();
        loop {
            let reason = self.process_input(input).await?;
            let next = self.inner.followups.borrow_mut().pop_front();
            match next {
                Some(next) if reason != StopReason::Aborted => input = next,
                _ => return Ok(reason),
            }
        }
    }

    fn start(&self) {
        if !self.inner.started.replace(true) {
            self.emit(EventData::SessionStart {
                provider: self.inner.profile.id().to_owned(),
                model: self.inner.profile.model().to_owned(),
                working_directory: self.inner.env.working_directory(),
            });
        }
    }

    fn shut_down(&self, reason: &str) {
        if self.state() == SessionState::Closed {
            return;
        }
        self.start();
        self.inner.state.set(SessionState::Closed);
        self.close_subagents();
        self.emit(EventData::SessionEnd { state: SessionState::Closed, reason: reason.to_owned() });
    }

    fn emit(&self, data: EventData) {
        self.inner.emitter.emit(SessionEvent { timestamp: self.timestamp(), session_id: self.inner.id.clone(), data });
    }

    /// The current time as RFC 3339, formatted once per millisecond: a round emits several events
    /// within the same one.
    fn timestamp(&self) -> String {
        let now = self.now();
        let mut cached = self.inner.last_timestamp.borrow_mut();
        if cached.0 != now || cached.1.is_empty() {
            *cached = (now, format_rfc3339(now));
        }
        cached.1.clone()
    }

    fn push_turn(&self, turn: Turn) {
        let inner = &self.inner;
        inner.history_chars.set(inner.history_chars.get() + turn.approx_chars());
        turn.append_messages(&mut inner.request.borrow_mut().messages);
        inner.history.borrow_mut().push(turn);
    }

    fn now(&self) -> u64 {
        self.inner.runtime.now_ms()
    }

    fn drain_steering(&self) {
        loop {
            let Some(content) = self.inner.steering.borrow_mut().pop_front() else { break };
            self.push_turn(Turn::Steering { content: content.clone(), timestamp: self.now() });
            self.emit(EventData::SteeringInjected { content });
        }
    }

    /// Spec 2.5 `process_input`, for one input.
    async fn process_input(&self, input: String) -> Result<StopReason, SessionError> {
        let inner = &self.inner;
        inner.state.set(SessionState::Processing);
        *inner.interrupt.borrow_mut() = AbortSignal::new();
        *inner.input.borrow_mut() = results::InputState { started_ms: self.now(), ..Default::default() };
        self.push_turn(Turn::User { content: input.clone(), timestamp: self.now() });
        self.emit(EventData::UserInput { content: input });
        self.drain_steering();
        self.refresh_system_prompt().await;

        let mut rounds = 0;
        let mut warned_context = false;
        let mut final_text = String::new();
        let reason = loop {
            let config = inner.config.borrow().clone();
            if config.max_tool_rounds_per_input > 0 && rounds >= config.max_tool_rounds_per_input {
                self.emit(EventData::TurnLimit { limit: "max_tool_rounds_per_input".into(), count: rounds });
                break StopReason::RoundLimit;
            }
            let turns = inner.assistant_turns.get();
            if config.max_turns > 0 && turns >= config.max_turns {
                self.emit(EventData::TurnLimit { limit: "max_turns".into(), count: turns });
                break StopReason::TurnLimit;
            }
            if let Some(reason) = self.cancelled() {
                break reason;
            }

            self.refresh_request(&config);
            let turn = turns + 1;
            self.emit(EventData::TurnStart { turn });
            let response = match self.guard(self.call_model()).await {
                None => break self.cancelled().unwrap_or(StopReason::Aborted),
                Some(Ok(response)) => response,
                Some(Err(error)) => return Err(self.fail(error, &final_text)),
            };
            let tool_calls = response.tool_calls();
            self.record_response(response, &mut final_text);
            if !warned_context {
                warned_context = self.check_context_usage();
            }
            if tool_calls.is_empty() {
                match self.answer_without_result() {
                    Some(reason) => break reason,
                    None => continue,
                }
            }

            rounds += 1;
            let Some(results) = self.guard(self.execute_tool_calls(&tool_calls, &config)).await else {
                if !inner.abort.is_aborted() {
                    let message = "Interrupted by the user before this tool call finished.";
                    let results = tool_calls.iter().map(|call| ToolResult::new(call.id.clone(), message, true)).collect();
                    self.push_turn(Turn::ToolResults { results, timestamp: self.now() });
                }
                break self.cancelled().unwrap_or(StopReason::Aborted);
            };
            self.push_turn(Turn::ToolResults { results, timestamp: self.now() });
            if let Some(reason) = self.delivery_stop() {
                break reason;
            }
            self.drain_steering();
            if config.enable_loop_detection {
                self.detect_loop(&tool_calls, config.loop_detection_window);
            }
        };
        self.finish_input(reason, &final_text, None);

        if reason == StopReason::Aborted {
            self.emit(EventData::ProcessingEnd { state: SessionState::Closed, reason });
            self.shut_down("aborted");
            return Ok(reason);
        }
        let state = if reason == StopReason::Completed && final_text.trim_end().ends_with('?') {
            SessionState::AwaitingInput
        } else {
            SessionState::Idle
        };
        inner.state.set(state);
        self.emit(EventData::ProcessingEnd { state, reason });
        Ok(reason)
    }

    /// Why the current input must stop now, if it must.
    fn cancelled(&self) -> Option<StopReason> {
        if self.inner.abort.is_aborted() {
            Some(StopReason::Aborted)
        } else if self.inner.interrupt.borrow().is_aborted() {
            Some(StopReason::Interrupted)
        } else {
            None
        }
    }

    /// Runs `work` unless the session is aborted or the input interrupted first.
    async fn guard<T>(&self, work: impl std::future::Future<Output = T>) -> Option<T> {
        let interrupt = self.inner.interrupt.borrow().clone();
        self.inner.abort.guard(interrupt.guard(work)).await.flatten()
    }

    async fn refresh_system_prompt(&self) {
        let inner = &self.inner;
        let today = format_rfc3339(self.now())[..10].to_owned();
        let ctx = PromptContext { env: &*inner.env, today, user_instructions: inner.user_instructions.as_deref() };
        let prompt = inner.profile.build_system_prompt(&ctx).await + self.result_instructions();
        inner.request.borrow_mut().messages[0] = Message::system(prompt);
    }

    /// Brings the kept request up to date with settings that may change between calls.
    fn refresh_request(&self, config: &SessionConfig) {
        let inner = &self.inner;
        let mut request = inner.request.borrow_mut();
        request.reasoning_effort.clone_from(&config.reasoning_effort);
        request.max_tokens = config.max_output_tokens;
        let tools = inner.tools.borrow();
        if inner.tools_generation.get() != Some(tools.generation()) {
            request.tools = tools.definitions();
            request.tool_choice = (!request.tools.is_empty()).then_some(ToolChoice::Auto);
            inner.tools_generation.set(Some(tools.generation()));
        }
    }

    /// One model call, streamed when the profile streams, with text deltas forwarded as events.
    // The request is borrowed across the call instead of cloned (a clone costs as much as the
    // history). Safe: only the loop itself, which is suspended here, ever borrows it mutably.
    #[allow(clippy::await_holding_refcell_ref)]
    async fn call_model(&self) -> Result<Response, LlmError> {
        let inner = &self.inner;
        let request = inner.request.borrow();
        let provider = inner.client.provider().to_owned();
        if !inner.profile.supports_streaming() {
            let response = inner.client.complete(&request).await?;
            let text = response.text();
            if !text.is_empty() {
                self.emit(EventData::AssistantTextStart { response_id: Some(response.id.clone()) });
                self.emit(EventData::AssistantTextDelta { delta: text });
            }
            return Ok(response);
        }
        let mut events = inner.client.stream(&request).await?;
        let mut acc = StreamAccumulator::new();
        let (mut response_id, mut text_started) = (None, false);
        while let Some(event) = events.next().await {
            match &event {
                StreamEvent::StreamStart { id, .. } => response_id.clone_from(id),
                StreamEvent::TextDelta { delta, .. } => {
                    if !text_started {
                        text_started = true;
                        self.emit(EventData::AssistantTextStart { response_id: response_id.clone() });
                    }
                    self.emit(EventData::AssistantTextDelta { delta: delta.clone() });
                }
                _ => {}
            }
            acc.push(&event);
        }
        acc.finish(&provider)
    }

    fn record_response(&self, response: Response, final_text: &mut String) {
        let inner = &self.inner;
        let text = response.text();
        let reasoning = response.reasoning();
        let tool_call_count = response.message.tool_calls().count();
        let total_usage = {
            let mut total = inner.total_usage.borrow_mut();
            *total += &response.usage;
            total.clone()
        };
        inner.assistant_turns.set(inner.assistant_turns.get() + 1);
        inner.input.borrow_mut().turns += 1;
        let usage = response.usage.clone();
        self.push_turn(Turn::Assistant {
            message: response.message,
            usage: response.usage,
            response_id: (!response.id.is_empty()).then_some(response.id),
            timestamp: self.now(),
        });
        final_text.clone_from(&text);
        self.emit(EventData::AssistantTextEnd { text, reasoning, tool_call_count, usage, total_usage });
    }

    /// Spec 5.5: warns once per input when the history nears the context window. Returns
    /// whether it warned.
    fn check_context_usage(&self) -> bool {
        let window = self.inner.profile.context_window_size();
        let approx_tokens = self.inner.history_chars.get() / 4;
        if window == 0 || approx_tokens * 10 <= window * 8 {
            return false;
        }
        // Rounded to the nearest percent in integers: printing an f64 would pull core's float
        // formatter (14 KB) into the browser bundle for this one message.
        let (tokens, window) = (approx_tokens as u64, window as u64);
        let percent = (tokens * 200 + window) / (2 * window);
        self.emit(EventData::Warning { message: format!("Context usage at ~{percent}% of context window") });
        true
    }

    fn detect_loop(&self, calls: &[crate::llm::ToolCall], window: usize) {
        let detected = {
            let mut recent = self.inner.recent_calls.borrow_mut();
            for call in calls {
                recent.push_back(signature(call));
                if recent.len() > window {
                    recent.pop_front();
                }
            }
            let detected = detect_loop(&recent, window);
            if detected {
                // Start counting afresh so the warning is not repeated every round.
                recent.clear();
            }
            detected
        };
        if detected {
            let message =
                format!("Loop detected: the last {window} tool calls follow a repeating pattern. Try a different approach.");
            self.push_turn(Turn::Steering { content: message.clone(), timestamp: self.now() });
            self.emit(EventData::LoopDetection { message });
        }
    }

    /// An LLM error ends the input. Unrecoverable ones (authentication, access, configuration,
    /// bad requests) close the session; an over-long context is a warning (spec appendix B).
    fn fail(&self, error: LlmError, final_text: &str) -> SessionError {
        let closes = !error.retryable && error.kind != ErrorKind::ContextLength;
        if error.kind == ErrorKind::ContextLength {
            self.emit(EventData::Warning {
                message: format!("The conversation no longer fits the model's context window: {error}"),
            });
        } else {
            self.emit(EventData::Error { message: error.to_string(), error_kind: Some(error.kind) });
        }
        self.finish_input(StopReason::Error, final_text, Some(&error));
        if closes {
            self.emit(EventData::ProcessingEnd { state: SessionState::Closed, reason: StopReason::Error });
            self.shut_down("error");
        } else {
            self.inner.state.set(SessionState::Idle);
            self.emit(EventData::ProcessingEnd { state: SessionState::Idle, reason: StopReason::Error });
        }
        SessionError::Llm(error)
    }
}

#[cfg(test)]
mod tests;
