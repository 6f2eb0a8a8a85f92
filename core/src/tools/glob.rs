//! `glob` (spec 3.3): find files by path pattern, newest first, through the environment.

use async_trait::async_trait;
use serde_json::Value;

use super::args::{optional_str, required_str};
use super::{schema, ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::llm::ToolDefinition;

pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: "glob".into(),
        description: "Find files whose path matches a glob pattern such as `**/*.rs` or `src/*.ts`, relative \
            to path (default: the working directory). Returns one path per line, most recently modified first."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Glob pattern; `**` matches any number of directories."},
                "path": {"type": "string", "description": "Directory to search under (default: the working directory)."}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }"#,
        ),
    }
}

pub struct GlobTool;

#[async_trait(?Send)]
impl ToolExecutor for GlobTool {
    async fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let pattern = required_str(args, "pattern")?;
        let path = optional_str(args, "path")?.map_or_else(|| ctx.env.working_directory(), str::to_owned);
        let files = ctx.env.glob(pattern, &path).await?;
        if files.is_empty() {
            return Ok("No files matched.".into());
        }
        Ok(files.join("\n").into())
    }
}
