//! `read_file` (spec 3.3): a text file with line numbers, or an image for multimodal models.

use async_trait::async_trait;
use serde_json::{json, Value};

use super::args::{optional_usize, required_str};
use super::{ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::env::EnvError;
use crate::llm::{MediaData, ToolDefinition};

const DEFAULT_LIMIT: usize = 2000;
/// Longer lines are cut: one minified line could otherwise fill the whole output budget.
const MAX_LINE_CHARS: usize = 2000;

pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: "read_file".into(),
        description: "Read a text file and return its lines numbered as `N | text`. Reads up to 2000 lines \
            from the start unless you pass offset and limit; when more lines remain, the output says which \
            offset to read next. Image files (png, jpg, jpeg, gif, webp) are returned as images. \
            Read a file before you edit it."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "Path of the file, absolute or relative to the working directory."},
                "offset": {"type": "integer", "minimum": 1, "description": "1-based line number to start from (default 1)."},
                "limit": {"type": "integer", "minimum": 1, "description": "Most lines to return (default 2000)."}
            },
            "required": ["file_path"],
            "additionalProperties": false
        }),
    }
}

pub struct ReadFileTool;

#[async_trait(?Send)]
impl ToolExecutor for ReadFileTool {
    async fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let path = required_str(args, "file_path")?;
        let offset = optional_usize(args, "offset")?.unwrap_or(1).max(1);
        let limit = optional_usize(args, "limit")?.unwrap_or(DEFAULT_LIMIT).max(1);

        if let Some(media_type) = image_media_type(path) {
            let data = ctx.env.read_bytes(path).await.map_err(explain_read_error)?;
            let text = format!("Image {path} ({media_type}, {} bytes).", data.len());
            let image = MediaData { data: Some(data), media_type: Some(media_type.into()), ..MediaData::default() };
            return Ok(ToolOutput { text, image: Some(image) });
        }

        // The whole file is read so that the output can say how many lines there are in total.
        let text = ctx.env.read_file(path, None, None).await.map_err(explain_read_error)?;
        if text.contains('\0') {
            return Err(explain_read_error(EnvError::BinaryFile(path.into())));
        }
        number_lines(path, &text, offset, limit).map(ToolOutput::from)
    }
}

/// Adds a next step to the errors a model is likely to hit while reading. Shared with `edit_file`.
pub(crate) fn explain_read_error(error: EnvError) -> ToolError {
    let hint = match &error {
        EnvError::NotFound(_) => "Check the path, or use glob to find the file.",
        EnvError::IsADirectory(_) => "Use glob (or `ls` in the shell) to list its files, then read one of them.",
        EnvError::BinaryFile(_) => "Only text files and images can be read.",
        _ => return error.into(),
    };
    ToolError::new(format!("{error}. {hint}"))
}

fn number_lines(path: &str, text: &str, offset: usize, limit: usize) -> Result<String, ToolError> {
    let lines: Vec<&str> = text.lines().collect();
    let total = lines.len();
    if total == 0 {
        return Ok(format!("{path} is empty."));
    }
    if offset > total {
        return Err(ToolError::new(format!(
            "offset {offset} is past the end of {path}, which has {total} lines. Use an offset from 1 to {total}."
        )));
    }
    let last = total.min(offset.saturating_add(limit - 1));
    let width = last.to_string().len().max(4);
    let mut out = String::new();
    for (n, line) in lines[offset - 1..last].iter().enumerate().map(|(i, line)| (offset + i, line)) {
        out.push_str(&format!("{n:>width$} | {}\n", cut_long_line(line)));
    }
    if last < total {
        out.push_str(&format!("[Showing lines {offset}-{last} of {total}. Use offset={} to read more.]\n", last + 1));
    }
    out.pop();
    Ok(out)
}

fn cut_long_line(line: &str) -> String {
    match line.char_indices().nth(MAX_LINE_CHARS) {
        None => line.to_owned(),
        Some((cut, _)) => {
            let rest = line[cut..].chars().count();
            format!("{}... [line cut: {rest} more characters]", &line[..cut])
        }
    }
}

fn image_media_type(path: &str) -> Option<&'static str> {
    let (_, ext) = path.rsplit_once('.')?;
    match ext.to_ascii_lowercase().as_str() {
        "png" => Some("image/png"),
        "jpg" | "jpeg" => Some("image/jpeg"),
        "gif" => Some("image/gif"),
        "webp" => Some("image/webp"),
        _ => None,
    }
}
