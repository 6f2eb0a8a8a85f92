//! `list_dir` (spec 3.6, as gemini-cli and codex have it): a directory's entries, a few levels deep.

use async_trait::async_trait;
use serde_json::Value;

use super::args::{optional_str, optional_usize};
use super::{schema, ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::llm::ToolDefinition;

const DEFAULT_DEPTH: usize = 2;
/// A listing is for orientation; past this many entries a narrower listing serves better.
const MAX_ENTRIES: usize = 500;

pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: "list_dir".into(),
        description: "List the files and subdirectories of a directory, `depth` levels deep (default 2), \
            sorted by name. Directories end with `/`; files show their size in bytes. To find files by name \
            anywhere below a directory, use glob."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory to list, absolute or relative to the working directory (default: the working directory)."},
                "depth": {"type": "integer", "minimum": 1, "description": "Levels to descend: 1 lists only the direct entries (default 2)."}
            },
            "additionalProperties": false
        }"#,
        ),
    }
}

pub struct ListDirTool;

#[async_trait(?Send)]
impl ToolExecutor for ListDirTool {
    async fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let path = optional_str(args, "path")?.map_or_else(|| ctx.env.working_directory(), str::to_owned);
        let depth = optional_usize(args, "depth")?.unwrap_or(DEFAULT_DEPTH).max(1);
        let entries = ctx.env.list_directory(&path, depth).await?;
        if entries.is_empty() {
            return Ok(format!("{path} is empty.").into());
        }
        let mut lines: Vec<String> = entries
            .iter()
            .take(MAX_ENTRIES)
            .map(|entry| match (entry.is_dir, entry.size) {
                (true, _) => format!("{}/", entry.name),
                (false, Some(size)) => format!("{} ({size} bytes)", entry.name),
                (false, None) => entry.name.clone(),
            })
            .collect();
        if entries.len() > MAX_ENTRIES {
            lines.push(format!(
                "[Showing {MAX_ENTRIES} of {} entries. List a subdirectory, or use a smaller depth.]",
                entries.len()
            ));
        }
        Ok(lines.join("\n").into())
    }
}
