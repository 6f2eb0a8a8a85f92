//! `read_many_files` (spec 3.6, as gemini-cli has it): several files, or every file a glob
//! matches, in one call.

use async_trait::async_trait;
use serde_json::Value;

use super::{schema, seen, ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::env::EnvError;
use crate::llm::ToolDefinition;

/// More than this in one call would mostly be cut by the output limit anyway.
const MAX_FILES: usize = 50;

pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: "read_many_files".into(),
        description: "Read several text files in one call. Each entry of paths is a file path or a glob \
            pattern such as `src/**/*.ts`, relative to the working directory. Returns each file's content \
            under a `--- path ---` header, at most 50 files. For one file, line numbers or images, use read_file."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "paths": {
                    "type": "array",
                    "items": {"type": "string"},
                    "minItems": 1,
                    "description": "File paths and glob patterns, e.g. [\"README.md\", \"src/**/*.py\"]."
                }
            },
            "required": ["paths"],
            "additionalProperties": false
        }"#,
        ),
    }
}

pub struct ReadManyFilesTool;

#[async_trait(?Send)]
impl ToolExecutor for ReadManyFilesTool {
    async fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let wrong = || ToolError::new("Argument \"paths\" must be a list of file paths or glob patterns.");
        let entries = args.get("paths").and_then(Value::as_array).ok_or_else(wrong)?;
        let cwd = ctx.env.working_directory();
        let mut files = Vec::new();
        for entry in entries {
            let entry = entry.as_str().ok_or_else(wrong)?;
            if entry.contains(['*', '?', '[', '{']) {
                files.extend(ctx.env.glob(entry, &cwd).await?);
            } else {
                files.push(entry.to_owned());
            }
        }
        // Each file once, in the order asked for. A search of at most MAX_FILES entries rather
        // than a set: a set type weighs more in the browser bundle than this costs.
        let mut chosen: Vec<String> = Vec::new();
        let mut more = false;
        for file in files {
            if chosen.contains(&file) {
                continue;
            }
            if chosen.len() == MAX_FILES {
                more = true;
                break;
            }
            chosen.push(file);
        }
        if chosen.is_empty() {
            return Ok("No files matched.".into());
        }
        let mut out = String::new();
        for path in &chosen {
            out.push_str(&format!("--- {path} ---\n"));
            // Valid UTF-8 can still be binary (NUL bytes); not every environment checks for that.
            let read = ctx.env.read_file(path, None, None).await.and_then(|text| match text.contains('\0') {
                true => Err(EnvError::BinaryFile(path.clone())),
                false => Ok(text),
            });
            // A file that cannot be read is noted and the others still come back.
            match read {
                Ok(text) => {
                    seen::mark(ctx, path);
                    out.push_str(&text);
                    if !text.ends_with('\n') {
                        out.push('\n');
                    }
                }
                Err(error) => out.push_str(&format!("[skipped: {error}]\n")),
            }
        }
        if more {
            out.push_str(&format!("[Read the first {MAX_FILES} files; more matched. Ask for the others in another call.]\n"));
        }
        out.pop();
        Ok(out.into())
    }
}
