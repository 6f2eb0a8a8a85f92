//! The tool registry (spec 3.8): tools as data (a definition with a JSON Schema) bound to an
//! executor. Registering a name again replaces the tool: latest wins (spec 3.7).

use std::rc::Rc;

use async_trait::async_trait;
use serde_json::Value;

use super::FilesSeen;
use crate::env::{EnvError, ExecutionEnvironment};
use crate::llm::{MediaData, ToolDefinition};
use crate::sandbox::SandboxPolicy;
use crate::schema::{Schema, SchemaError};

/// What a tool may use while it runs.
pub struct ToolContext<'a> {
    pub env: &'a dyn ExecutionEnvironment,
    /// Applied to commands that give no timeout of their own.
    pub default_command_timeout_ms: u64,
    /// No command may run longer than this, whatever it asks for.
    pub max_command_timeout_ms: u64,
    /// Streams partial output to the host as `TOOL_CALL_OUTPUT_DELTA` events.
    pub on_output: Option<Rc<dyn Fn(&str)>>,
    /// The files the session has read or written; with it, `write_file` and `edit_file` refuse
    /// to change an existing file the model has not read. `None`: no such rule (a host calling a
    /// tool directly).
    pub files_seen: Option<&'a FilesSeen>,
    /// What commands may reach once they run (the session's sandbox policy); `None`: a host
    /// calling a tool directly, with the user's rights.
    pub sandbox: Option<&'a SandboxPolicy>,
}

impl<'a> ToolContext<'a> {
    /// The context of a host calling a tool directly: no output streaming, no session's rules.
    pub fn new(env: &'a dyn ExecutionEnvironment, default_command_timeout_ms: u64, max_command_timeout_ms: u64) -> Self {
        Self { env, default_command_timeout_ms, max_command_timeout_ms, on_output: None, files_seen: None, sandbox: None }
    }
}

/// What a tool returns: text for the model, and optionally an image for multimodal models.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolOutput {
    pub text: String,
    pub image: Option<MediaData>,
    /// What the sandbox refused the call (a command it denied), for the session to offer to run
    /// it outside the sandbox.
    pub sandbox_denied: Option<String>,
}

impl From<String> for ToolOutput {
    fn from(text: String) -> Self {
        Self { text, ..Self::default() }
    }
}

impl From<&str> for ToolOutput {
    fn from(text: &str) -> Self {
        text.to_owned().into()
    }
}

/// A tool failure, shown to the model as an error result so it can recover.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ToolError(pub String);

impl ToolError {
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl From<EnvError> for ToolError {
    fn from(error: EnvError) -> Self {
        Self(error.to_string())
    }
}

/// The behaviour behind a tool definition. Arguments have been validated against the schema.
#[async_trait(?Send)]
pub trait ToolExecutor {
    async fn execute(&self, arguments: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError>;
}

/// A definition bound to its executor, with its parameter schema compiled once.
#[derive(Clone)]
pub struct RegisteredTool {
    pub definition: ToolDefinition,
    pub executor: Rc<dyn ToolExecutor>,
    schema: Rc<Schema>,
}

impl RegisteredTool {
    /// Fails when the parameter schema does not compile or its root is not an object schema.
    pub fn new(definition: ToolDefinition, executor: Rc<dyn ToolExecutor>) -> Result<Self, SchemaError> {
        if definition.parameters.get("type").and_then(Value::as_str) != Some("object") {
            return Err(SchemaError::new(format!(
                "the parameters of tool {} must be a JSON Schema with \"type\": \"object\" at the root",
                definition.name
            )));
        }
        let schema = Rc::new(Schema::compile(&definition.parameters)?);
        Ok(Self { definition, executor, schema })
    }

    pub fn schema(&self) -> &Schema {
        &self.schema
    }
}

/// The tools of a profile, in registration order.
#[derive(Clone, Default)]
pub struct ToolRegistry {
    tools: Vec<RegisteredTool>,
    generation: u64,
}

impl ToolRegistry {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a tool, replacing one of the same name in place.
    pub fn register(&mut self, tool: RegisteredTool) {
        self.generation += 1;
        match self.tools.iter_mut().find(|t| t.definition.name == tool.definition.name) {
            Some(slot) => *slot = tool,
            None => self.tools.push(tool),
        }
    }

    /// Removes a tool; `false` if there was none of that name.
    pub fn unregister(&mut self, name: &str) -> bool {
        let before = self.tools.len();
        self.tools.retain(|t| t.definition.name != name);
        let removed = self.tools.len() != before;
        self.generation += u64::from(removed);
        removed
    }

    pub fn get(&self, name: &str) -> Option<&RegisteredTool> {
        self.tools.iter().find(|t| t.definition.name == name)
    }

    pub fn definitions(&self) -> Vec<ToolDefinition> {
        self.tools.iter().map(|t| t.definition.clone()).collect()
    }

    pub fn names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.definition.name.clone()).collect()
    }

    /// Changes whenever the set of tools changes, so a session can refresh what it offers.
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

/// Registers each tool in turn, so a later tool replaces an earlier one of the same name.
impl FromIterator<RegisteredTool> for ToolRegistry {
    fn from_iter<I: IntoIterator<Item = RegisteredTool>>(tools: I) -> Self {
        let mut registry = Self::new();
        tools.into_iter().for_each(|tool| registry.register(tool));
        registry
    }
}
