//! `read_file` (spec 3.3): a text file with line numbers, or an image for multimodal models.

use std::fmt::Write;

use async_trait::async_trait;
use serde_json::Value;

use super::args::{optional_usize, required_str};
use super::{schema, seen, ToolContext, ToolError, ToolExecutor, ToolOutput};
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
            offset to read next. Only regular files are read (not pipes or devices). Image files (png, jpg, jpeg, gif, webp) are returned as images. \
            Read a file before you edit it."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "Path of the file, absolute or relative to the working directory."},
                "offset": {"type": "integer", "minimum": 1, "description": "1-based line number to start from (default 1)."},
                "limit": {"type": "integer", "minimum": 1, "description": "Most lines to return (default 2000)."}
            },
            "required": ["file_path"],
            "additionalProperties": false
        }"#,
        ),
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
            let data = match ctx.env.read_bytes(path).await {
                Ok(data) => data,
                Err(e) => return Err(explain_read_error(e)),
            };
            seen::mark(ctx, path);
            let text = format!("Image {path} ({media_type}, {} bytes).", data.len());
            let image = MediaData { data: Some(data), media_type: Some(media_type.into()), ..MediaData::default() };
            return Ok(ToolOutput { text, image: Some(image) });
        }

        // Only the lines asked for and one more, which says whether the file goes on: a 10-line
        // read of a huge file must not read it all. So the total is not known, and not shown.
        let text = match ctx.env.read_file(path, Some(offset), Some(limit.saturating_add(1))).await {
            Ok(text) => text,
            Err(e) => return Err(explain_read_error(e)),
        };
        let Some(count) = line_count(&text) else {
            // Valid UTF-8 can still be binary (NUL bytes); not every environment checks for that.
            return Err(explain_read_error(EnvError::BinaryFile(path.into())));
        };
        seen::mark(ctx, path);
        number_lines(path, &text, count, offset, limit).map(ToolOutput::from)
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

/// Numbers the `count` lines of `text`, which start at line `offset`; a line past `limit` means
/// the file goes on.
fn number_lines(path: &str, text: &str, count: usize, offset: usize, limit: usize) -> Result<String, ToolError> {
    if count == 0 && offset == 1 {
        return Ok(format!("{path} is empty."));
    }
    if count == 0 {
        return Err(ToolError::new(format!(
            "offset {offset} is past the end of {path}, which has fewer than {offset} lines. Use a smaller offset, \
             or read it from the start."
        )));
    }
    let last = offset + count.min(limit) - 1;
    let width = last.to_string().len().max(4);
    // One buffer sized up front: this runs on every read, and a file is often read whole.
    let mut out = String::with_capacity(text.len() + (last + 1 - offset) * (width + 3) + 80);
    // The lines as `str::lines` gives them (no `\r` before a newline), found a vector at a time.
    let ends = memchr::memchr_iter(b'\n', text.as_bytes()).chain(std::iter::once(text.len()));
    let mut start = 0;
    for (n, end) in (offset..=last).zip(ends) {
        let mut line = &text[start..end];
        if end < text.len() {
            line = line.strip_suffix('\r').unwrap_or(line);
        }
        start = end + 1;
        push_line_number(&mut out, n, width);
        push_cut_line(&mut out, line);
        out.push('\n');
    }
    if count > limit {
        let _ = writeln!(out, "[Showing lines {offset}-{last}; the file goes on. Use offset={} to read more.]", last + 1);
    }
    out.pop();
    Ok(out)
}

/// What `text.lines().count()` says, or `None` when the text holds a NUL byte (binary).
fn line_count(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if memchr::memchr(0, bytes).is_some() {
        return None;
    }
    let newlines = memchr::memchr_iter(b'\n', bytes).count();
    Some(newlines + usize::from(!text.is_empty() && !text.ends_with('\n')))
}

/// Appends `n` right-aligned in `width` columns and the ` | ` separator. With itoa rather than
/// `write!`: formatting machinery per line was most of the cost of reading a file.
fn push_line_number(out: &mut String, n: usize, width: usize) {
    const SPACES: &str = "                    "; // as many as a usize has digits
    let mut digits = itoa::Buffer::new();
    let digits = digits.format(n);
    out.push_str(&SPACES[..width.saturating_sub(digits.len()).min(SPACES.len())]);
    out.push_str(digits);
    out.push_str(" | ");
}

fn push_cut_line(out: &mut String, line: &str) {
    // A line of at most MAX_LINE_CHARS bytes has at most that many characters: no counting needed.
    let cut = if line.len() <= MAX_LINE_CHARS { None } else { line.char_indices().nth(MAX_LINE_CHARS) };
    match cut {
        None => out.push_str(line),
        Some((at, _)) => {
            let rest = line[at..].chars().count();
            let _ = write!(out, "{}... [line cut: {rest} more characters]", &line[..at]);
        }
    }
}

/// The media type an image file's extension names (png, jpg, jpeg, gif, webp); `None` for any other.
pub fn image_media_type(path: &str) -> Option<&'static str> {
    let (_, ext) = path.rsplit_once('.')?;
    let types =
        [("png", "image/png"), ("jpg", "image/jpeg"), ("jpeg", "image/jpeg"), ("gif", "image/gif"), ("webp", "image/webp")];
    types.into_iter().find(|(name, _)| ext.eq_ignore_ascii_case(name)).map(|(_, media_type)| media_type)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn line_count_agrees_with_lines() {
        for text in ["", "a", "a\n", "a\n\n", "\n", "\r\n", "a\r\nb", "a\nb\n", "x\n\ny"] {
            assert_eq!(line_count(text), Some(text.lines().count()), "{text:?}");
        }
        assert_eq!(line_count("a\0b\n"), None);
    }

    #[test]
    fn numbered_lines_are_the_lines_str_lines_gives() {
        for text in ["a", "a\n", "a\n\n", "\n", "\r\n", "a\r\nb", "a\nb\n", "x\n\ny", "x\r\n\r\ny\r"] {
            let count = line_count(text).unwrap();
            let expected: Vec<String> = text.lines().enumerate().map(|(n, line)| format!("{:>4} | {line}", n + 1)).collect();
            assert_eq!(number_lines("f", text, count, 1, 2000).unwrap(), expected.join("\n"), "{text:?}");
        }
        // From line 2, two of them, the file going on.
        let numbered = number_lines("f", "b\r\nc\nd\n", 3, 2, 2).unwrap();
        assert_eq!(numbered, "   2 | b\n   3 | c\n[Showing lines 2-3; the file goes on. Use offset=4 to read more.]");
        // Past 9999 the numbers are wider, and all of them line up.
        assert_eq!(number_lines("f", "x\ny\n", 2, 9999, 2).unwrap(), " 9999 | x\n10000 | y");
    }

    #[test]
    fn image_types_follow_the_extension() {
        assert_eq!(image_media_type("a.png"), Some("image/png"));
        assert_eq!(image_media_type("a.JPG"), Some("image/jpeg"));
        assert_eq!(image_media_type("a.jpeg"), Some("image/jpeg"));
        assert_eq!(image_media_type("a.webp"), Some("image/webp"));
        assert_eq!(image_media_type("a.svg"), None);
        assert_eq!(image_media_type("png"), None);
    }
}
