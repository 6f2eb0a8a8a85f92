//! `grep` (spec 3.3): search file contents with a regular expression through the environment.

use async_trait::async_trait;
use serde_json::{json, Value};

use super::args::{optional_bool, optional_str, optional_usize, required_str};
use super::{ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::env::GrepOptions;
use crate::llm::ToolDefinition;

const DEFAULT_MAX_RESULTS: usize = 100;

pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: "grep".into(),
        description: "Search the contents of files for a regular expression. Returns matching lines as \
            `path:line:text`. Searches the working directory unless path names a directory or file; \
            glob_filter narrows the files searched (e.g. `*.rs`)."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Regular expression to search for."},
                "path": {"type": "string", "description": "File or directory to search (default: the working directory)."},
                "glob_filter": {"type": "string", "description": "Only search files whose path matches this glob, e.g. `*.py` or `src/**/*.ts`."},
                "case_insensitive": {"type": "boolean", "description": "Ignore case (default false)."},
                "max_results": {"type": "integer", "minimum": 1, "description": "Most matching lines to return (default 100)."}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }),
    }
}

pub struct GrepTool;

#[async_trait(?Send)]
impl ToolExecutor for GrepTool {
    async fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let pattern = required_str(args, "pattern")?;
        let path = optional_str(args, "path")?.map_or_else(|| ctx.env.working_directory(), str::to_owned);
        let max_results = optional_usize(args, "max_results")?.unwrap_or(DEFAULT_MAX_RESULTS).max(1);
        let options = GrepOptions {
            glob_filter: optional_str(args, "glob_filter")?.map(str::to_owned),
            case_insensitive: optional_bool(args, "case_insensitive")?.unwrap_or(false),
            max_results,
        };
        let found = ctx.env.grep(pattern, &path, &options).await?;
        let found = found.trim_end_matches('\n');
        if found.is_empty() {
            return Ok("No matches found.".into());
        }
        let mut out = found.to_owned();
        // Reaching the limit means there may be more; say so rather than let the model assume none.
        if found.lines().count() >= max_results {
            out.push_str(&format!(
                "\n[Stopped at {max_results} matches. Narrow the pattern or path, or raise max_results, to see more.]"
            ));
        }
        Ok(out.into())
    }
}
