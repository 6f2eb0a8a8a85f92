//! Subagents (spec 7): child sessions a model starts with `spawn_agent` for a scoped task.
//!
//! A child shares its parent's environment (or a view of a subdirectory of it), profile, model
//! client and runtime, keeps its own history and limits, and runs concurrently through
//! `Runtime::spawn_local`. Its events go into the parent's event stream under its own session id
//! (`<parent id>/<agent id>`), so a host watching the parent sees everything. Only sessions below
//! `max_subagent_depth` get the four tools; closing or aborting a parent closes its children.

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use async_trait::async_trait;
use serde::Serialize;
use serde_json::{json, Value};

use super::state::SubAgentRecord;
use super::{Inner, Session, SessionSnapshot, StopReason};
use crate::abort::AbortSignal;
use crate::llm::{json_text, ToolDefinition};
use crate::tools::{RegisteredTool, ToolContext, ToolError, ToolExecutor, ToolOutput, ToolRegistry};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SubAgentStatus {
    Running,
    Completed,
    Failed,
}

/// What `wait` reports (spec 7.3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typings", derive(ts_rs::TS))]
pub struct SubAgentResult {
    pub agent_id: String,
    pub status: SubAgentStatus,
    /// The child's last answer (or why it failed).
    pub output: String,
    pub success: bool,
    /// Model responses the child used in this run.
    pub turns_used: usize,
    /// The child's `result` event (seed 003): its result text, and its accepted structured
    /// result when it had an output schema (`null` otherwise).
    pub result_text: String,
    pub result_data: Option<Value>,
}

/// A child session and its current run.
pub(super) struct SubAgent {
    id: String,
    session: Session,
    run: RefCell<Rc<Run>>,
    /// How it was started, for a snapshot to start it again.
    working_dir: Option<String>,
    model: Option<String>,
    output_schema: Option<Value>,
}

/// One run of a child: its result once it ended, and the flag that says so.
#[derive(Default)]
struct Run {
    result: RefCell<Option<SubAgentResult>>,
    /// An `AbortSignal` is exactly a one-shot flag that can be awaited: here it means "finished".
    finished: AbortSignal,
}

impl Session {
    /// Registers the subagent tools this session may offer (spec 7.2), unless the profile has its own.
    pub(super) fn register_subagent_tools(registry: &mut ToolRegistry, parent: &Weak<Inner>) {
        for kind in [Kind::Spawn, Kind::SendInput, Kind::Wait, Kind::Close] {
            let definition = kind.definition();
            if registry.get(&definition.name).is_none() {
                let executor = Rc::new(SubAgentTool { kind, parent: parent.clone() });
                // The definitions are ours and compile; a failure would be a bug caught by the tests.
                if let Ok(tool) = RegisteredTool::new(definition, executor) {
                    registry.register(tool);
                }
            }
        }
    }

    /// Aborts every child (part of shutting down).
    pub(super) fn close_subagents(&self) {
        let children: Vec<Session> = self.inner.subagents.borrow().iter().map(|a| a.session.clone()).collect();
        children.iter().for_each(Session::abort);
    }

    fn spawn_agent(&self, args: &Value) -> Result<String, ToolError> {
        let task = args["task"].as_str().unwrap_or_default();
        if task.trim().is_empty() {
            return Err(ToolError::new("task must describe what the subagent should do"));
        }
        let mut config = self.config();
        config.max_turns = args["max_turns"].as_u64().unwrap_or(0) as usize;
        let agent_id = format!("agent_{}", self.inner.subagents.borrow().len() + 1);
        let str_arg = |key: &str| args[key].as_str().map(str::to_owned);
        let (working_dir, model, output_schema) = (str_arg("working_dir"), str_arg("model"), args.get("output_schema").cloned());
        let builder = self.child_builder(&agent_id, working_dir.as_deref(), model.clone(), output_schema.clone())?;
        let session = builder.config(config).build();
        let agent = SubAgent { id: agent_id.clone(), session, run: RefCell::default(), working_dir, model, output_schema };
        self.start_run(&agent, task.to_owned());
        self.inner.subagents.borrow_mut().push(agent);
        Ok(json_text::to_string(&json!({"agent_id": agent_id, "status": "running"})))
    }

