//! A server's tools as the core's registered tools, named `mcp__<server>__<tool>`.

use std::rc::Rc;

use async_trait::async_trait;
use futures::future::LocalBoxFuture;
use openagent_core::llm::ToolDefinition;
use openagent_core::tools::{RegisteredTool, ToolContext, ToolError, ToolExecutor, ToolOutput};
use openagent_core::Session;
use serde_json::Value;

use crate::{tool_output, McpClient, McpError};

/// One tool as `tools/list` describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct McpTool {
    pub name: String,
    pub description: Option<String>,
    pub input_schema: Value,
}

/// A server's tools, ready to register.
#[derive(Clone, Default)]
pub struct McpTools {
    pub tools: Vec<RegisteredTool>,
    /// One line per tool that was skipped, saying why (its schema does not compile, say).
    pub warnings: Vec<String>,
    /// On a re-list: the names registered before that are gone now.
    pub removed: Vec<String>,
}

/// Called with the new tools after the server said its list changed; the host registers them
/// (and unregisters `removed`).
pub type ToolsChanged = Rc<dyn Fn(McpTools)>;

/// Whether `name` can name a server: letters, digits, `_` and `-`, so that its tools'
/// names (`mcp__<name>__<tool>`) keep it as it is.
pub fn is_server_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The longest tool name providers take (OpenAI and Anthropic: `^[a-zA-Z0-9_-]{1,64}$`).
const MAX_NAME: usize = 64;

/// `mcp__<server>__<tool>`, with any character providers refuse in a tool name (anything but
/// ASCII letters, digits, `_` and `-`) replaced by `_`. A name longer than providers take is cut
/// and ends in a hash of the whole, so it stays unique and the same from run to run.
pub fn tool_name(server: &str, tool: &str) -> String {
    let clean = |s: &str| s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect::<String>();
    let name = format!("mcp__{}__{}", clean(server), clean(tool));
    if name.len() <= MAX_NAME {
        return name;
    }
    // FNV-1a: small, and stable across builds and platforms (std's hasher is neither).
    let hash = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("{}_{:08x}", &name[..MAX_NAME - 9], hash as u32)
}

impl McpClient {
    /// Lists the server's tools and binds each to this client. A tool whose schema the core's
    /// validator refuses is left out with a warning.
    pub fn tools(self: &Rc<Self>) -> LocalBoxFuture<'_, Result<McpTools, McpError>> {
        // Boxed for the same reason as `request`: connecting and re-listing share one copy.
        Box::pin(self.list_and_bind())
    }

    async fn list_and_bind(self: &Rc<Self>) -> Result<McpTools, McpError> {
        let listed = self.list_tools().await?;
        let mut out = McpTools::default();
        for raw in listed {
            let Some(name) = raw.get("name").and_then(Value::as_str) else {
                out.warnings.push(format!("MCP server {}: skipped a tool without a name", self.name()));
                continue;
            };
            // Such a name would register as `mcp__<server>__` or as one the model cannot tell
            // apart from another, and printed as it is it would drive the terminal.
            if name.trim().is_empty() || name.chars().any(char::is_control) {
                out.warnings.push(format!(
                    "MCP server {}: skipped tool \"{}\": its name is empty or holds control characters",
                    self.name(),
                    name.escape_debug()
                ));
                continue;
            }
            let full = tool_name(self.name(), name);
            // Two names that differ only in characters providers refuse become one: the first keeps it.
            if out.tools.iter().any(|tool| tool.definition.name == full) {
                out.warnings
                    .push(format!("MCP server {}: skipped tool {name}: another tool is named {full} already", self.name()));
                continue;
            }
            let description = raw.get("description").or_else(|| raw.get("title")).and_then(Value::as_str);
            let definition = ToolDefinition {
                name: full,
                description: description.map_or_else(|| format!("The tool {name} of MCP server {}.", self.name()), str::to_owned),
                parameters: raw.get("inputSchema").cloned().unwrap_or(Value::Null),
            };
            let executor = Rc::new(McpToolExecutor { client: self.clone(), tool: name.to_owned() });
            match RegisteredTool::new(definition, executor) {
                Ok(tool) => out.tools.push(tool),
                Err(error) => out
                    .warnings
                    .push(format!("MCP server {}: skipped tool {name}: its inputSchema is not usable: {error}", self.name())),
            }
        }
        let names: Vec<String> = out.tools.iter().map(|t| t.definition.name.clone()).collect();
        let before = self.tool_names.replace(names.clone());
        out.removed = before.into_iter().filter(|old| !names.contains(old)).collect();
        Ok(out)
    }

    /// What to call with the new tools when the server says its list changed (`None`: nothing).
    /// The client re-lists after the call during which it heard so. A handler that holds the
    /// session holding this client's tools makes a cycle: take it away when done.
    pub fn on_tools_changed(&self, handler: Option<ToolsChanged>) {
        *self.on_tools_changed.borrow_mut() = handler;
    }

    /// Registers `tools` (this client's) in `session`, and keeps them current there when the
    /// server says its list changed. The handler holds the session: release it with
    /// `on_tools_changed(None)` when the session is done.
    pub fn register_in(&self, session: &Session, tools: &McpTools) {
        for tool in &tools.tools {
            session.register_tool(tool.clone());
        }
        let target = session.clone();
        self.on_tools_changed(Some(Rc::new(move |tools: McpTools| {
            for name in &tools.removed {
                target.unregister_tool(name);
            }
            for tool in tools.tools {
                target.register_tool(tool);
            }
        })));
    }

    async fn refresh_tools(self: &Rc<Self>) {
        let handler = self.on_tools_changed.borrow().clone();
        if let Some(handler) = handler {
            // A failed re-list keeps the tools there are; the next call tells of a dead server.
            if let Ok(tools) = self.tools().await {
                handler(tools);
            }
        }
    }
}

struct McpToolExecutor {
    client: Rc<McpClient>,
    tool: String,
}

#[async_trait(?Send)]
impl ToolExecutor for McpToolExecutor {
    async fn execute(&self, arguments: &Value, _ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let result = self.client.call_tool(&self.tool, arguments.clone()).await;
        if self.client.take_tools_changed() {
            self.client.refresh_tools().await;
        }
        let result = result.map_err(|e| ToolError::new(format!("MCP server {}: {e}", self.client.name())))?;
        tool_output(&result)
    }
}
