//! `read_file` (spec 3.3): a text file with line numbers, or an image for multimodal models.

use std::fmt::Write;

use async_trait::async_trait;
use serde_json::Value;

use super::args::{optional_usize, required_str};
use super::{schema, seen, ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::env::{line_start, EnvError};
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
            return Ok(ToolOutput { text, image: Some(image), sandbox_denied: None });
        }

        // A file held in memory is read where it is. Any other is read from its offset, the lines
        // asked for and one more, which says whether it goes on: a 10-line read of a huge file
        // must not read it all. So the total is not known, and not shown.
        let (shared, read);
        let text = match ctx.env.shared_text(path) {
            Some(text) => {
                shared = text.map_err(explain_read_error)?;
                &shared[line_start(&shared, offset - 1)..]
            }
            None => {
                read = ctx.env.read_file(path, Some(offset), Some(limit.saturating_add(1))).await.map_err(explain_read_error)?;
                &read
            }
        };
        let numbered = number_lines(path, text, offset, limit)?;
        seen::mark(ctx, path);
        Ok(numbered.into())
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

/// Numbers the first `limit` lines of `text`, which start at line `offset`; a line past `limit`
/// means the file goes on.
fn number_lines(path: &str, text: &str, offset: usize, limit: usize) -> Result<String, ToolError> {
    if text.is_empty() && offset == 1 {
        return Ok(format!("{path} is empty."));
    }
    if text.is_empty() {
        return Err(ToolError::new(format!(
            "offset {offset} is past the end of {path}, which has fewer than {offset} lines. Use a smaller offset, \
             or read it from the start."
        )));
    }
    // The widest number sets the width. Below line 10 000 it is 4, whatever the count: only a
    // read that may go past it counts the lines it shows first.
    let width = match offset.saturating_add(limit) <= 10_000 {
        true => 4,
        false => (offset + line_count(&text[..line_start(text, limit)]) - 1).to_string().len().max(4),
    };
    // One buffer sized up front for lines of a usual length (the numbers add an eighth to lines
    // of 60 bytes): this runs on every read, and a file is often read whole. `text` may run far
    // past the lines asked for.
    let room = text.len().min(limit.saturating_mul(256));
    let mut out = String::with_capacity(room + room / 8 + 80);
    // The lines as `str::lines` gives them (no `\r` before a newline).
    let mut rest = text;
    let mut shown = 0;
    while !rest.is_empty() && shown < limit {
        let line = match memchr::memchr(b'\n', rest.as_bytes()) {
            Some(end) => {
                let line = &rest[..end];
                rest = &rest[end + 1..];
                line.strip_suffix('\r').unwrap_or(line)
            }
            None => std::mem::take(&mut rest),
        };
        push_line_number(&mut out, offset + shown, width);
        push_cut_line(&mut out, line);
        out.push('\n');
        shown += 1;
    }
    // Valid UTF-8 can still be binary (NUL bytes); not every environment checks for that.
    if memchr::memchr(0, &text.as_bytes()[..text.len() - rest.len()]).is_some() {
        return Err(explain_read_error(EnvError::BinaryFile(path.into())));
    }
    if !rest.is_empty() {
        let last = offset + shown - 1;
        let _ = writeln!(out, "[Showing lines {offset}-{last}; the file goes on. Use offset={} to read more.]", last + 1);
    }
    out.pop();
    Ok(out)
}

/// How many lines `str::lines` finds in `text`.
fn line_count(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count() + usize::from(!text.is_empty() && !text.ends_with('\n'))
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
            assert_eq!(line_count(text), text.lines().count(), "{text:?}");
        }
    }

    #[test]
    fn numbered_lines_are_the_lines_str_lines_gives() {
        for text in ["a", "a\n", "a\n\n", "\n", "\r\n", "a\r\nb", "a\nb\n", "x\n\ny", "x\r\n\r\ny\r"] {
            let expected: Vec<String> = text.lines().enumerate().map(|(n, line)| format!("{:>4} | {line}", n + 1)).collect();
            assert_eq!(number_lines("f", text, 1, 2000).unwrap(), expected.join("\n"), "{text:?}");
        }
        // From line 2, two of them, the file going on.
        let numbered = number_lines("f", "b\r\nc\nd\n", 2, 2).unwrap();
        assert_eq!(numbered, "   2 | b\n   3 | c\n[Showing lines 2-3; the file goes on. Use offset=4 to read more.]");
        // Exactly the lines asked for: the file does not go on.
        assert_eq!(number_lines("f", "b\nc\n", 2, 2).unwrap(), "   2 | b\n   3 | c");
    }

    #[test]
    fn numbers_line_up_at_the_width_of_the_last_one_shown() {
        assert_eq!(number_lines("f", "x\ny\n", 9999, 2).unwrap(), " 9999 | x\n10000 | y");
        assert_eq!(
            number_lines("f", "x\ny\nz\n", 9999, 1).unwrap(),
            "9999 | x\n[Showing lines 9999-9999; the file goes on. Use offset=10000 to read more.]"
        );
        // A limit far past the end does not widen the numbers of a short file.
        assert_eq!(number_lines("f", "x\n", 1, 50_000).unwrap(), "   1 | x");
        assert_eq!(number_lines("f", "x\ny", 99_999, 50_000).unwrap(), " 99999 | x\n100000 | y");
    }

    #[test]
    fn a_nul_byte_in_the_lines_shown_is_a_binary_file() {
        let error = number_lines("f.bin", "text\nmore\0\n", 1, 10).unwrap_err();
        assert!(error.to_string().contains("f.bin is a binary file"), "{error}");
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
