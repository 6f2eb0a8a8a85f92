//! Tool output truncation (spec 5.1 to 5.3): characters first, always; then lines, where a
//! limit applies. The model gets the truncated text; `TOOL_CALL_END` carries the full output.
//! An output within its limits is handed back as it is, borrowed: most are, and a copy of each
//! would be a tool round's largest cost.

use std::borrow::Cow;

use super::config::SessionConfig;

/// Which part of an over-long output is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TruncationMode {
    /// The beginning and the end, with a marker in the middle.
    HeadTail,
    /// The end only.
    Tail,
}

/// The character limit and mode of spec 5.2 for a tool; unknown tools get 30 000, head/tail.
/// Gemini's `read_many_files` reads like `read_file`, so it gets the same room.
pub fn default_char_limit(tool: &str) -> (usize, TruncationMode) {
    use TruncationMode::*;
    match tool {
        "read_file" | "read_many_files" => (50_000, HeadTail),
        "shell" => (30_000, HeadTail),
        "grep" | "glob" => (20_000, Tail),
        "edit_file" | "apply_patch" => (10_000, Tail),
        "write_file" => (1_000, Tail),
        // Subagent results: `wait` is where they come back.
        "spawn_agent" | "wait" => (20_000, HeadTail),
        _ => (30_000, HeadTail),
    }
}

/// The line limit of spec 5.3 for a tool, if it has one.
pub fn default_line_limit(tool: &str) -> Option<usize> {
    match tool {
        "shell" => Some(256),
        "grep" => Some(200),
        "glob" => Some(500),
        _ => None,
    }
}

/// Byte offset of the `n`th character of `s` (or its length).
fn char_offset(s: &str, n: usize) -> usize {
    s.char_indices().nth(n).map_or(s.len(), |(at, _)| at)
}

/// Byte offset where the last `n` characters of `s` begin.
fn tail_offset(s: &str, n: usize) -> usize {
    if n == 0 {
        return s.len();
    }
    s.char_indices().rev().nth(n - 1).map_or(0, |(at, _)| at)
}

/// Spec 5.1: keeps at most `max_chars` characters of `output`, with a marker that says how many
/// were removed and where the full output is.
pub fn truncate_output(output: &str, max_chars: usize, mode: TruncationMode) -> Cow<'_, str> {
    // A string of n bytes has at most n characters: most outputs need no counting at all.
    if output.len() <= max_chars {
        return Cow::Borrowed(output);
    }
    let total = output.chars().count();
    if total <= max_chars {
        return Cow::Borrowed(output);
    }
    let removed = total - max_chars;
    Cow::Owned(match mode {
        TruncationMode::HeadTail => {
            let half = max_chars / 2;
            format!(
                "{}\n\n[WARNING: Tool output was truncated. {removed} characters were removed from the middle. \
                 The full output is available in the event stream. If you need to see specific parts, \
                 re-run the tool with more targeted parameters.]\n\n{}",
                &output[..char_offset(output, half)],
                &output[tail_offset(output, half)..]
            )
        }
        TruncationMode::Tail => format!(
            "[WARNING: Tool output was truncated. First {removed} characters were removed. \
             The full output is available in the event stream.]\n\n{}",
            &output[tail_offset(output, max_chars)..]
        ),
    })
}

/// Spec 5.3: keeps the first and last lines of `output` when it has more than `max_lines`.
pub fn truncate_lines(output: &str, max_lines: usize) -> Cow<'_, str> {
    let total = memchr::memchr_iter(b'\n', output.as_bytes()).count() + 1;
    if total <= max_lines {
        return Cow::Borrowed(output);
    }
    let head = max_lines / 2;
    let tail = max_lines - head;
    let omitted = total - head - tail;
    let lines: Vec<&str> = output.split('\n').collect();
    Cow::Owned(format!("{}\n[... {omitted} lines omitted ...]\n{}", lines[..head].join("\n"), lines[total - tail..].join("\n")))
}

