//! `Agent`: one session of the core, driven from JS.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Promise;
use openagent_core::llm::http::HttpClient;
use openagent_core::llm::{LlmClient, RetryPolicy};
use openagent_core::session::{SessionError, StopReason};
use openagent_core::setup::{self, discover_model};
use openagent_core::{Session, SessionStatus};
use openagent_mcp::McpClient;
use openagent_memenv::MemoryEnvironment;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::client::AgentClient;
use crate::convert::{error, error_of_kind, to_js};
use crate::events::{async_iterable, Dispatcher, EventStream};
use crate::fetch::{FetchClient, READ_TIMEOUT_MS};
use crate::fs::MemoryFs;
use crate::options::{self, Files};
use crate::runtime::BrowserRuntime;

/// A coding agent working on an in-memory filesystem. Construct it with `AgentOptions`, then
/// `submit()` tasks and watch its events.
#[wasm_bindgen]
pub struct Agent {
    session: Session,
    env: MemoryEnvironment,
    model: String,
    provider: String,
    dispatcher: Option<Rc<Dispatcher>>,
    http: Rc<dyn HttpClient>,
    /// The MCP servers added, let go with the agent (their handlers hold the session).
    mcp: Rc<RefCell<Vec<Rc<McpClient>>>>,
}

impl Drop for Agent {
    fn drop(&mut self) {
        for client in self.mcp.borrow().iter() {
            client.on_tools_changed(None);
        }
    }
}

/// What `submit()` resolves to.
#[derive(Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub(crate) struct Outcome<'a> {
    pub reason: StopReason,
    pub state: SessionStatus,
    /// The model's last answer.
    pub text: String,
    /// Tokens used by the session so far.
    pub usage: &'a openagent_core::llm::Usage,
    // The task's result (seed 003) and its typed outcome (seed 002).
    /// The task's result: the model's answer, or why there is none.
    pub result_text: String,
    /// The validated structured result with `outputSchema`; `null` otherwise.
    pub result_data: Option<serde_json::Value>,
    /// How the task ended, typed: see the outcome table in native/README.md.
    pub outcome: Option<openagent_core::session::AgentOutcome>,
}

#[wasm_bindgen]
impl Agent {
    #[wasm_bindgen(constructor)]
    pub fn new(#[wasm_bindgen(unchecked_param_type = "AgentOptions")] options: JsValue) -> Result<Agent, JsValue> {
        let (options, callbacks) = options::parse(&options)?;
        let settings = options.settings(callbacks.get_api_key.is_some())?;
        let model = options.model(&settings)?;
        let profile = setup::profile(options.profile_kind(&settings)?, &model, &options.catalog()?);
        let runtime = Rc::new(BrowserRuntime);
        let env = environment(&options, runtime.clone())?;
        if let Some(commands) = &callbacks.commands {
            crate::commands::add_all(&env, commands)?;
        }
        let read_timeout_ms = options.read_timeout_ms.unwrap_or(READ_TIMEOUT_MS);
        let http: Rc<dyn HttpClient> = Rc::new(FetchClient::new(callbacks.fetch, read_timeout_ms));
        let client: Rc<dyn LlmClient> = Rc::new(AgentClient::new(settings.clone(), callbacks.get_api_key, http.clone()));
        let retries = RetryPolicy {
            max_retries: options.max_retries.unwrap_or(RetryPolicy::default().max_retries),
            ..RetryPolicy::default()
        };
        let saved_config = options.snapshot.as_ref().map(|snapshot| snapshot.state.config.clone());
        let mut builder = Session::builder(profile, Rc::new(env.clone()), client, runtime)
            .model(model.clone())
            .config(options.config(saved_config.unwrap_or_default()))
            .retries(retries)
            // A tool that prints the key (a registered JS tool, a file holding it) must not put it
            // in the events, the snapshot or the next request.
            .redact(options.api_key.clone())
            .approval(options.approval)
            .sandbox(options.sandbox);
        if let Some(callback) = callbacks.on_approval {
            builder = builder.approver(Rc::new(crate::approval::JsApprover { callback }));
        }
        if let Some(hooks) = callbacks.hooks {
            builder = builder.hooks(Rc::new(hooks));
        }
        if let Some(snapshot) = options.snapshot {
            builder = builder.restore(snapshot);
        }
        if let Some(text) = &options.instructions {
            builder = builder.user_instructions(text.clone());
        }
        if let Some(on) = options.subagents {
            builder = builder.subagents(on);
        }
        if let Some(id) = &options.session_id {
            builder = builder.id(id.clone());
        }
        if let Some(schema) = options.output_schema {
            builder = builder.output_schema(schema).map_err(|e| error(&format!("invalid Agent options: outputSchema: {e}")))?;
        }
        let session = builder.build();
        let dispatcher = callbacks.on_event.map(|callback| Dispatcher::start(session.events(), callback));
        if let Some(signal) = callbacks.signal {
            abort_on(&signal, session.clone());
        }
        let provider = settings.kind.name().to_owned();
        Ok(Agent { session, env, model, provider, dispatcher, http, mcp: Rc::default() })
    }

