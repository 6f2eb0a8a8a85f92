//! The shape of `agent.yml` (`schema: openagent.agent/1`), as serde reads it. Every struct
//! refuses keys it does not know, so a misspelt key is an error instead of a setting silently
//! ignored. What serde cannot check (the schema version, the id, the names, the output schema)
//! is checked in `load.rs`.

use std::collections::BTreeMap;

use openagent_core::approval::{ApprovalMode, Rule};
use openagent_core::sandbox::SandboxPolicy;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::hooks::HooksConfig;
use crate::mcp::McpServerConfig;

/// The one version of the format this build reads.
pub const SCHEMA_VERSION: &str = "openagent.agent/1";

/// One agent: who it is, which model it runs on, what it may do, and what it must return.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct AgentConfig {
    /// [`SCHEMA_VERSION`].
    pub schema: String,
    /// The directory's name: `.openagent/agents/<id>/agent.yml`.
    pub id: String,
    /// For people: `agents list` shows it.
    pub name: String,
    /// `openai`, `anthropic`, `gemini` or `openai-compatible`; `--provider` overrides it, and
    /// without either the environment decides (the first provider whose key is set).
    #[serde(default)]
    pub provider: Option<String>,
    /// `--model` overrides it; without either, the provider's default.
    #[serde(default)]
    pub model: Option<String>,
    /// The tools and prompt of a model family (`openai`, `anthropic`, `gemini` or `general`);
    /// the provider's own when absent.
    #[serde(default)]
    pub profile: Option<String>,
    /// Appended to the system prompt, after everything else.
    #[serde(default)]
    pub instructions: Option<String>,
    /// The profile's tools this agent is offered; all of them when absent.
    #[serde(default)]
    pub tools: Option<Vec<String>>,
    #[serde(default)]
    pub limits: Limits,
    /// The structured result every task must end with.
    #[serde(default)]
    pub output: Option<Output>,
    /// MCP servers whose tools this agent is offered, on top of `.openagent/mcp.json`'s (a
    /// server of the same name replaces the file's).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub mcp_servers: BTreeMap<String, McpServerConfig>,
    /// The approval policy: a mode and rules; `--approval` overrides the mode.
    #[serde(default)]
    pub permissions: Option<Permissions>,
    /// What the agent's commands may reach (`workspace-write` with the network off when absent):
    /// a mode, or `{mode, writable_roots, network}`; checked as it is read (the core's
    /// `SandboxPolicy`); `--sandbox` overrides it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<SandboxPolicy>,
    /// Commands run at points of the session, after `.openagent/hooks.json`'s.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub hooks: HooksConfig,
}

/// `permissions:`: the approval mode (the host's default when absent) and ordered rules, the
/// first that matches a call deciding it (the core's `Policy`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Permissions {
    #[serde(default)]
    pub mode: Option<ApprovalMode>,
    #[serde(default)]
    pub rules: Vec<Rule>,
}

/// Each absent limit keeps the session's default; the command line's flags override these.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Model responses allowed in the run; 0: no limit.
    #[serde(default)]
    pub max_turns: Option<usize>,
    /// Tool rounds allowed per input; 0: no limit.
    #[serde(default)]
    pub max_tool_rounds: Option<usize>,
    /// With an output schema: refused submissions (and answers without one) allowed before the
    /// run fails with `no_result`.
    #[serde(default)]
    pub max_result_attempts: Option<usize>,
    /// The most tokens one model response may have (the provider's default when absent).
    #[serde(default)]
    pub max_output_tokens: Option<u64>,
    /// A shell command's timeout when the model gives none, in milliseconds.
    #[serde(default)]
    pub command_timeout_ms: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Output {
    /// A JSON Schema with `type: object` at the root: the parameters of `submit_result`.
    pub schema: Value,
}

impl AgentConfig {
    pub fn output_schema(&self) -> Option<&Value> {
        self.output.as_ref().map(|output| &output.schema)
    }
}