/// Spec 5.3: the whole pipeline for one tool's output, with the session's overrides.
pub fn truncate_tool_output<'a>(output: &'a str, tool: &str, config: &SessionConfig) -> Cow<'a, str> {
    let (default_chars, mode) = default_char_limit(tool);
    let max_chars = config.tool_output_limits.get(tool).copied().unwrap_or(default_chars);
    let result = truncate_output(output, max_chars, mode);
    match config.tool_line_limits.get(tool).copied().or_else(|| default_line_limit(tool)) {
        Some(max_lines) => match result {
            Cow::Borrowed(output) => truncate_lines(output, max_lines),
            Cow::Owned(cut) => Cow::Owned(truncate_lines(&cut, max_lines).into_owned()),
        },
        None => result,
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn short_output_passes_untouched() {
        assert_eq!(truncate_output("hello", 5, TruncationMode::HeadTail), "hello");
        assert_eq!(truncate_tool_output("a\nb", "shell", &SessionConfig::default()), "a\nb");
        // Within its limits, the output itself comes back: no copy.
        assert!(matches!(truncate_tool_output("a\nb", "shell", &SessionConfig::default()), Cow::Borrowed("a\nb")));
    }

    #[test]
    fn head_tail_keeps_both_ends_with_the_exact_marker() {
        let text = format!("{}{}", "a".repeat(60), "b".repeat(60));
        let out = truncate_output(&text, 20, TruncationMode::HeadTail);
        assert_eq!(
            out,
            format!(
                "{}\n\n[WARNING: Tool output was truncated. 100 characters were removed from the middle. \
                 The full output is available in the event stream. If you need to see specific parts, \
                 re-run the tool with more targeted parameters.]\n\n{}",
                "a".repeat(10),
                "b".repeat(10)
            )
        );
    }

    #[test]
    fn tail_keeps_the_end_with_the_exact_marker() {
        let out = truncate_output("0123456789", 4, TruncationMode::Tail);
        assert_eq!(
            out,
            "[WARNING: Tool output was truncated. First 6 characters were removed. \
             The full output is available in the event stream.]\n\n6789"
        );
    }

    #[test]
    fn counts_characters_not_bytes() {
        // 10 characters, 30 bytes: within a 10-character limit.
        let text = "€".repeat(10);
        assert_eq!(truncate_output(&text, 10, TruncationMode::Tail), text);
        let cut = truncate_output(&text, 4, TruncationMode::HeadTail);
        assert!(cut.starts_with("€€\n\n[WARNING") && cut.ends_with("]\n\n€€"), "{cut}");
    }

    #[test]
    fn lines_keep_head_and_tail_with_the_exact_marker() {
        let text: Vec<String> = (1..=10).map(|n| n.to_string()).collect();
        assert_eq!(truncate_lines(&text.join("\n"), 4), "1\n2\n[... 6 lines omitted ...]\n9\n10");
    }

    #[test]
    fn characters_are_cut_before_lines() {
        // Two lines of 10 MB each: a line limit alone would let this through.
        let huge = format!("{}\n{}", "x".repeat(10_000_000), "y".repeat(10_000_000));
        let out = truncate_tool_output(&huge, "shell", &SessionConfig::default());
        assert!(out.chars().count() < 31_000, "character truncation must run first");
        assert!(out.contains("characters were removed from the middle"));
    }

    #[test]
    fn default_limits_match_the_spec_tables() {
        assert_eq!(default_char_limit("read_file"), (50_000, TruncationMode::HeadTail));
        assert_eq!(default_char_limit("read_many_files"), (50_000, TruncationMode::HeadTail));
        assert_eq!(default_char_limit("shell"), (30_000, TruncationMode::HeadTail));
        assert_eq!(default_char_limit("grep"), (20_000, TruncationMode::Tail));
        assert_eq!(default_char_limit("glob"), (20_000, TruncationMode::Tail));
        assert_eq!(default_char_limit("edit_file"), (10_000, TruncationMode::Tail));
        assert_eq!(default_char_limit("apply_patch"), (10_000, TruncationMode::Tail));
        assert_eq!(default_char_limit("write_file"), (1_000, TruncationMode::Tail));
        assert_eq!(default_char_limit("spawn_agent"), (20_000, TruncationMode::HeadTail));
        assert_eq!(default_char_limit("wait"), (20_000, TruncationMode::HeadTail));
        assert_eq!(default_line_limit("shell"), Some(256));
        assert_eq!(default_line_limit("grep"), Some(200));
        assert_eq!(default_line_limit("glob"), Some(500));
        assert_eq!(default_line_limit("read_file"), None);
    }

    #[test]
    fn limits_are_overridable() {
        let mut config = SessionConfig::default();
        config.tool_output_limits.insert("read_file".into(), 10);
        let text = "z".repeat(100);
        let out = truncate_tool_output(&text, "read_file", &config);
        assert!(out.contains("90 characters were removed"), "{out}");
        config.tool_line_limits.insert("read_file".into(), 2);
        let out = truncate_tool_output("1\n2\n3\n4", "read_file", &config);
        assert_eq!(out, "1\n[... 2 lines omitted ...]\n4");
    }
}
