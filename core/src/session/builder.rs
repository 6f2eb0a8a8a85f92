//! [`SessionBuilder`]: a session from its seams, new or restored from a snapshot.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use serde_json::Value;

use super::emitter::Emitter;
use super::events::EventData;
use super::redact::Redactions;
use super::snapshot::{complete_len, drop_signatures};
use super::state::{LoopCache, SessionState};
use super::{results, Inner, Session, SessionConfig, SessionSnapshot, SessionStatus};
use crate::abort::AbortSignal;
use crate::approval::{Approver, Gate, Policy};
use crate::env::ExecutionEnvironment;
use crate::hooks::Hooks;
use crate::llm::{LlmClient, LlmError, Message, MessageMemo, Request, RetryPolicy, RetryingClient};
use crate::profiles::ProviderProfile;
use crate::runtime::Runtime;
use crate::sandbox::SandboxPolicy;
use crate::schema::SchemaError;
use crate::tools::FilesSeen;

/// Builds a [`Session`] from its seams.
pub struct SessionBuilder {
    profile: Rc<dyn ProviderProfile>,
    env: Rc<dyn ExecutionEnvironment>,
    client: Rc<dyn LlmClient>,
    runtime: Rc<dyn Runtime>,
    /// Set by [`config`](Self::config); a restored session keeps its own otherwise.
    config: Option<SessionConfig>,
    id: Option<String>,
    user_instructions: Option<String>,
    pub(super) model: Option<String>,
    pub(super) depth: usize,
    /// Set by [`subagents`](Self::subagents); the profile decides otherwise.
    subagents: Option<bool>,
    /// A subagent reports into its parent's event stream.
    pub(super) emitter: Option<Rc<Emitter>>,
    retries: Option<RetryPolicy>,
    output_schema: Option<Value>,
    restore: Option<SessionSnapshot>,
    pub(super) redactions: Rc<Redactions>,
    policy: Policy,
    sandbox: SandboxPolicy,
    approver: Option<Rc<dyn Approver>>,
    /// A subagent is held to its parent's policy.
    pub(super) gate: Option<Rc<Gate>>,
    /// A subagent runs its parent's hooks.
    pub(super) hooks: Option<Rc<dyn Hooks>>,
}

impl SessionBuilder {
    pub(super) fn new(
        profile: Rc<dyn ProviderProfile>,
        env: Rc<dyn ExecutionEnvironment>,
        client: Rc<dyn LlmClient>,
        runtime: Rc<dyn Runtime>,
    ) -> Self {
        Self {
            profile,
            env,
            client,
            runtime,
            config: None,
            id: None,
            user_instructions: None,
            model: None,
            depth: 0,
            subagents: None,
            emitter: None,
            retries: None,
            output_schema: None,
            restore: None,
            redactions: Rc::default(),
            policy: Policy::default(),
            sandbox: SandboxPolicy::default(),
            approver: None,
            gate: None,
            hooks: None,
        }
    }

    /// A model to use instead of the profile's.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// The limits and settings; for a restored session they replace the ones it was saved with.
    pub fn config(mut self, config: SessionConfig) -> Self {
        self.config = Some(config);
        self
    }

    /// A fixed session id: a restored session's own id otherwise, else a random UUID. A fork
    /// is a restore with a new id.
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

    /// Secret values (the provider key, tokens, passwords) to replace with
    /// [`REDACTED`](super::REDACTED) in every tool output, before it reaches the events, the
    /// history or the model. Values shorter than 8 bytes are left alone.
    pub fn redact(mut self, values: impl IntoIterator<Item = String>) -> Self {
        self.redactions = Rc::new(Redactions::new(values.into_iter().collect()));
        self
    }

    /// Decides each tool call with `policy` (default: `full-auto`, every call allowed). Check
    /// it first with [`Policy::check`]: a rule that cannot match is not an error here.
    pub fn approval(mut self, policy: Policy) -> Self {
        self.policy = policy;
        self
    }

    /// What the calls may reach once they run (default: `workspace-write` with the network off):
    /// the commands through the environment, which enforces it, and the file tools' writes,
    /// checked before they run. Check it first with [`SandboxPolicy::check`].
    pub fn sandbox(mut self, policy: SandboxPolicy) -> Self {
        self.sandbox = policy;
        self
    }

    /// Offers the subagent tools (spec 7) or not, whatever the profile says: the host's choice
    /// (the general profile leaves them out of its lean first request unless asked).
    pub fn subagents(mut self, on: bool) -> Self {
        self.subagents = Some(on);
        self
    }

    /// Who is asked when the policy says `ask`; without one, `ask` is a deny.
    pub fn approver(mut self, approver: Rc<dyn Approver>) -> Self {
        self.approver = Some(approver);
        self
    }

