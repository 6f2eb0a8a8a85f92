//! `edit_file` (spec 3.3): replace an exact string in a file, with a normalising fallback
//! (see the `edit_match` module) that is always reported to the model.

use std::ops::Range;

use async_trait::async_trait;
use serde_json::Value;

use openagent_apply_patch::text::uses_crlf;

use super::args::{optional_bool, required_str};
use super::edit_match;
use super::read_file::explain_read_error;
use super::{schema, seen, ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::env::EnvError;
use crate::llm::ToolDefinition;

pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: "edit_file".into(),
        description: "Replace text in an existing file. old_string must match the file exactly, including \
            indentation, and must occur exactly once unless replace_all is true; include enough surrounding \
            lines to make it unique. Read the file first. To create a file or rewrite all of it, use write_file."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "Path of the file, absolute or relative to the working directory."},
                "old_string": {"type": "string", "description": "The exact text to replace, copied from the file."},
                "new_string": {"type": "string", "description": "The text to put in its place; must differ from old_string."},
                "replace_all": {"type": "boolean", "description": "Replace every occurrence instead of exactly one (default false)."}
            },
            "required": ["file_path", "old_string", "new_string"],
            "additionalProperties": false
        }"#,
        ),
    }
}

pub struct EditFileTool;

#[async_trait(?Send)]
impl ToolExecutor for EditFileTool {
    async fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let path = required_str(args, "file_path")?;
        let old = required_str(args, "old_string")?;
        let new = required_str(args, "new_string")?;
        let replace_all = optional_bool(args, "replace_all")?.unwrap_or(false);
        let content = match ctx.env.read_file(path, None, None).await {
            Ok(content) => content,
            Err(EnvError::NotFound(_)) if old.is_empty() => return create(path, new, ctx).await,
            Err(e) => return Err(explain_read_error(e)),
        };
        if old.is_empty() {
            return match content.is_empty() {
                true => create(path, new, ctx).await,
                false => Err(ToolError::new(format!(
                    "old_string is empty, but {path} is not: put the exact text to replace in old_string \
                     (read_file shows it), or use write_file to replace the whole file."
                ))),
            };
        }
        seen::require_read(ctx, path)?;
        // Models write LF; a CRLF file keeps its line endings.
        let crlf = uses_crlf(&content);
        let (old, new) = if crlf { (to_crlf(old), to_crlf(new)) } else { (old.to_owned(), new.to_owned()) };

        let found = edit_match::find(&content, &old);
        let count = found.ranges.len();
        // Where the text is not there, that is the more useful thing to learn: a model that sends
        // the same text twice often never read the file.
        if count == 0 {
            return Err(ToolError::new(not_found(path, &content, &old)));
        }
        if old == new {
            return Err(ToolError::new(
                "old_string and new_string are identical, so the edit would change nothing. \
                 Put the text you want in new_string.",
            ));
        }
        if count > 1 && !replace_all {
            return Err(ToolError::new(format!(
                "old_string matches {count} places in {path}. Add surrounding lines to old_string so that it \
                 matches exactly one place, or set replace_all to true to replace all {count}."
            )));
        }
        ctx.env.write_file(path, &splice(&content, &found.ranges, &new)).await?;
        seen::mark(ctx, path);

        let noun = if count == 1 { "occurrence" } else { "occurrences" };
        let how = if found.fuzzy { " (matched after normalising whitespace/Unicode punctuation)" } else { "" };
        Ok(format!("Replaced {count} {noun} in {path}{how}.").into())
    }
}

/// An empty `old_string` creates the file, or fills an empty one.
async fn create(path: &str, new: &str, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
    if new.is_empty() {
        return Err(ToolError::new("old_string and new_string are both empty, so the edit would change nothing."));
    }
    ctx.env.write_file(path, new).await?;
    seen::mark(ctx, path);
    Ok(format!("Wrote new_string to {path} as its whole content (old_string was empty).").into())
}

/// Says where the file differs from `old_string`: the lines most like it, numbered as
/// `read_file` numbers them, so the next call can copy them exactly.
fn not_found(path: &str, content: &str, old: &str) -> String {
    let Some((first, lines)) = edit_match::closest(content, old) else {
        return format!(
            "old_string was not found in {path}. Read the file to see its current content, \
             then retry with text that matches exactly."
        );
    };
    let last = first + lines.len() - 1;
    // Enough to copy from; a model that sent a whole function can read the file for the rest.
    let shown: Vec<String> = lines.iter().zip(first..).take(12).map(|(line, n)| format!("{n} | {line}")).collect();
    let place = if first == last { format!("line {first}") } else { format!("lines {first}-{last}") };
    format!(
        "old_string was not found in {path}. The closest text is at {place}:\n{}\n\
         Copy the text you want to change from there exactly (without the `N | ` prefixes) into old_string and retry.",
        shown.join("\n")
    )
}

/// Text that already has a CR is left as the model wrote it.
fn to_crlf(text: &str) -> String {
    if text.contains('\r') {
        text.to_owned()
    } else {
        text.replace('\n', "\r\n")
    }
}

/// `ranges` are in order and do not overlap.
fn splice(content: &str, ranges: &[Range<usize>], replacement: &str) -> String {
    let mut out = String::with_capacity(content.len() + replacement.len());
    let mut kept_from = 0;
    for range in ranges {
        out.push_str(&content[kept_from..range.start]);
        out.push_str(replacement);
        kept_from = range.end;
    }
    out.push_str(&content[kept_from..]);
    out
}
