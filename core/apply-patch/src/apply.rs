//! A file's new content from the hunks of an update.
//!
//! Hunks apply in order, each searched for below the previous one (after its `@@` line first,
//! when it has one). Context lines keep the file's text, so a fuzzy match never rewrites the
//! lines around a change. A CRLF file is matched without its CRs and written back with CRLF. Like
//! codex, the result always ends with a line ending, even when the original did not.

use super::parse::{Chunk, Tag};
use super::seek::Seeker;
use crate::text::{split_lines, uses_crlf};

/// Why a hunk did not apply.
#[derive(Debug, PartialEq, Eq)]
pub enum Miss {
    /// Its `@@` line was not found.
    Context,
    /// Its context and `-` lines were not found.
    Lines,
}

/// The hunk (index into the chunks) that did not apply, and why.
#[derive(Debug, PartialEq, Eq)]
pub struct ChunkError {
    pub index: usize,
    pub miss: Miss,
}

/// Replaces the `len` lines at `at` as `lines` say.
struct Edit<'c, 'a> {
    at: usize,
    len: usize,
    lines: &'c [(Tag, &'a str)],
}

/// `content` with an update's `chunks` applied, or the first hunk that was not found in it.
pub fn apply_chunks(content: &str, chunks: &[Chunk<'_>]) -> Result<String, ChunkError> {
    let crlf = uses_crlf(content);
    let lines = split_lines(content, crlf);
    let mut seeker = Seeker::new(&lines);
    let mut edits = Vec::with_capacity(chunks.len());
    // Additions without an `@@` line go at the end of the file, after every other edit.
    let mut tail = Vec::new();
    let mut from = 0;
    for (index, chunk) in chunks.iter().enumerate() {
        if let Some(hint) = chunk.context {
            from = seeker.find_hint(hint, from).ok_or(ChunkError { index, miss: Miss::Context })? + 1;
        }
        let mut old = chunk.old();
        if old.is_empty() {
            // A pure addition goes right after its `@@` line.
            match chunk.context {
                Some(_) => edits.push(Edit { at: from, len: 0, lines: &chunk.lines }),
                None => tail.push(Edit { at: lines.len(), len: 0, lines: &chunk.lines }),
            }
            continue;
        }
        let mut tagged = &chunk.lines[..];
        let mut found = seeker.find(&old, from, chunk.at_end);
        // A trailing empty line often stands for the file's final newline, which is no line here.
        if let (None, Some((&(tag, ""), rest))) = (found, tagged.split_last()) {
            if tag != Tag::Added {
                tagged = rest;
                old.pop();
                found = seeker.find(&old, from, chunk.at_end);
            }
        }
        let at = found.ok_or(ChunkError { index, miss: Miss::Lines })?;
        edits.push(Edit { at, len: old.len(), lines: tagged });
        from = at + old.len();
    }
    // Each edit was found at or below the end of the one before, so they are in order.
    edits.append(&mut tail);
    let mut out = String::with_capacity(content.len() + content.len() / 8);
    join(&mut out, &lines, &edits, if crlf { "\r\n" } else { "\n" });
    Ok(out)
}

/// Writes `lines` with `edits` (in order, not overlapping) made, every line ended with `eol`.
fn join(out: &mut String, lines: &[&str], edits: &[Edit], eol: &str) {
    let mut push = |line: &str| {
        out.push_str(line);
        out.push_str(eol);
    };
    let mut next = 0;
    for edit in edits {
        lines.get(next..edit.at).unwrap_or_default().iter().for_each(|line| push(line));
        let mut old = edit.at;
        for &(tag, text) in edit.lines {
            match tag {
                Tag::Context => push(lines.get(old).unwrap_or(&text)),
                Tag::Added => push(text),
                Tag::Removed => {}
            }
            old += usize::from(tag != Tag::Added);
        }
        next = next.max(edit.at + edit.len);
    }
    lines.get(next..).unwrap_or_default().iter().for_each(|line| push(line));
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    /// A chunk from hunk lines written as in a patch: `" ctx"`, `"-old"`, `"+new"`.
    fn chunk(context: Option<&'static str>, hunk: &[&'static str]) -> Chunk<'static> {
        let tag = |line: &str| match line.as_bytes().first() {
            Some(b'-') => Tag::Removed,
            Some(b'+') => Tag::Added,
            _ => Tag::Context,
        };
        let lines = hunk.iter().map(|line| (tag(line), line.get(1..).unwrap_or(""))).collect();
        Chunk { context, lines, at_end: false }
    }

    #[test]
    fn several_chunks_apply_in_order() {
        let chunks = [chunk(None, &["-b", "+B"]), chunk(None, &[" c", "-d", "+D", "+D2"])];
        assert_eq!(apply_chunks("a\nb\nc\nd\ne\n", &chunks).unwrap(), "a\nB\nc\nD\nD2\ne\n");
    }

    #[test]
    fn a_later_chunk_is_only_searched_below_the_previous_one() {
        let chunks = [chunk(None, &["-d", "+D"]), chunk(None, &["-b", "+B"])];
        assert_eq!(apply_chunks("b\nd\n", &chunks), Err(ChunkError { index: 1, miss: Miss::Lines }));
    }

    #[test]
    fn the_context_hint_picks_the_second_of_two_identical_blocks() {
        let file = "fn one() {\n    x = 1;\n}\nfn two() {\n    x = 1;\n}\n";
        let chunks = [chunk(Some("fn two() {"), &["-    x = 1;", "+    x = 2;"])];
        assert_eq!(apply_chunks(file, &chunks).unwrap(), "fn one() {\n    x = 1;\n}\nfn two() {\n    x = 2;\n}\n");
        let missing = [chunk(Some("fn three"), &["-    x = 1;"])];
        assert_eq!(apply_chunks(file, &missing), Err(ChunkError { index: 0, miss: Miss::Context }));
    }

    #[test]
    fn end_of_file_targets_the_last_occurrence() {
        let mut last = chunk(None, &["-x", "+y"]);
        last.at_end = true;
        assert_eq!(apply_chunks("x\nmid\nx\n", &[last]).unwrap(), "x\nmid\ny\n");
    }

    #[test]
    fn pure_additions_go_after_the_hint_or_at_the_end() {
        assert_eq!(apply_chunks("a\nb\n", &[chunk(None, &["+c"])]).unwrap(), "a\nb\nc\n");
        assert_eq!(apply_chunks("a\nb\n", &[chunk(Some("a"), &["+a2"])]).unwrap(), "a\na2\nb\n");
    }

    #[test]
    fn a_trailing_empty_line_may_stand_for_the_final_newline() {
        assert_eq!(apply_chunks("a\nb\n", &[chunk(None, &["-b", "+c", ""])]).unwrap(), "a\nc\n");
    }

    #[test]
    fn context_lines_keep_the_files_text_after_a_fuzzy_match() {
        let chunks = [chunk(None, &[" say(\"hi\")", "-x", "+y"])];
        assert_eq!(apply_chunks("say(\u{201c}hi\u{201d})  \nx\n", &chunks).unwrap(), "say(\u{201c}hi\u{201d})  \ny\n");
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let chunks = [chunk(None, &[" one", "-two", "+2", "+2b"])];
        assert_eq!(apply_chunks("one\r\ntwo\r\nthree\r\n", &chunks).unwrap(), "one\r\n2\r\n2b\r\nthree\r\n");
    }

    #[test]
    fn the_result_always_ends_with_a_newline() {
        assert_eq!(apply_chunks("a\nb", &[chunk(None, &["-a", "+A"])]).unwrap(), "A\nb\n");
        assert_eq!(apply_chunks("a\n", &[chunk(None, &["-a"])]).unwrap(), "");
    }
}
