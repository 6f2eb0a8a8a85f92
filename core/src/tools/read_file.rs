//! `read_file` (spec 3.3): a text file with line numbers, or an image for multimodal models.

use std::fmt::Write;

use async_trait::async_trait;
use serde_json::Value;

use super::args::{optional_usize, required_str};
use super::{schema, ToolContext, ToolError, ToolExecutor, ToolOutput};
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
            let data = ctx.env.read_bytes(path).await.map_err(explain_read_error)?;
            let text = format!("Image {path} ({media_type}, {} bytes).", data.len());
            let image = MediaData { data: Some(data), media_type: Some(media_type.into()), ..MediaData::default() };
            return Ok(ToolOutput { text, image: Some(image) });
        }

        // Only the lines asked for and one more, which says whether the file goes on: a 10-line
        // read of a huge file must not read it all. So the total is not known, and not shown.
        let text = ctx.env.read_file(path, Some(offset), Some(limit.saturating_add(1))).await.map_err(explain_read_error)?;
        let Some(count) = line_count(&text) else {
            // Valid UTF-8 can still be binary (NUL bytes); not every environment checks for that.
            return Err(explain_read_error(EnvError::BinaryFile(path.into())));
        };
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
    for (n, line) in (offset..=last).zip(text.lines()) {
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

/// What `text.lines().count()` says, or `None` when the text holds a NUL byte (binary). Two
/// simple passes: `memchr` for the NUL and a count the compiler vectorises (a fused loop did not).
fn line_count(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.contains(&0) {
        return None;
    }
    let newlines = bytes.iter().filter(|&&b| b == b'\n').count();
    Some(newlines + usize::from(!text.is_empty() && !text.ends_with('\n')))
}

/// Appends `n` right-aligned in `width` columns and the ` | ` separator. By hand rather than
/// through `write!`: formatting machinery per line was most of the cost of reading a file.
fn push_line_number(out: &mut String, n: usize, width: usize) {
    let mut digits = [b' '; 20];
    let (mut at, mut rest) = (digits.len(), n);
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    (digits.len() - at..width).for_each(|_| out.push(' '));
    out.extend(digits[at..].iter().map(|&d| d as char));
    out.push_str(" | ");
}

/// Appends `line`, cut after `MAX_LINE_CHARS` characters with a note of what was left out.
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

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;
    use crate::tools::testing::{memory_env, run, run_err, run_ok, write};

    fn numbered(count: usize) -> String {
        (1..=count).map(|n| format!("line {n}\n")).collect()
    }

    #[test]
    fn line_count_agrees_with_lines() {
        for text in ["", "a", "a\n", "a\n\n", "\n", "\r\n", "a\r\nb", "a\nb\n", "x\n\ny"] {
            assert_eq!(line_count(text), Some(text.lines().count()), "{text:?}");
        }
        assert_eq!(line_count("a\0b\n"), None);
    }

    #[test]
    fn numbers_every_line() {
        let env = memory_env();
        write(&env, "src/a.rs", "fn main() {\n    run();\n}\n");
        let out = run_ok(&ReadFileTool, &env, json!({"file_path": "src/a.rs"}));
        assert_eq!(out, "   1 | fn main() {\n   2 |     run();\n   3 | }");
    }

    #[test]
    fn a_last_line_without_newline_and_crlf_endings_read_the_same() {
        let env = memory_env();
        write(&env, "/workspace/w.txt", "one\r\ntwo\r\nthree");
        let out = run_ok(&ReadFileTool, &env, json!({"file_path": "/workspace/w.txt"}));
        assert_eq!(out, "   1 | one\n   2 | two\n   3 | three");
    }

    #[test]
    fn offset_and_limit_select_lines_and_say_where_to_go_on() {
        let env = memory_env();
        write(&env, "f.txt", &numbered(5));
        let out = run_ok(&ReadFileTool, &env, json!({"file_path": "f.txt", "offset": 2, "limit": 2}));
        assert_eq!(out, "   2 | line 2\n   3 | line 3\n[Showing lines 2-3; the file goes on. Use offset=4 to read more.]");
        let rest = run_ok(&ReadFileTool, &env, json!({"file_path": "f.txt", "offset": 4}));
        assert_eq!(rest, "   4 | line 4\n   5 | line 5");
        let to_the_end = run_ok(&ReadFileTool, &env, json!({"file_path": "f.txt", "offset": 4, "limit": 2}));
        assert_eq!(to_the_end, "   4 | line 4\n   5 | line 5");
    }

    #[test]
    fn reads_2000_lines_by_default() {
        let env = memory_env();
        write(&env, "big.txt", &numbered(2500));
        let out = run_ok(&ReadFileTool, &env, json!({"file_path": "big.txt"}));
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 2001);
        assert_eq!(lines[0], "   1 | line 1");
        assert_eq!(lines[1999], "2000 | line 2000");
        assert_eq!(lines[2000], "[Showing lines 1-2000; the file goes on. Use offset=2001 to read more.]");
    }

    #[test]
    fn line_numbers_widen_past_four_digits() {
        let env = memory_env();
        write(&env, "big.txt", &numbered(10_001));
        let out = run_ok(&ReadFileTool, &env, json!({"file_path": "big.txt", "offset": 9999, "limit": 3}));
        assert_eq!(out, " 9999 | line 9999\n10000 | line 10000\n10001 | line 10001");
    }

    #[test]
    fn an_empty_file_says_so() {
        let env = memory_env();
        write(&env, "empty.txt", "");
        assert_eq!(run_ok(&ReadFileTool, &env, json!({"file_path": "empty.txt"})), "empty.txt is empty.");
    }

    #[test]
    fn an_offset_past_the_end_is_an_error() {
        let env = memory_env();
        write(&env, "f.txt", &numbered(3));
        assert_eq!(
            run_err(&ReadFileTool, &env, json!({"file_path": "f.txt", "offset": 4})),
            "offset 4 is past the end of f.txt, which has fewer than 4 lines. Use a smaller offset, or read it from the start."
        );
    }

    #[test]
    fn long_lines_are_cut_on_a_character_boundary() {
        let env = memory_env();
        write(&env, "min.js", &format!("{}\nshort\n", "é".repeat(2600)));
        let out = run_ok(&ReadFileTool, &env, json!({"file_path": "min.js"}));
        let expected = format!("   1 | {}... [line cut: 600 more characters]\n   2 | short", "é".repeat(2000));
        assert_eq!(out, expected);
    }

    #[test]
    fn text_with_nul_bytes_is_binary() {
        let env = memory_env();
        write(&env, "/workspace/data.bin", "ab\0cd");
        assert_eq!(
            run_err(&ReadFileTool, &env, json!({"file_path": "/workspace/data.bin"})),
            "/workspace/data.bin is a binary file; it cannot be shown as text. Only text files and images can be read."
        );
    }

    #[test]
    fn non_utf8_files_are_binary() {
        let env = memory_env();
        env.write_bytes("latin1.txt", &[b'c', 0xe9]).expect("written");
        assert_eq!(
            run_err(&ReadFileTool, &env, json!({"file_path": "latin1.txt"})),
            "/workspace/latin1.txt is a binary file; it cannot be shown as text. Only text files and images can be read."
        );
    }

    #[test]
    fn a_missing_file_suggests_glob() {
        let env = memory_env();
        assert_eq!(
            run_err(&ReadFileTool, &env, json!({"file_path": "/workspace/nope.rs"})),
            "file not found: /workspace/nope.rs. Check the path, or use glob to find the file."
        );
    }

    #[test]
    fn a_directory_suggests_listing_it() {
        let env = memory_env();
        write(&env, "/workspace/src/a.rs", "x");
        assert_eq!(
            run_err(&ReadFileTool, &env, json!({"file_path": "/workspace/src"})),
            "/workspace/src is a directory, not a file. Use glob (or `ls` in the shell) to list its files, \
             then read one of them."
        );
    }

    #[test]
    fn images_come_back_as_media() {
        let env = memory_env();
        write(&env, "img/logo.GIF", "GIF89a");
        let out = run(&ReadFileTool, &env, json!({"file_path": "img/logo.GIF"})).expect("image read");
        assert_eq!(out.text, "Image img/logo.GIF (image/gif, 6 bytes).");
        let image = out.image.expect("image attached");
        assert_eq!(image.data.as_deref(), Some(&b"GIF89a"[..]));
        assert_eq!(image.media_type.as_deref(), Some("image/gif"));
    }

    #[test]
    fn binary_image_bytes_are_returned_unchanged() {
        let env = memory_env();
        let png = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0];
        env.write_bytes("shot.png", &png).expect("written");
        let out = run(&ReadFileTool, &env, json!({"file_path": "shot.png"})).expect("image read");
        assert_eq!(out.text, "Image shot.png (image/png, 9 bytes).");
        let expected = MediaData { data: Some(png.to_vec()), media_type: Some("image/png".into()), ..MediaData::default() };
        assert_eq!(out.image, Some(expected));
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