    /// Runs `hooks` before and after each tool call, on each input and at the end (module
    /// [`hooks`](crate::hooks)).
    pub fn hooks(mut self, hooks: Rc<dyn Hooks>) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// Retries failed model calls with `policy` (above the client, which should then not retry
    /// itself), reporting each retry as a `provider_retry` event.
    pub fn retries(mut self, policy: RetryPolicy) -> Self {
        self.retries = Some(policy);
        self
    }

    /// Continues a saved session: its history, usage, counters, queues, limits and subagents.
    /// The session starts idle. When the snapshot was made with another provider family, its
    /// reasoning parts and signatures are dropped (they only go back to the family that made
    /// them) and the session says so in a `warning` when it starts.
    pub fn restore(mut self, snapshot: SessionSnapshot) -> Self {
        self.restore = Some(snapshot);
        self
    }

    pub fn build(mut self) -> Session {
        let mut warnings = Vec::new();
        let (mut state, saved_id) = match self.restore {
            Some(snapshot) => {
                self.user_instructions = self.user_instructions.or(snapshot.user_instructions);
                if self.output_schema.is_none() {
                    match snapshot.output_schema.map(|schema| results::check_output_schema(&schema).map(|()| schema)) {
                        Some(Ok(schema)) => self.output_schema = Some(schema),
                        Some(Err(e)) => warnings.push(format!("The saved output schema was not restored: {e}")),
                        None => {}
                    }
                }
                let mut state = snapshot.state;
                state.history.truncate(complete_len(&state.history));
                if snapshot.provider != self.profile.id() {
                    let dropped = drop_signatures(&mut state);
                    warnings.push(format!(
                        "This session was saved with provider {}; it goes on with {}. {dropped} reasoning part(s) and \
                         signature(s) of {} were dropped, not replayed.",
                        snapshot.provider,
                        self.profile.id(),
                        snapshot.provider
                    ));
                }
                if let Some(config) = self.config {
                    state.config = config;
                }
                (state, Some(snapshot.session_id))
            }
            None => (SessionState::new(self.config.unwrap_or_default()), None),
        };
        let records = std::mem::take(&mut state.subagents);
        let request = Request {
            model: self.model.unwrap_or_else(|| self.profile.model().to_owned()),
            messages: vec![Message::system(String::new())],
            provider: Some(self.profile.id().to_owned()),
            provider_options: self.profile.provider_options(),
            // The request is only appended to, and each change told to the memo (`LoopCache`).
            memo: MessageMemo::new(),
            ..Request::default()
        };
        let mut cache = LoopCache::new(request);
        cache.rebuild(&state.history);
        let max_depth = state.config.max_subagent_depth;
        let inner = Rc::new_cyclic(|session| {
            let mut tools = self.profile.tool_registry().clone();
            if self.depth < max_depth && self.subagents.unwrap_or_else(|| self.profile.offers_subagents()) {
                Session::register_subagent_tools(&mut tools, session);
            }
            let result_tools = match &self.output_schema {
                // Checked by `output_schema`, so this cannot fail.
                Some(schema) => Session::register_result_tools(&mut tools, schema).unwrap_or_default(),
                None => Vec::new(),
            };
            let client = match self.retries {
                Some(policy) => retrying(self.client, policy, session.clone(), self.runtime.clone()),
                None => self.client,
            };
            Inner {
                id: self.id.or(saved_id).unwrap_or_else(crate::id::random_uuid).into(),
                profile: self.profile,
                env: self.env,
                client,
                runtime: self.runtime,
                user_instructions: self.user_instructions,
                output_schema: self.output_schema,
                depth: self.depth,
                tools: RefCell::new(tools),
                status: Cell::new(SessionStatus::Idle),
                started: Cell::new(false),
                state: RefCell::new(state),
                cache: RefCell::new(cache),
                retries: Cell::new(0),
                abort: AbortSignal::new(),
                interrupt: RefCell::new(AbortSignal::new()),
                emitter: self.emitter.unwrap_or_default(),
                last_timestamp: RefCell::default(),
                subagents: RefCell::new(Vec::new()),
                pending_warnings: RefCell::new(warnings),
                files_seen: FilesSeen::default(),
                redactions: self.redactions,
                gate: self.gate.unwrap_or_else(|| Rc::new(Gate::new(self.policy, self.approver).confining(self.sandbox))),
                hooks: self.hooks,
                result_tools,
                end_hooks: RefCell::new(None),
                pending_prompt: RefCell::new(None),
            }
        });
        let session = Session { inner };
        session.restore_subagents(records);
        session
    }
}

/// `client` retried by `policy`, each retry reported on the session's event stream.
fn retrying(
    client: Rc<dyn LlmClient>,
    mut policy: RetryPolicy,
    session: Weak<Inner>,
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
            inner.retries.set(inner.retries.get() + 1);
            Session { inner }.emit(data);
        }
        if let Some(callback) = &host_callback {
            callback(error, attempt, seconds);
        }
    }));
    Rc::new(RetryingClient::new(client, policy, runtime))
}
