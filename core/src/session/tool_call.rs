//! One tool call in named stages, and the round that runs a turn's calls. `prepare` repairs the
//! call, looks the tool up, validates the arguments and runs the repeat guard and the
//! `pre_tool_use` hooks; `decide` asks the approval policy, and for a file tool the sandbox;
//! `run` runs the tool, and a command the sandbox denied again outside it if the user allows;
//! `finalize` (`tool_finalize.rs`) redacts, runs the `post_tool_use` hooks, truncates and emits
//! the call's one `tool_call_end`. A stage that stops the call says so as a value (a [`Refusal`]), never by
//! returning past the stages after it, so every way out goes through `finalize`.

use std::borrow::Cow;
use std::cell::{RefCell, RefMut};
use std::rc::Rc;

use super::config::DEFAULT_COMMAND_TIMEOUT_MS;
use super::events::{Decision, EventData};
use super::results::InputState;
use super::{loop_detection, repair, repeats, Session, SessionConfig};
use crate::approval::{ApprovalRequest, CallFacts};
use crate::hooks::HookEvent;
use crate::join::join_all;
use crate::llm::{MediaData, ToolCall, ToolResult};
use crate::sandbox::SandboxPolicy;
use crate::tools::{ToolContext, ToolExecutor, ToolOutput};

/// A round of calls, which may run concurrently. The input's state is borrowed for the round and
/// shared by its calls: a call's repeat guard and result attempt see the calls before it.
pub(super) struct Round<'a> {
    pub config: &'a SessionConfig,
    input: RefCell<&'a mut InputState>,
}

/// A call on its way through the stages: as it runs (repaired, or rewritten by a hook), its
/// identity for the repeat guard, and when it started.
pub(super) struct Staged<'c> {
    pub call: Cow<'c, ToolCall>,
    pub signature: u64,
    pub started: u64,
}

/// Why a call is not run: the check that refused it (the `tool_decision` source), the reason
/// that event gives, and what the model reads.
pub(super) struct Refusal {
    pub source: &'static str,
    pub reason: String,
    pub message: String,
    /// A repeat of a call that had succeeded: the next request asks for an answer.
    pub answer_now: bool,
}

impl Refusal {
    /// A refusal whose reason is what the model reads.
    fn plain(source: &'static str, message: String) -> Self {
        Self { source, reason: message.clone(), message, answer_now: false }
    }
}

/// What the tool itself returned (before redaction).
pub(super) struct Ran {
    pub text: String,
    pub image: Option<MediaData>,
    pub failed: bool,
}

/// How the stages before `finalize` left the call.
pub(super) enum Ended {
    Refused(Refusal),
    Ran(Ran),
}

/// What one call comes to, for the round to fold into the input's state.
pub(super) struct ToolCallOutcome {
    pub result: ToolResult,
    pub answer_now: bool,
}

/// What `prepare` found: the tool to run, or why the call will not run.
type Checked = Result<Rc<dyn ToolExecutor>, Refusal>;

impl<'a> Round<'a> {
    pub fn new(config: &'a SessionConfig, input: &'a mut InputState) -> Self {
        Self { config, input: RefCell::new(input) }
    }

    /// The input's state, borrowed by one stage at a time and never across an await.
    pub fn input(&self) -> RefMut<'_, InputState> {
        RefMut::map(self.input.borrow_mut(), |input| &mut **input)
    }

    /// Counts the call as it ends (its result says whether it failed) and hands its result on.
    fn fold(&self, outcome: ToolCallOutcome) -> ToolResult {
        let mut input = self.input();
        match outcome.result.is_error {
            true => input.failed += 1,
            false => input.succeeded += 1,
        }
        input.answer_now |= outcome.answer_now;
        outcome.result
    }
}

impl Session {
    /// Runs one round of tool calls, concurrently when the profile allows it. Results come back
    /// in call order either way; `signatures` are the calls' identities, in the same order. Each
    /// call is folded into `input` as it ends, so an aborted round still counts the ones that did.
    pub(super) async fn execute_tool_calls(
        &self,
        calls: &[ToolCall],
        signatures: &[u64],
        config: &SessionConfig,
        input: &mut InputState,
    ) -> Vec<ToolResult> {
        let round = &Round::new(config, input);
        let calls = calls.iter().zip(signatures.iter().copied());
        let one = |(call, signature)| async move { round.fold(self.tool_call(round, call, signature).await) };
        if self.inner.profile.supports_parallel_tool_calls() && signatures.len() > 1 {
            join_all(calls.map(one)).await
        } else {
            let mut results = Vec::with_capacity(signatures.len());
            for call in calls {
                results.push(one(call).await);
            }
            results
        }
    }