    /// Runs a task to its end: the model's turns and the tools it calls, then any follow-ups.
    /// The task is text, or `{ text, images }` (see `SubmitInput`). Rejects with an `AgentError`
    /// when the model cannot be reached or refuses, or (kind `input`, before any request) when
    /// an image cannot be sent.
    #[wasm_bindgen(unchecked_return_type = "Promise<Outcome>")]
    pub fn submit(&self, #[wasm_bindgen(unchecked_param_type = "string | SubmitInput")] input: JsValue) -> Promise {
        let (session, dispatcher) = (self.session.clone(), self.dispatcher.clone());
        crate::crash::promise(async move {
            let input = crate::input::user_input(input).await?;
            let result = session.submit(input).await;
            if let Some(dispatcher) = &dispatcher {
                dispatcher.flush();
            }
            let reason = result.map_err(|e| agent_error(&e))?;
            let text = session.last_answer();
            let result = session.last_result();
            to_js(&Outcome {
                reason,
                state: session.status(),
                text,
                usage: &session.total_usage(),
                result_text: result.as_ref().map(|r| r.result_text.clone()).unwrap_or_default(),
                result_data: result.as_ref().and_then(|r| r.result_data.clone()),
                outcome: result.map(|r| r.outcome),
            })
        })
    }

    /// Summarises the older turns now, as the agent does by itself when the context window fills
    /// (see the `compaction` option). Reports `compaction_start` and `compaction_end`; resolves
    /// once the summary is in (or there was nothing old enough to summarise), rejects with an
    /// `AgentError` when the model could not write it (the history is then unchanged).
    #[wasm_bindgen(unchecked_return_type = "Promise<void>")]
    pub fn compact(&self) -> Promise {
        let (session, dispatcher) = (self.session.clone(), self.dispatcher.clone());
        crate::crash::promise(async move {
            let result = session.compact().await;
            if let Some(dispatcher) = &dispatcher {
                dispatcher.flush();
            }
            result.map_err(|e| agent_error(&e))?;
            Ok(JsValue::UNDEFINED)
        })
    }

    /// The session saved as JSON data: the conversation up to its last complete turn, its
    /// usage and settings, and the files. Keep it anywhere (IndexedDB, a file);
    /// `new Agent({ snapshot })` goes on from it.
    #[wasm_bindgen(unchecked_return_type = "SessionSnapshot")]
    pub fn snapshot(&self) -> Result<JsValue, JsValue> {
        to_js(&crate::snapshot::write(&self.session, &self.env))
    }

    /// Checks a saved session (what `snapshot()` returned, or its JSON text) without making an
    /// agent, say before a page keeps a file the user picked. Throws an `Error` that names what
    /// is wrong: not JSON, truncated, made by a newer OpenAgent, or a damaged part.
    #[wasm_bindgen(js_name = checkSnapshot)]
    pub fn check_snapshot(
        #[wasm_bindgen(unchecked_param_type = "SessionSnapshot | string")] snapshot: JsValue,
    ) -> Result<(), JsValue> {
        crate::snapshot::check(&snapshot)
    }

    /// A message for the model, injected after the current tool round.
    pub fn steer(&self, text: String) {
        self.session.steer(text);
    }

    /// A task to run once the current one is done.
    #[wasm_bindgen(js_name = followUp)]
    pub fn follow_up(&self, text: String) {
        self.session.follow_up(text);
    }

    /// Stops the model call and the tools, and closes the agent for good.
    pub fn abort(&self) {
        self.session.abort();
    }

    /// Stops the current task only; the conversation is kept for the next `submit()`.
    pub fn interrupt(&self) {
        self.session.interrupt();
    }

    /// Takes effect on the next model call; `null` returns to the provider's default.
    #[wasm_bindgen(js_name = setReasoningEffort)]
    pub fn set_reasoning_effort(
        &self,
        #[wasm_bindgen(unchecked_param_type = "ReasoningEffort | null")] effort: Option<String>,
    ) -> Result<(), JsValue> {
        if let Some(effort) = &effort {
            options::check_effort(effort)?;
        }
        self.session.set_reasoning_effort(effort);
        Ok(())
    }

    /// Adds a tool written in JS (one of the same name is replaced).
    #[wasm_bindgen(js_name = registerTool)]
    pub fn register_tool(&self, #[wasm_bindgen(unchecked_param_type = "ToolSpec")] tool: JsValue) -> Result<(), JsValue> {
        self.session.register_tool(crate::tools::from_js(&tool)?);
        Ok(())
    }

    /// Connects an MCP server over Streamable HTTP and offers the model its tools, named
    /// `mcp__<name>__<tool>`. The server must allow this page's origin (CORS). Rejects when the
    /// options are wrong, the name is taken, or the server cannot be reached or initialized.
    #[wasm_bindgen(js_name = addMcpServer, unchecked_return_type = "Promise<McpServerAdded>")]
    pub fn add_mcp_server(&self, #[wasm_bindgen(unchecked_param_type = "McpServerOptions")] server: JsValue) -> Promise {
        let parsed = crate::mcp::McpServerOptions::from_js(&server);
        let (session, http, clients) = (self.session.clone(), self.http.clone(), self.mcp.clone());
        crate::crash::promise(async move {
            let server = parsed?;
            if clients.borrow().iter().any(|client| client.name() == server.name()) {
                return Err(error(&["addMcpServer: a server named `", server.name(), "` was added already"].concat()));
            }
            server.connect(session, http, clients).await
        })
    }