    /// A builder for the child `agent_id`: this session's seams, one level deeper, reporting
    /// into this session's events under the id `<this id>/<agent id>`.
    pub(super) fn child_builder(
        &self,
        agent_id: &str,
        working_dir: Option<&str>,
        model: Option<String>,
        output_schema: Option<Value>,
    ) -> Result<super::SessionBuilder, ToolError> {
        let inner = &self.inner;
        let env = match working_dir {
            Some(dir) => inner.env.scoped(dir)?,
            None => inner.env.clone(),
        };
        let mut builder = Session::builder(inner.profile.clone(), env, inner.client.clone(), inner.runtime.clone())
            .id(format!("{}/{agent_id}", inner.id));
        builder.depth = inner.depth + 1;
        builder.emitter = Some(inner.emitter.clone());
        builder.redactions = inner.redactions.clone();
        builder.gate = Some(inner.gate.clone());
        builder.hooks = inner.hooks.clone();
        builder.model = model;
        if let Some(schema) = output_schema {
            builder = builder.output_schema(schema).map_err(|e| ToolError::new(format!("output_schema: {e}")))?;
        }
        Ok(builder)
    }

    /// The children as a snapshot keeps them.
    pub(super) fn subagent_records(&self) -> Vec<SubAgentRecord> {
        let agents = self.inner.subagents.borrow();
        let record = |agent: &SubAgent| SubAgentRecord {
            agent_id: agent.id.clone(),
            working_dir: agent.working_dir.clone(),
            model: agent.model.clone(),
            output_schema: agent.output_schema.clone(),
            state: agent.session.snapshot().state,
            result: agent.run.borrow().result.borrow().clone(),
        };
        agents.iter().map(record).collect()
    }

    /// Brings back the children of a restored session, idle. One that was still running when
    /// the snapshot was taken is reported by `wait` as stopped; `send_input` starts it again.
    pub(super) fn restore_subagents(&self, records: Vec<SubAgentRecord>) {
        for record in records {
            let builder = self.child_builder(
                &record.agent_id,
                record.working_dir.as_deref(),
                record.model.clone(),
                record.output_schema.clone(),
            );
            let builder = match builder {
                Ok(builder) => builder,
                Err(e) => {
                    let message = format!("Subagent {} was not restored: {e}", record.agent_id);
                    self.inner.pending_warnings.borrow_mut().push(message);
                    continue;
                }
            };
            let snapshot = SessionSnapshot {
                schema: SessionSnapshot::SCHEMA.to_owned(),
                session_id: String::new(),
                provider: self.inner.profile.id().to_owned(),
                model: String::new(),
                state: record.state,
                output_schema: None,
                user_instructions: None,
                environment: None,
            };
            let result = record.result.unwrap_or_else(|| SubAgentResult {
                agent_id: record.agent_id.clone(),
                status: SubAgentStatus::Failed,
                output: "stopped before finishing: it was still running when the session was saved".to_owned(),
                success: false,
                turns_used: 0,
                result_text: String::new(),
                result_data: None,
            });
            let run = Run::default();
            *run.result.borrow_mut() = Some(result);
            run.finished.abort();
            let agent = SubAgent {
                id: record.agent_id,
                session: builder.restore(snapshot).build(),
                run: RefCell::new(Rc::new(run)),
                working_dir: record.working_dir,
                model: record.model,
                output_schema: record.output_schema,
            };
            self.inner.subagents.borrow_mut().push(agent);
        }
    }

    /// Runs `input` on the child in a task of its own; the result lands in a fresh `Run`.
    fn start_run(&self, agent: &SubAgent, input: String) {
        let run = Rc::new(Run::default());
        let (session, agent_id, shared) = (agent.session.clone(), agent.id.clone(), run.clone());
        self.inner.runtime.spawn_local(Box::pin(async move {
            let before = session.inner.state.borrow().turns;
            let stop = session.submit(input).await;
            let answer = session.last_answer();
            let success = matches!(stop, Ok(StopReason::Completed));
            let result = session.last_result();
            let output = match stop {
                Ok(StopReason::Completed) => answer,
                Ok(reason) => format!("stopped before finishing ({reason:?}). Last answer: {answer}"),
                Err(error) => format!("failed: {error}"),
            };
            *shared.result.borrow_mut() = Some(SubAgentResult {
                agent_id,
                status: if success { SubAgentStatus::Completed } else { SubAgentStatus::Failed },
                output,
                success,
                turns_used: session.inner.state.borrow().turns - before,
                result_text: result.as_ref().map(|r| r.result_text.clone()).unwrap_or_default(),
                result_data: result.and_then(|r| r.result_data),
            });
            shared.finished.abort();
        }));
        *agent.run.borrow_mut() = run;
    }

    fn with_agent<T>(&self, args: &Value, f: impl FnOnce(&SubAgent) -> T) -> Result<T, ToolError> {
        let id = args["agent_id"].as_str().unwrap_or_default();
        let agents = self.inner.subagents.borrow();
        let agent = agents.iter().find(|a| a.id == id).ok_or_else(|| {
            let known: Vec<&str> = agents.iter().map(|a| a.id.as_str()).collect();
            ToolError::new(format!(
                "no subagent {}; known agents: {}",
                json_text::quote(id),
                if known.is_empty() { "none".into() } else { known.join(", ") }
            ))
        })?;
        Ok(f(agent))
    }