    /// One call through its stages; `signature` is its identity as the model sent it (repaired or
    /// rewritten by a hook, it is worked out again).
    async fn tool_call(&self, round: &Round<'_>, call: &ToolCall, signature: u64) -> ToolCallOutcome {
        let (staged, checked) = self.prepare(round, call, signature).await;
        let ended = match checked {
            Ok(executor) => match self.decide(&staged.call).await {
                Ok(()) => Ended::Ran(self.run(round, &staged.call, executor).await),
                Err(refusal) => Ended::Refused(refusal),
            },
            Err(refusal) => Ended::Refused(refusal),
        };
        self.finalize(round, &staged, ended).await
    }

    /// Prepare: repairs the call, says it started, looks the tool up and validates the arguments,
    /// then the repeat guard and the `pre_tool_use` hooks. The call comes back as it will run,
    /// with the tool to run it or why it will not run.
    async fn prepare<'c>(&self, round: &Round<'_>, call: &'c ToolCall, signature: u64) -> (Staged<'c>, Checked) {
        let repaired = self.repaired(call);
        let signature = repaired.as_ref().map_or(signature, loop_detection::signature);
        let call = repaired.map_or(Cow::Borrowed(call), Cow::Owned);
        let started = self.now();
        self.emit(EventData::ToolCallStart {
            call_id: call.id.clone(),
            tool_name: call.name.clone(),
            arguments: call.arguments.clone(),
        });
        round.input().tool_calls += 1;
        let mut staged = Staged { call, signature, started };
        let checked = match self.check(round, &staged) {
            Ok(executor) if self.inner.hooks.is_some() => self.pre_tool_use(round, &mut staged, executor).await,
            checked => checked,
        };
        (staged, checked)
    }

    /// The tool, the arguments against its schema, and the repeat guard.
    fn check(&self, round: &Round<'_>, staged: &Staged<'_>) -> Checked {
        let call = &*staged.call;
        let executor =
            self.checked_executor(call, &mut round.input()).map_err(|(source, message)| Refusal::plain(source, message))?;
        let repeated = match round.config.enable_repeat_guard {
            true => round.input().repeats.refusal(staged.signature, &call.name),
            false => None,
        };
        match repeated {
            Some(repeats::Refusal { message, answer_now }) => Err(Refusal { answer_now, ..Refusal::plain("repeat", message) }),
            None => Ok(executor),
        }
    }

    /// The `pre_tool_use` hooks: they may refuse the call, or give other arguments, which are
    /// checked again (not the repeat guard: the model did not send them).
    async fn pre_tool_use(&self, round: &Round<'_>, staged: &mut Staged<'_>, executor: Rc<dyn ToolExecutor>) -> Checked {
        let call = &*staged.call;
        let event =
            HookEvent::PreToolUse { call_id: call.id.clone(), tool_name: call.name.clone(), tool_input: call.arguments.clone() };
        let outcome = self.hook(event).await;
        match (outcome.block, outcome.tool_input) {
            (Some(reason), _) => {
                let message = [
                    "Not run: a pre_tool_use hook blocked the call to ",
                    &call.name,
                    " (",
                    &reason,
                    "). Do something else, or ask the user.",
                ]
                .concat();
                Err(Refusal { source: "hook", reason, message, answer_now: false })
            }
            (None, Some(arguments)) => {
                staged.call = Cow::Owned(ToolCall { arguments, raw_arguments: None, ..call.clone() });
                staged.signature = loop_detection::signature(&staged.call);
                self.checked_executor(&staged.call, &mut round.input()).map_err(|(_, message)| {
                    Refusal::plain("hook", ["The arguments a pre_tool_use hook gave are not valid: ", &message].concat())
                })
            }
            (None, None) => Ok(executor),
        }
    }

    /// Decide: the approval policy, and the host's approver when the policy asks; then, for a
    /// file tool, whether the sandbox lets it write where it would (and if not, whether the user
    /// lets it write there anyway). An allowed call's decisions are said here; a refused one's in
    /// `finalize`, with every other refusal.
    async fn decide(&self, call: &ToolCall) -> Result<(), Refusal> {
        let facts = CallFacts::resolved(&call.name, &call.arguments, &*self.inner.env).await;
        let refused_write = self.inner.gate.refused_write(&facts);
        let decided = self.inner.gate.decide(&call.id, &call.arguments, facts, |request| self.asking(call, request)).await;
        if !decided.allowed {
            let reason = decided.reason.unwrap_or_default();
            let message =
                ["Not run: the call to ", &call.name, " was denied (", &reason, "). Do something else, or ask the user."]
                    .concat();
            return Err(Refusal { source: decided.source, reason, message, answer_now: false });
        }
        self.decision(call, Decision::Allow, decided.reason, decided.source);
        match refused_write {
            Some(denied) => self.outside_sandbox(call, &denied).await,
            None => Ok(()),
        }
    }

    /// Whether a call the sandbox refused may run outside it, as the host's approver answers;
    /// allowed, the decision is said here.
    async fn outside_sandbox(&self, call: &ToolCall, denied: &str) -> Result<(), Refusal> {
        let decided =
            self.inner.gate.escalate(&call.id, &call.name, &call.arguments, denied, |request| self.asking(call, request)).await;
        let reason = decided.reason.unwrap_or_default();
        if decided.allowed {
            self.decision(call, Decision::Allow, Some(reason), decided.source);
            return Ok(());
        }
        let message = ["Not run: ", &reason, ". Do it another way inside the sandbox, or ask the user."].concat();
        Err(Refusal { source: decided.source, reason, message, answer_now: false })
    }

    fn asking(&self, call: &ToolCall, request: &ApprovalRequest) {
        self.emit(EventData::ApprovalRequested {
            call_id: call.id.clone(),
            tool_name: call.name.clone(),
            reason: request.reason.clone(),
            always: request.always.describe(),
        })
    }

    /// Run: the tool itself, its output streamed (redacted) as it comes. A command the sandbox
    /// denied runs again outside it if the user allows. What a result tool delivered is
    /// recorded as it returns.
    async fn run(&self, round: &Round<'_>, call: &ToolCall, executor: Rc<dyn ToolExecutor>) -> Ran {
        let sandbox = &self.inner.gate.sandbox;
        let ran = executor.execute(&call.arguments, &self.tool_context(round, call, sandbox)).await;
        let ran = match ran {
            Ok(ToolOutput { sandbox_denied: Some(denied), text, .. }) if sandbox.confines() => {
                Ok(self.run_outside_sandbox(round, call, &*executor, text, &denied).await)
            }
            ran => ran,
        };
        match ran {
            Ok(output) => {
                if let Some(tool) = self.result_tool(&executor) {
                    round.input().deliver(tool.delivery(&call.arguments));
                }
                Ran { text: output.text, image: output.image, failed: false }
            }
            Err(e) => Ran { text: format!("Tool error ({}): {e}", call.name), image: None, failed: true },
        }
    }

    /// A call the sandbox denied (`confined` is what it printed there): run again with the
    /// user's rights if the approver allows, else left as it was, saying why.
    async fn run_outside_sandbox(
        &self,
        round: &Round<'_>,
        call: &ToolCall,
        executor: &dyn ToolExecutor,
        confined: String,
        denied: &str,
    ) -> ToolOutput {
        if let Err(refusal) = self.outside_sandbox(call, denied).await {
            self.decision(call, Decision::Deny, Some(refusal.reason.clone()), refusal.source);
            return [&confined, "\n[Not run outside the sandbox: ", &refusal.reason, ".]"].concat().into();
        }
        let unconfined = SandboxPolicy::full_access();
        match executor.execute(&call.arguments, &self.tool_context(round, call, &unconfined)).await {
            Ok(again) => ToolOutput {
                text: [&confined, "\n[Run again outside the sandbox, as the user allowed:]\n", &again.text].concat(),
                ..again
            },
            Err(e) => [&confined, "\n[Run again outside the sandbox, as the user allowed, it failed: ", &e.to_string(), "]"]
                .concat()
                .into(),
        }
    }

    /// What a tool runs with: the session's environment, limits and rules, and `sandbox`.
    fn tool_context<'s>(&'s self, round: &Round<'_>, call: &ToolCall, sandbox: &'s SandboxPolicy) -> ToolContext<'s> {
        let on_output: Rc<dyn Fn(&str)> = {
            let session = self.clone();
            let call_id = call.id.clone();
            Rc::new(move |delta: &str| {
                let delta = session.inner.redactions.apply(delta.to_owned());
                session.emit(EventData::ToolCallOutputDelta { call_id: call_id.clone(), delta })
            })
        };
        let config = round.config;
        ToolContext {
            env: &*self.inner.env,
            default_command_timeout_ms: config
                .default_command_timeout_ms
                .or_else(|| self.inner.profile.default_command_timeout_ms())
                .unwrap_or(DEFAULT_COMMAND_TIMEOUT_MS),
            max_command_timeout_ms: config.max_command_timeout_ms,
            on_output: Some(on_output),
            files_seen: self.inner.profile.requires_read_before_write().then_some(&self.inner.files_seen),
            sandbox: Some(sandbox),
        }
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
    fn checked_executor(&self, call: &ToolCall, input: &mut InputState) -> Result<Rc<dyn ToolExecutor>, (&'static str, String)> {
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
                return Err(("schema", self.refused_submission(&list, input)));
            }
            return Err(("schema", format!("Invalid arguments for tool {}:\n{}", call.name, list.join("\n"))));
        }
        Ok(tool.executor.clone())
    }

    /// Says what was decided about a call, and by which check.
    pub(super) fn decision(&self, call: &ToolCall, decision: Decision, reason: Option<String>, source: &str) {
        self.emit(EventData::ToolDecision {
            call_id: call.id.clone(),
            tool_name: call.name.clone(),
            decision,
            reason,
            source: source.to_owned(),
        })
    }
}