    /// The names of the tools the model is offered.
    pub fn tools(&self) -> Vec<String> {
        self.session.tool_names()
    }

    /// Every event from now on, as an async iterator that ends with the session.
    #[wasm_bindgen(unchecked_return_type = "AsyncIterableIterator<AgentEvent>")]
    pub fn events(&self) -> JsValue {
        async_iterable(EventStream::new(self.session.events()).into())
    }

    /// The files the agent works on.
    #[wasm_bindgen(getter)]
    pub fn fs(&self) -> MemoryFs {
        MemoryFs::from_env(self.env.clone())
    }

    #[wasm_bindgen(getter, unchecked_return_type = "SessionState")]
    pub fn state(&self) -> JsValue {
        to_js(&self.session.status()).unwrap_or(JsValue::UNDEFINED)
    }

    /// Tokens used by every model call so far.
    #[wasm_bindgen(getter, unchecked_return_type = "Usage")]
    pub fn usage(&self) -> JsValue {
        to_js(&self.session.total_usage()).unwrap_or(JsValue::UNDEFINED)
    }

    #[wasm_bindgen(getter, js_name = sessionId)]
    pub fn session_id(&self) -> String {
        self.session.id().to_owned()
    }

    #[wasm_bindgen(getter)]
    pub fn model(&self) -> String {
        self.model.clone()
    }

    #[wasm_bindgen(getter, unchecked_return_type = "Provider")]
    pub fn provider(&self) -> String {
        self.provider.clone()
    }

    /// The first model an OpenAI-compatible server lists (`GET {baseUrl}/models`).
    #[wasm_bindgen(js_name = discoverModel, unchecked_return_type = "Promise<string>")]
    pub fn discover_model(#[wasm_bindgen(unchecked_param_type = "AgentOptions")] options: JsValue) -> Promise {
        let parsed = options::parse(&options);
        crate::crash::promise(async move {
            let (options, callbacks) = parsed?;
            let settings = options.settings(callbacks.get_api_key.is_some())?;
            let model = discover_model(&settings, &FetchClient::new(callbacks.fetch, READ_TIMEOUT_MS))
                .await
                .map_err(|e| error(&options::explain_setup(&e)))?;
            Ok(model.into())
        })
    }
}

/// The agent's files: the `files` option's, or the snapshot's, in the working directory.
fn environment(options: &options::AgentOptions, runtime: Rc<BrowserRuntime>) -> Result<MemoryEnvironment, JsValue> {
    let invalid = |why: String| error(&format!("invalid Agent options: {why}"));
    let env = crate::split::memory_environment(runtime);
    let env = match &options.working_directory {
        Some(dir) => env.with_working_directory(dir).map_err(|e| invalid(format!("workingDirectory: {e}")))?,
        None => env,
    };
    let files = options.files()?;
    if let Some(snapshot) = &options.snapshot {
        if files.is_some() && snapshot.environment.is_some() {
            return Err(invalid(
                "both `files` and a `snapshot` with files: leave `files` out to go on with the snapshot's".into(),
            ));
        }
        crate::snapshot::restore_files(&env, snapshot).map_err(|e| invalid(format!("snapshot: {e}")))?;
    }
    match files {
        Some(Files::Snapshot(snapshot)) => env.restore(&snapshot).map_err(|e| invalid(format!("files: {e}")))?,
        Some(Files::Text(files)) => {
            for (path, text) in files {
                env.write_bytes(&path, text.as_bytes()).map_err(|e| invalid(format!("files: {e}")))?;
            }
        }
        None => {}
    }
    Ok(env)
}

/// An `AgentError`: a JS `Error` with `kind` (the LLM error kind, or `closed`, `busy`, `input`
/// for an image that cannot be sent) and the
/// HTTP `status` when there was one.
fn agent_error(error: &SessionError) -> JsValue {
    match error {
        SessionError::Closed => error_of_kind(&error.to_string(), "closed"),
        SessionError::Busy => error_of_kind(&error.to_string(), "busy"),
        SessionError::Input(_) => error_of_kind(&error.to_string(), "input"),
        SessionError::Llm(llm) => {
            let kind = to_js(&llm.kind).ok().and_then(|k| k.as_string()).unwrap_or_default();
            let js = error_of_kind(&llm.message, &kind);
            if let Some(status) = llm.status_code {
                let _ = js_sys::Reflect::set(&js, &"status".into(), &status.into());
            }
            js
        }
    }
}

/// Aborts the session when `signal` fires (at once if it already has).
fn abort_on(signal: &web_sys::AbortSignal, session: Session) {
    if signal.aborted() {
        session.abort();
        return;
    }
    let listener = Closure::once_into_js(move || session.abort());
    // An AbortSignal always takes listeners.
    let _ = signal.add_event_listener_with_callback("abort", listener.unchecked_ref());
}