    fn send_input(&self, args: &Value) -> Result<String, ToolError> {
        let message = args["message"].as_str().unwrap_or_default().to_owned();
        self.with_agent(args, |agent| {
            if agent.run.borrow().result.borrow().is_none() {
                agent.session.steer(message);
                "delivered: the subagent sees it after its current tool round".to_owned()
            } else if agent.session.status() == super::SessionStatus::Closed {
                format!("{} is closed; spawn a new agent", agent.id)
            } else {
                self.start_run(agent, message);
                format!("{} is running again on your message", agent.id)
            }
        })
    }

    async fn wait(&self, args: &Value) -> Result<String, ToolError> {
        let run = self.with_agent(args, |agent| agent.run.borrow().clone())?;
        run.finished.aborted().await;
        let result = run.result.borrow().clone();
        result.map(|r| json_text::to_string(&json!(r))).ok_or_else(|| ToolError::new("the subagent ended without a result"))
    }

    fn close_agent(&self, args: &Value) -> Result<String, ToolError> {
        self.with_agent(args, |agent| {
            agent.session.abort();
            let status = agent.run.borrow().result.borrow().as_ref().map_or(SubAgentStatus::Failed, |r| r.status);
            json_text::to_string(&json!({"agent_id": agent.id, "status": status, "closed": true}))
        })
    }
}

/// The names of the subagent tools a session offers (spec 7.2), for hosts that choose which
/// tools an agent gets.
pub const SUBAGENT_TOOLS: [&str; 4] = ["spawn_agent", "send_input", "wait", "close_agent"];

/// One of [`SUBAGENT_TOOLS`], in that order.
#[derive(Clone, Copy)]
enum Kind {
    Spawn,
    SendInput,
    Wait,
    Close,
}

/// The parameters of `wait` and `close_agent`.
const AGENT_ID_ONLY: &str = r#"{"type": "object", "properties": {"agent_id": {"type": "string"}}, "required": ["agent_id"], "additionalProperties": false}"#;

impl Kind {
    fn definition(self) -> ToolDefinition {
        let name = SUBAGENT_TOOLS[self as usize];
        let (description, parameters) = match self {
            Kind::Spawn => (
                "Start a subagent on a scoped task. It works on the same files with its own conversation and \
                 returns at once with an agent_id; call wait to get its result. Use it to work in parallel or \
                 to keep a side investigation out of your own context.",
                crate::tools::schema(r#"{"type": "object", "properties": {
                    "task": {"type": "string", "description": "What the subagent should do, with everything it needs to know."},
                    "working_dir": {"type": "string", "description": "A subdirectory to scope the subagent to."},
                    "model": {"type": "string", "description": "A model to use instead of yours."},
                    "max_turns": {"type": "integer", "minimum": 0, "description": "Most model responses it may use (0: no limit)."},
                    "output_schema": {"type": "object", "description": "A JSON Schema (an object schema) its result must follow; wait then returns the validated result as result_data."}
                }, "required": ["task"], "additionalProperties": false}"#),
            ),
            Kind::SendInput => (
                "Send a message to a subagent: steering while it runs, or a new request once it has finished.",
                crate::tools::schema(r#"{"type": "object", "properties": {
                    "agent_id": {"type": "string"}, "message": {"type": "string"}
                }, "required": ["agent_id", "message"], "additionalProperties": false}"#),
            ),
            Kind::Wait => (
                "Wait for a subagent to finish and get its result: its final answer, whether it succeeded, the turns it used, and its structured result (result_data) when it was given an output_schema.",
                crate::tools::schema(AGENT_ID_ONLY),
            ),
            Kind::Close => (
                "Stop a subagent and discard it.",
                crate::tools::schema(AGENT_ID_ONLY),
            ),
        };
        ToolDefinition { name: name.into(), description: description.into(), parameters }
    }
}

/// The four tools, bound to the session that offers them.
struct SubAgentTool {
    kind: Kind,
    /// Weak: the session owns its tools.
    parent: Weak<Inner>,
}

#[async_trait(?Send)]
impl ToolExecutor for SubAgentTool {
    async fn execute(&self, args: &Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let inner = self.parent.upgrade().ok_or_else(|| ToolError::new("the session that owns this tool has ended"))?;
        let session = Session { inner };
        let text = match self.kind {
            Kind::Spawn => session.spawn_agent(args)?,
            Kind::SendInput => session.send_input(args)?,
            Kind::Wait => session.wait(args).await?,
            Kind::Close => session.close_agent(args)?,
        };
        Ok(text.into())
    }
}
