//! The loop of spec 2.5, top to bottom: `process_input` runs model calls and tool rounds until
//! the model answers without tools (or a limit, an abort, an error ends the input); `call_model`
//! makes one call; a tool round runs each call through its stages (`tool_call.rs`) and the loop
//! folds what they come to into the input's state, which it owns.

use futures::StreamExt;

use super::compaction::CompactionReason;
use super::events::EventData;
use super::input::{resolve_images, Attached, UserInput};
use super::loop_detection::{detect_loop, signature};
use super::results::InputState;
use super::{state, Session, SessionConfig, SessionError, SessionStatus, StopReason, Turn};
use crate::abort::AbortSignal;
use crate::hooks::HookEvent;
use crate::llm::{ErrorKind, LlmError, Reason, Response, StreamAccumulator, StreamEvent, ToolChoice, ToolResult};

impl Session {
    /// Spec 2.5 `process_input`, for one input.
    pub(super) async fn process_input(&self, input: UserInput) -> Result<StopReason, SessionError> {
        let inner = &self.inner;
        // Images are read and checked before anything changes: a refused one leaves the session as it was.
        let UserInput { text: input, images } = input;
        let attached = match images.is_empty() {
            true => Attached::default(),
            false => resolve_images(images, &*inner.env, &*inner.profile).await?,
        };
        inner.status.set(SessionStatus::Processing);
        *inner.interrupt.borrow_mut() = AbortSignal::new();
        // What the input delivered and cost so far: the loop's own, lent to each tool round.
        let mut input_state = InputState { started_ms: self.now(), ..Default::default() };
        inner.retries.set(0);
        // The host's inputs only: a subagent's task is a tool call, seen by the tool hooks.
        let mut context = None;
        if inner.depth == 0 && inner.hooks.is_some() {
            let outcome = self.hook(HookEvent::UserPromptSubmit { prompt: input.clone() }).await;
            if let Some(reason) = outcome.block {
                input_state.blocked = Some(reason);
                self.finish_input(&mut input_state, StopReason::Blocked, "", None);
                inner.status.set(SessionStatus::Idle);
                self.emit(EventData::ProcessingEnd { state: SessionStatus::Idle, reason: StopReason::Blocked });
                return Ok(StopReason::Blocked);
            }
            context = outcome.context;
        }
        let task = inner.profile.reads_named_files().then(|| input.clone());
        self.push_turn(Turn::User { content: input.clone(), images: attached.parts, timestamp: self.now() });
        self.emit(EventData::UserInput { content: input, images: attached.names });
        if let Some(content) = context {
            self.push_turn(Turn::Steering { content: content.clone(), timestamp: self.now() });
            self.emit(EventData::SteeringInjected { content });
        }
        self.drain_steering();
        if !inner.cache.borrow().prompt_built {
            self.build_system_prompt().await;
        }
        let mut named = match task {
            Some(task) => self.named_files(&task).await,
            None => Vec::new(),
        };

        let mut rounds = 0;
        let mut warned_context = false;
        let mut overflowed = false;
        // The history length at which a compaction found nothing to summarise: not tried again
        // until the history grows.
        let mut futile_at = None;
        let mut final_text = String::new();
        let reason = loop {
            let config = inner.state.borrow().config.clone();
            if config.max_tool_rounds_per_input > 0 && rounds >= config.max_tool_rounds_per_input {
                self.emit(EventData::TurnLimit { limit: "max_tool_rounds_per_input".into(), count: rounds });
                break StopReason::RoundLimit;
            }
            let turns = inner.state.borrow().turns;
            if config.max_turns > 0 && turns >= config.max_turns {
                self.emit(EventData::TurnLimit { limit: "max_turns".into(), count: turns });
                break StopReason::TurnLimit;
            }
            if let Some(reason) = self.cancelled() {
                break reason;
            }

            // The files the task names are read first, as a round of calls of their own (the
            // model's requests start after them).
            let tool_calls = if named.is_empty() {
                self.refresh_request(&config, &mut input_state);
                let length = inner.state.borrow().history.len();
                if futile_at != Some(length) && self.needs_compaction(&config) {
                    // A failed summary is reported in `compaction_end`; the call is still tried.
                    match self.guard(self.compact_history(CompactionReason::Threshold)).await {
                        None => break self.cancelled().unwrap_or(StopReason::Aborted),
                        Some(Ok(0)) => futile_at = Some(length),
                        Some(_) => {}
                    }
                }
                self.emit(EventData::TurnStart { turn: turns + 1 });
                let response = match self.guard(self.call_model()).await {
                    None => break self.cancelled().unwrap_or(StopReason::Aborted),
                    Some(Ok(response)) => response,
                    // Spec appendix B: the request did not fit. Compact once and call again.
                    Some(Err(error)) if error.kind == ErrorKind::ContextLength && !overflowed => {
                        overflowed = true;
                        self.believe_stated_window(&error);
                        match self.guard(self.compact_history(CompactionReason::Overflow)).await {
                            None => break self.cancelled().unwrap_or(StopReason::Aborted),
                            Some(Ok(summarized)) if summarized > 0 => continue,
                            Some(_) => return Err(self.fail(error, &mut input_state, &final_text)),
                        }
                    }
                    Some(Err(error)) => return Err(self.fail(error, &mut input_state, &final_text)),
                };
                overflowed = false;
                let tool_calls = response.tool_calls();
                let cut_off = response.finish_reason.reason == Reason::Length;
                self.record_response(response, &mut final_text, &mut input_state);
                if !warned_context {
                    warned_context = self.check_context_usage(&config);
                }
                if tool_calls.is_empty() {
                    if cut_off {
                        break StopReason::OutputLimit;
                    }
                    match self.answer_without_result(&mut input_state) {
                        Some(reason) => break reason,
                        None => continue,
                    }
                }

                rounds += 1;
                tool_calls
            } else {
                self.named_reads_turn(std::mem::take(&mut named))
            };
            // Each call's identity, worked out once for the repeat guard and loop detection.
            let signatures: Vec<u64> = tool_calls.iter().map(signature).collect();
            let Some(results) = self.guard(self.execute_tool_calls(&tool_calls, &signatures, &config, &mut input_state)).await
            else {
                if !inner.abort.is_aborted() {
                    let message = "Interrupted by the user before this tool call finished.";
                    let results = tool_calls.iter().map(|call| ToolResult::new(call.id.clone(), message, true)).collect();
                    self.push_turn(Turn::ToolResults { results, timestamp: self.now() });
                }
                break self.cancelled().unwrap_or(StopReason::Aborted);
            };
            self.push_turn(Turn::ToolResults { results, timestamp: self.now() });
            if let Some(reason) = self.delivery_stop(&input_state) {
                break reason;
            }
            self.drain_steering();
            if config.enable_loop_detection {
                self.detect_loop(&signatures, config.loop_detection_window);
            }
        };
        self.finish_input(&mut input_state, reason, &final_text, None);

        if reason == StopReason::Aborted {
            self.emit(EventData::ProcessingEnd { state: SessionStatus::Closed, reason });
            self.shut_down("aborted");
            return Ok(reason);
        }
        let status = if reason == StopReason::Completed && final_text.trim_end().ends_with('?') {
            SessionStatus::AwaitingInput
        } else {
            SessionStatus::Idle
        };
        inner.status.set(status);
        self.emit(EventData::ProcessingEnd { state: status, reason });
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
    fn guard<F: std::future::Future>(&self, work: F) -> crate::abort::Guarded<F> {
        self.inner.abort.guard(work).or(self.inner.interrupt.borrow().clone())
    }

    /// Adds `turn` to the history and to the kept request.
    pub(super) fn push_turn(&self, turn: Turn) {
        self.inner.cache.borrow_mut().push(&turn);
        self.inner.state.borrow_mut().history.push(turn);
    }

    fn drain_steering(&self) {
        loop {
            let Some(content) = state::take_first(&mut self.inner.state.borrow_mut().steering) else { break };
            self.push_turn(Turn::Steering { content: content.clone(), timestamp: self.now() });
            self.emit(EventData::SteeringInjected { content });
        }
    }

    /// Spec 6.3: the system prompt is built once, when the session starts (or is restored),
    /// not at every input: a prompt that changed with each edit (its git status) or each day
    /// would defeat the provider's prompt cache for the whole history behind it.
    async fn build_system_prompt(&self) {
        let inner = &self.inner;
        // Begun by `prepare_prompt`, or begun now.
        let pending = inner.pending_prompt.borrow_mut().take();
        let base = match pending {
            Some(pending) => pending.finish().await,
            None => super::prepared_prompt::base_prompt(inner, self.now()).await,
        };
        let prompt = base + self.result_instructions();
        inner.cache.borrow_mut().set_system_prompt(prompt);
    }

    /// Brings the kept request up to date with settings that may change between calls.
    fn refresh_request(&self, config: &SessionConfig, input: &mut InputState) {
        let inner = &self.inner;
        let mut cache = inner.cache.borrow_mut();
        cache.request.reasoning_effort.clone_from(&config.reasoning_effort);
        cache.request.max_tokens = config.max_output_tokens;
        let tools = inner.tools.borrow();
        if cache.tools_generation != Some(tools.generation()) {
            cache.set_tools(tools.definitions(), tools.generation());
        }
        // After a refused repeat, one request without tool calls, so that the model answers. Not
        // with an output schema, whose only way out is a call to submit_result.
        let answer_now = std::mem::take(&mut input.answer_now) && !self.requires_result();
        if !cache.request.tools.is_empty() {
            cache.request.tool_choice = Some(if answer_now { ToolChoice::None } else { ToolChoice::Auto });
        }
    }

    /// One model call, streamed when the profile streams, with text and reasoning deltas forwarded as events.
    // The request is borrowed across the call instead of cloned (a clone costs as much as the
    // history). Safe: only the loop itself, which is suspended here, ever borrows it mutably.
    #[allow(clippy::await_holding_refcell_ref)]
    async fn call_model(&self) -> Result<Response, LlmError> {
        let inner = &self.inner;
        let cache = inner.cache.borrow();
        let request = &cache.request;
        let provider = inner.client.provider().to_owned();
        if !inner.profile.supports_streaming() {
            let response = inner.client.complete(request).await?;
            if let Some(reasoning) = response.reasoning().filter(|reasoning| !reasoning.is_empty()) {
                self.emit(EventData::AssistantReasoningDelta { delta: reasoning });
            }
            let text = response.text();
            if !text.is_empty() {
                self.emit(EventData::AssistantTextStart { response_id: Some(response.id.clone()) });
                self.emit(EventData::AssistantTextDelta { delta: text });
            }
            return Ok(response);
        }
        let mut events = inner.client.stream(request).await?;
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
                StreamEvent::ReasoningDelta { delta, .. } if !delta.is_empty() => {
                    self.emit(EventData::AssistantReasoningDelta { delta: delta.clone() });
                }
                _ => {}
            }
            acc.push(event);
        }
        acc.finish(&provider)
    }

    fn record_response(&self, mut response: Response, final_text: &mut String, input: &mut InputState) {
        self.price(&mut response.usage);
        let inner = &self.inner;
        let text = response.text();
        let reasoning = response.reasoning();
        let tool_call_count = response.message.tool_calls().count();
        let total_usage = {
            let mut state = inner.state.borrow_mut();
            state.total_usage += &response.usage;
            state.turns += 1;
            state.total_usage.clone()
        };
        inner.cache.borrow_mut().known_usage(response.usage.input_tokens);
        input.turns += 1;
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
    /// whether it warned. With compaction on, the session compacts before it gets there.
    fn check_context_usage(&self, config: &SessionConfig) -> bool {
        let window = self.context_window(config);
        let tokens = (self.inner.cache.borrow().history_chars / 4) as u64;
        if window == 0 || tokens.saturating_mul(10) <= window.saturating_mul(8) {
            return false;
        }
        // Rounded to the nearest percent in integers: printing an f64 would pull core's float
        // formatter (14 KB) into the browser bundle for this one message.
        // Past the check above, the window is at most 1.25 times the tokens: nothing overflows.
        let percent = (tokens * 200 + window) / (2 * window);
        self.emit(EventData::Warning { message: format!("Context usage at ~{percent}% of context window") });
        true
    }

    fn detect_loop(&self, signatures: &[u64], window: usize) {
        let detected = {
            let mut state = self.inner.state.borrow_mut();
            let recent = &mut state.recent_calls;
            recent.extend_from_slice(signatures);
            recent.drain(..recent.len().saturating_sub(window));
            let detected = detect_loop(recent, window);
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
    fn fail(&self, error: LlmError, input: &mut InputState, final_text: &str) -> SessionError {
        let closes = !error.retryable && error.kind != ErrorKind::ContextLength;
        if error.kind == ErrorKind::ContextLength {
            self.emit(EventData::Warning {
                message: format!("The conversation no longer fits the model's context window: {error}"),
            });
        } else {
            self.emit(EventData::Error { message: error.to_string(), error_kind: Some(error.kind) });
        }
        self.finish_input(input, StopReason::Error, final_text, Some(&error));
        if closes {
            self.emit(EventData::ProcessingEnd { state: SessionStatus::Closed, reason: StopReason::Error });
            self.shut_down("error");
        } else {
            self.inner.status.set(SessionStatus::Idle);
            self.emit(EventData::ProcessingEnd { state: SessionStatus::Idle, reason: StopReason::Error });
        }
        SessionError::Llm(error)
    }
}
