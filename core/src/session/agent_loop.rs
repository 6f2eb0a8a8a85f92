//! The loop of spec 2.5, top to bottom: `process_input` runs model calls and tool rounds until
//! the model answers without tools (or a limit, an abort, an error ends the input); `call_model`
//! makes one call; the tool round looks each call up, validates it, runs it and truncates what
//! the model gets back (spec 3.8). Every failure of a tool becomes an error result the model sees.

use std::borrow::Cow;
use std::rc::Rc;

use futures::StreamExt;

use super::compaction::CompactionReason;
use super::config::DEFAULT_COMMAND_TIMEOUT_MS;
use super::events::{Decision, EventData};
use super::input::{resolve_images, Attached, UserInput};
use super::loop_detection::{self, detect_loop, signature};
use super::truncation::truncate_tool_output;
use super::{repair, repeats, results, state, Session, SessionConfig, SessionError, SessionStatus, StopReason, Turn};
use crate::abort::AbortSignal;
use crate::approval::{ApprovalRequest, CallFacts};
use crate::hooks::HookEvent;
use crate::join::join_all;
use crate::llm::{
    ErrorKind, LlmError, Reason, Response, SharedText, StreamAccumulator, StreamEvent, ToolCall, ToolChoice, ToolResult,
};
use crate::profiles::PromptContext;
use crate::runtime::format_rfc3339;
use crate::tools::{ToolContext, ToolExecutor};

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
        *inner.input.borrow_mut() = results::InputState { started_ms: self.now(), ..Default::default() };
        // The host's inputs only: a subagent's task is a tool call, seen by the tool hooks.
        let mut context = None;
        if inner.depth == 0 && inner.hooks.is_some() {
            let outcome = self.hook(HookEvent::UserPromptSubmit { prompt: input.clone() }).await;
            if let Some(reason) = outcome.block {
                inner.input.borrow_mut().blocked = Some(reason);
                self.finish_input(StopReason::Blocked, "", None);
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
                self.refresh_request(&config);
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
                            Some(_) => return Err(self.fail(error, &final_text)),
                        }
                    }
                    Some(Err(error)) => return Err(self.fail(error, &final_text)),
                };
                overflowed = false;
                let tool_calls = response.tool_calls();
                let cut_off = response.finish_reason.reason == Reason::Length;
                self.record_response(response, &mut final_text);
                if !warned_context {
                    warned_context = self.check_context_usage(&config);
                }
                if tool_calls.is_empty() {
                    if cut_off {
                        break StopReason::OutputLimit;
                    }
                    match self.answer_without_result() {
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
            let Some(results) = self.guard(self.execute_tool_calls(&tool_calls, &signatures, &config)).await else {
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
                self.detect_loop(&signatures, config.loop_detection_window);
            }
        };
        self.finish_input(reason, &final_text, None);

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
        let today = format_rfc3339(self.now())[..10].to_owned();
        let ctx = PromptContext { env: &*inner.env, today, user_instructions: inner.user_instructions.as_deref() };
        let prompt = inner.profile.build_system_prompt(&ctx).await + self.result_instructions();
        inner.cache.borrow_mut().set_system_prompt(prompt);
    }

    /// Brings the kept request up to date with settings that may change between calls.
    fn refresh_request(&self, config: &SessionConfig) {
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
        let answer_now = std::mem::take(&mut inner.input.borrow_mut().answer_now) && !self.requires_result();
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

    fn record_response(&self, mut response: Response, final_text: &mut String) {
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
            self.emit(EventData::ProcessingEnd { state: SessionStatus::Closed, reason: StopReason::Error });
            self.shut_down("error");
        } else {
            self.inner.status.set(SessionStatus::Idle);
            self.emit(EventData::ProcessingEnd { state: SessionStatus::Idle, reason: StopReason::Error });
        }
        SessionError::Llm(error)
    }

    /// Runs one round of tool calls, concurrently when the profile allows it. Results come back
    /// in call order either way; `signatures` are the calls' identities, in the same order.
    async fn execute_tool_calls(&self, calls: &[ToolCall], signatures: &[u64], config: &SessionConfig) -> Vec<ToolResult> {
        let calls = calls.iter().zip(signatures.iter().copied());
        if self.inner.profile.supports_parallel_tool_calls() && signatures.len() > 1 {
            join_all(calls.map(|(call, signature)| self.execute_single_tool(call, signature, config))).await
        } else {
            let mut results = Vec::with_capacity(signatures.len());
            for (call, signature) in calls {
                results.push(self.execute_single_tool(call, signature, config).await);
            }
            results
        }
    }

    /// Runs one call; `signature` is its identity as the model sent it (repaired or rewritten by a
    /// hook, it is worked out again).
    async fn execute_single_tool(&self, call: &ToolCall, signature: u64, config: &SessionConfig) -> ToolResult {
        let repaired = self.repaired(call);
        let mut signature = repaired.as_ref().map_or(signature, loop_detection::signature);
        let call = repaired.as_ref().unwrap_or(call);
        let started = self.now();
        self.emit(EventData::ToolCallStart {
            call_id: call.id.clone(),
            tool_name: call.name.clone(),
            arguments: call.arguments.clone(),
        });
        self.inner.input.borrow_mut().tool_calls += 1;
        let error = |message: String| {
            self.inner.input.borrow_mut().failed += 1;
            self.emit(EventData::ToolCallEnd {
                call_id: call.id.clone(),
                tool_name: call.name.clone(),
                output: None,
                error: Some(message.clone()),
                duration_ms: self.now().saturating_sub(started),
            });
            ToolResult::new(call.id.clone(), message, true)
        };

        let decision = |decision: Decision, reason: Option<String>, source: &str| {
            self.emit(EventData::ToolDecision {
                call_id: call.id.clone(),
                tool_name: call.name.clone(),
                decision,
                reason,
                source: source.to_owned(),
            })
        };
        let mut executor = match self.checked_executor(call) {
            Ok(executor) => executor,
            Err((source, message)) => {
                decision(Decision::Deny, Some(message.clone()), source);
                return error(message);
            }
        };
        if config.enable_repeat_guard {
            let refusal = self.inner.input.borrow().repeats.refusal(signature, &call.name);
            if let Some(repeats::Refusal { message, answer_now }) = refusal {
                self.inner.input.borrow_mut().answer_now |= answer_now;
                decision(Decision::Deny, Some(message.clone()), "repeat");
                return error(message);
            }
        }
        let rewritten;
        let mut call = call;
        if self.inner.hooks.is_some() {
            let event = HookEvent::PreToolUse {
                call_id: call.id.clone(),
                tool_name: call.name.clone(),
                tool_input: call.arguments.clone(),
            };
            let outcome = self.hook(event).await;
            if let Some(reason) = outcome.block {
                decision(Decision::Deny, Some(reason.clone()), "hook");
                return error(
                    [
                        "Not run: a pre_tool_use hook blocked the call to ",
                        &call.name,
                        " (",
                        &reason,
                        "). Do something else, or ask the user.",
                    ]
                    .concat(),
                );
            }
            if let Some(arguments) = outcome.tool_input {
                rewritten = ToolCall { arguments, raw_arguments: None, ..call.clone() };
                call = &rewritten;
                signature = loop_detection::signature(call);
                executor = match self.checked_executor(call) {
                    Ok(executor) => executor,
                    Err((_, message)) => {
                        let message = ["The arguments a pre_tool_use hook gave are not valid: ", &message].concat();
                        decision(Decision::Deny, Some(message.clone()), "hook");
                        return error(message);
                    }
                };
            }
        }
        let facts = CallFacts::resolved(&call.name, &call.arguments, &*self.inner.env).await;
        let on_ask = |request: &ApprovalRequest| {
            self.emit(EventData::ApprovalRequested {
                call_id: call.id.clone(),
                tool_name: call.name.clone(),
                reason: request.reason.clone(),
                always: request.always.describe(),
            })
        };
        let decided = self.inner.gate.decide(&call.id, &call.arguments, facts, on_ask).await;
        if !decided.allowed {
            let reason = decided.reason.unwrap_or_default();
            decision(Decision::Deny, Some(reason.clone()), decided.source);
            return error(
                ["Not run: the call to ", &call.name, " was denied (", &reason, "). Do something else, or ask the user."]
                    .concat(),
            );
        }
        decision(Decision::Allow, decided.reason, decided.source);

        let on_output: Rc<dyn Fn(&str)> = {
            let session = self.clone();
            let call_id = call.id.clone();
            Rc::new(move |delta: &str| {
                let delta = session.inner.redactions.apply(delta.to_owned());
                session.emit(EventData::ToolCallOutputDelta { call_id: call_id.clone(), delta })
            })
        };
        let ctx = ToolContext {
            env: &*self.inner.env,
            default_command_timeout_ms: config
                .default_command_timeout_ms
                .or_else(|| self.inner.profile.default_command_timeout_ms())
                .unwrap_or(DEFAULT_COMMAND_TIMEOUT_MS),
            max_command_timeout_ms: config.max_command_timeout_ms,
            on_output: Some(on_output),
            files_seen: self.inner.profile.requires_read_before_write().then_some(&self.inner.files_seen),
        };
        let (text, image, failed) = match executor.execute(&call.arguments, &ctx).await {
            Ok(output) => (output.text, output.image, false),
            Err(e) => (format!("Tool error ({}): {e}", call.name), None, true),
        };
        let text = self.inner.redactions.apply(text);
        let flagged = match self.inner.hooks.is_some() {
            true => self.post_tool_use(call, &text, failed).await,
            false => None,
        };
        if failed {
            let repeated =
                config.enable_repeat_guard && self.inner.input.borrow_mut().repeats.record(signature, &call.name, &text, true);
            return error(match (flagged, repeated) {
                (Some(reason), _) => [&text, "\n\n", &reason].concat(),
                (None, true) => [&text, "\n\n", repeats::FAILED_NOTE].concat(),
                (None, false) => text,
            });
        }
        if let Some(reason) = flagged {
            self.inner.input.borrow_mut().failed += 1;
            let content = [&truncate_tool_output(&text, &call.name, config), "\n\n", &reason].concat();
            self.emit(EventData::ToolCallEnd {
                call_id: call.id.clone(),
                tool_name: call.name.clone(),
                output: Some(text.into()),
                error: Some(reason),
                duration_ms: self.now().saturating_sub(started),
            });
            return ToolResult::new(call.id.clone(), content, true);
        }
        let repeated =
            config.enable_repeat_guard && self.inner.input.borrow_mut().repeats.record(signature, &call.name, &text, false);
        // The event carries the whole output; the model gets the same text, shared, unless it
        // was cut or annotated.
        let text = SharedText::from(text);
        let content = match (truncate_tool_output(&text, &call.name, config), repeated) {
            (Cow::Borrowed(_), false) => text.clone(),
            (content, false) => content.into(),
            (content, true) => [&content, "\n\n", repeats::NOTE].concat().into(),
        };
        let mut result = ToolResult::new(call.id.clone(), content, false);
        if let Some(image) = image {
            result.image_media_type = image.media_type;
            result.image_data = image.data;
        }
        self.inner.input.borrow_mut().succeeded += 1;
        self.emit(EventData::ToolCallEnd {
            call_id: call.id.clone(),
            tool_name: call.name.clone(),
            output: Some(text),
            error: None,
            duration_ms: self.now().saturating_sub(started),
        });
        result
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

    /// The call as its model meant it, when the profile reads garbled calls leniently
    /// (`repair.rs`); what was repaired is said in a warning.
    fn repaired(&self, call: &ToolCall) -> Option<ToolCall> {
        if !self.inner.profile.repairs_tool_calls() {
            return None;
        }
        let (fixed, how) = {
            let tools = self.inner.tools.borrow();
            repair::repair(call, |name| tools.get(name).is_some())?
        };
        let message = ["Read the ", &fixed.name, " call ", &call.id, " leniently: repaired ", &how.join(", "), "."].concat();
        self.emit(EventData::Warning { message });
        Some(fixed)
    }

    /// Looks the tool up and validates the arguments against its schema, while the registry is
    /// borrowed (both are synchronous): only the executor is kept, never a copy of the tool. A
    /// refusal says which check refused (the `source` of the `tool_decision` event) and why.
    fn checked_executor(&self, call: &ToolCall) -> Result<Rc<dyn ToolExecutor>, (&'static str, String)> {
        let tools = self.inner.tools.borrow();
        let Some(tool) = tools.get(&call.name) else {
            let available = tools.names().join(", ");
            if call.name.trim().is_empty() {
                return Err(("registry", format!("The tool call names no tool. Call one of: {available}.")));
            }
            return Err(("registry", format!("Unknown tool: {}. Available tools: {available}.", call.name)));
        };
        if call.arguments.is_null() {
            let raw = call.raw_arguments.as_deref().unwrap_or("");
            // `from_slice`, as response bodies are read: `from_str` would put a second JSON reader in the browser bundle.
            let reason =
                serde_json::from_slice::<serde_json::Value>(raw.as_bytes()).err().map_or_else(String::new, |e| format!(" ({e})"));
            let message = format!(
                "Invalid arguments for tool {}: the arguments are not a valid JSON object{reason}. Send the arguments as one JSON object.",
                call.name
            );
            return Err(("arguments", message));
        }
        if let Err(problems) = tool.schema().validate(&call.arguments) {
            let list: Vec<String> = problems.iter().map(|p| format!("- {p}")).collect();
            if call.name == super::SUBMIT_RESULT && self.requires_result() {
                return Err(("schema", self.refused_submission(&list)));
            }
            return Err(("schema", format!("Invalid arguments for tool {}:\n{}", call.name, list.join("\n"))));
        }
        Ok(tool.executor.clone())
    }
}
