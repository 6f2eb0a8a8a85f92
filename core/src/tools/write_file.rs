//! `write_file` (spec 3.3): replace a file's whole content, creating it and its directories. With
//! `append` (offered by the general profile), add to its end instead: the explicit way for a small
//! model to add code, where an edit would have to quote the file's last lines exactly.

use async_trait::async_trait;
use serde_json::Value;

use super::args::{optional_bool, required_str};
use super::read_file::explain_read_error;
use super::{schema, seen, ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::llm::ToolDefinition;

pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: "write_file".into(),
        description: "Write a file with the given content, replacing everything in it. Creates the file and \
            any missing parent directories. To change part of an existing file, prefer edit_file."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "Path of the file, absolute or relative to the working directory."},
                "content": {"type": "string", "description": "The complete new content of the file."}
            },
            "required": ["file_path", "content"],
            "additionalProperties": false
        }"#,
        ),
    }
}

pub struct WriteFileTool;

#[async_trait(?Send)]
impl ToolExecutor for WriteFileTool {
    async fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let path = required_str(args, "file_path")?;
        let content = required_str(args, "content")?;
        let append = optional_bool(args, "append")?.unwrap_or(false);
        // Any stat failure means "nothing there yet"; if the path is unusable, the write says why.
        let existed = match ctx.env.stat(path).await {
            Ok(info) if info.is_dir => {
                return Err(ToolError::new(format!("{path} is a directory. Give the path of a file inside it instead.")))
            }
            Ok(_) => true,
            Err(_) => false,
        };
        let text = if append && existed {
            // Nothing is lost by adding to a file, so it need not have been read.
            let old = ctx.env.read_file(path, None, None).await.map_err(explain_read_error)?;
            let separator = if old.is_empty() || old.ends_with('\n') { "" } else { "\n" };
            [old.as_str(), separator, content].concat()
        } else {
            if existed {
                seen::require_read(ctx, path)?;
                if let Ok(old) = ctx.env.read_file(path, None, None).await {
                    // Said plainly, so that a model which writes the same file again learns its first
                    // write stuck (and the repeat guard sees the same result each time after that).
                    if old == content {
                        return Ok(format!(
                            "{path} already holds exactly this content ({} bytes); nothing was written.",
                            content.len()
                        )
                        .into());
                    }
                    seen::require_kept(ctx, path, &old, content)?;
                }
            }
            content.to_owned()
        };
        ctx.env.write_file(path, &text).await?;
        seen::mark(ctx, path);
        let what = match (existed, append) {
            (true, true) => "added at the end of the existing file",
            (true, false) => "overwrote the existing file",
            (false, _) => "new file",
        };
        Ok(format!("Wrote {} bytes to {path} ({what}).", content.len()).into())
    }
}
