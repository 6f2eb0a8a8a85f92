//! The v4a grammar (spec Appendix A) parsed into a list of [`Op`]s.
//!
//! Lenient where models are sloppy in harmless ways: whitespace around the markers and file
//! headers, blank lines between sections and hunks, and the whole patch wrapped in the shell
//! heredoc it is often seen in (`apply_patch <<'EOF'`, optionally after `cd DIR &&`). Strict about
//! everything that decides what is changed.

use crate::text::split_lines;

const BEGIN: &str = "*** Begin Patch";
const END: &str = "*** End Patch";
const ADD: &str = "*** Add File: ";
const DELETE: &str = "*** Delete File: ";
const UPDATE: &str = "*** Update File: ";
const MOVE: &str = "*** Move to: ";
const END_OF_FILE: &str = "*** End of File";

/// One file section of a patch. Paths are as written, under the heredoc's `cd` directory if any.
#[derive(Debug, PartialEq)]
pub enum Op<'a> {
    Add { path: String, lines: Vec<&'a str> },
    Delete { path: String },
    Update { path: String, move_to: Option<String>, chunks: Vec<Chunk<'a>> },
}

impl Op<'_> {
    /// The files the operation reads or writes.
    pub fn paths(&self) -> [Option<&str>; 2] {
        match self {
            Op::Add { path, .. } | Op::Delete { path } => [Some(path), None],
            Op::Update { path, move_to, .. } => [Some(path), move_to.as_deref()],
        }
    }
}

/// One `@@` hunk of an update.
#[derive(Debug, PartialEq, Default)]
pub struct Chunk<'a> {
    /// The text after `@@ `: a line at or above the change to seek to first.
    pub context: Option<&'a str>,
    /// The hunk's lines without their prefix.
    pub lines: Vec<(Tag, &'a str)>,
    /// Marked `*** End of File`: the old lines end the file.
    pub at_end: bool,
}

/// What a hunk line says about the file, from its first character.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tag {
    /// ` `: in the file before and after.
    Context,
    /// `-`: in the file before only.
    Removed,
    /// `+`: in the file after only.
    Added,
}

impl<'a> Chunk<'a> {
    /// The context and `-` lines, which must be found in the file in this order.
    pub fn old(&self) -> Vec<&'a str> {
        let mut old = Vec::with_capacity(self.lines.len());
        for &(tag, line) in &self.lines {
            if tag != Tag::Added {
                old.push(line);
            }
        }
        old
    }
}

/// A patch that cannot be read; the message names the line and says how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub String);

/// The operations of a patch, in order. Nothing is checked against any file here.
pub fn parse(input: &str) -> Result<Vec<Op<'_>>, ParseError> {
    let (dir, body) = unwrap_heredoc(input.trim());
    // As `str::lines` splits, but for a bare CR ending the last line, which is only ever read
    // trimmed; a copy of `Lines` in this crate would cost the browser bundle.
    let lines = split_lines(body, true);
    let (Some(first), Some(last)) = (lines.first(), lines.last()) else {
        return Err(ParseError(format!("apply_patch: the patch is empty. Send the whole patch, from `{BEGIN}` to `{END}`.")));
    };
    if first.trim() != BEGIN {
        return Err(ParseError(format!("apply_patch: the first line of the patch must be `{BEGIN}`, not `{}`.", first.trim())));
    }
    if lines.len() < 2 || last.trim() != END {
        return Err(ParseError(format!(
            "apply_patch: the last line of the patch must be `{END}`. If the patch was cut short, send all of it again."
        )));
    }
    let mut parser = Parser { lines: &lines[..lines.len() - 1], at: 1, dir };
    let ops = parser.ops()?;
    if ops.is_empty() {
        return Err(ParseError(format!(
            "apply_patch: the patch changes no files. Put at least one `{ADD}PATH`, `{DELETE}PATH` or \
             `{UPDATE}PATH` section between `{BEGIN}` and `{END}`."
        )));
    }
    Ok(ops)
}

/// The directory of a leading `cd DIR &&` and the patch inside `apply_patch <<'EOF' ... EOF`;
/// text that is not such a heredoc is returned as it is.
fn unwrap_heredoc(text: &str) -> (Option<&str>, &str) {
    let Some((opener, rest)) = text.split_once('\n') else { return (None, text) };
    let Some((dir, delimiter)) = heredoc_opener(opener) else { return (None, text) };
    // A heredoc that lost its closing line still holds the patch.
    let body = match rest.trim_end().strip_suffix(delimiter) {
        Some(body) if ends_with_blank_line(body) => body,
        _ => rest,
    };
    (dir, body)
}

/// Whether the text after the last newline is only whitespace. (Trimmed from the end rather than
/// split from it: a reverse search of its own in this crate costs the browser bundle.)
fn ends_with_blank_line(text: &str) -> bool {
    let trimmed = text.trim_end_matches(|c: char| c != '\n' && c.is_whitespace());
    trimmed.is_empty() || trimmed.ends_with('\n')
}

/// `[cd DIR &&] [apply_patch|applypatch] <<[-]['"]EOF['"]`: the directory and the delimiter.
fn heredoc_opener(line: &str) -> Option<(Option<&str>, &str)> {
    let mut rest = line.trim();
    let mut dir = None;
    if let Some(after_cd) = rest.strip_prefix("cd ") {
        let (path, after) = after_cd.split_once("&&")?;
        dir = Some(unquote(path.trim())).filter(|dir| !dir.is_empty() && *dir != ".");
        rest = after.trim_start();
    }
    for command in ["apply_patch", "applypatch"] {
        if let Some(after) = rest.strip_prefix(command) {
            rest = after.trim_start();
            break;
        }
    }
    let delimiter = unquote(rest.strip_prefix("<<")?.trim_start_matches('-').trim());
    (!delimiter.is_empty() && !delimiter.contains(char::is_whitespace)).then_some((dir, delimiter))
}

fn unquote(text: &str) -> &str {
    for quote in ['\'', '"'] {
        if let Some(inner) = text.strip_prefix(quote).and_then(|t| t.strip_suffix(quote)) {
            return inner;
        }
    }
    text
}

struct Parser<'a, 'l> {
    /// The patch from `*** Begin Patch` up to (not including) `*** End Patch`.
    lines: &'l [&'a str],
    /// The next line to read.
    at: usize,
    dir: Option<&'a str>,
}

impl<'a> Parser<'a, '_> {
    fn peek(&self) -> Option<&'a str> {
        self.lines.get(self.at).copied()
    }

    fn ops(&mut self) -> Result<Vec<Op<'a>>, ParseError> {
        let mut ops = Vec::new();
        while let Some(line) = self.peek() {
            let header = line.trim();
            self.at += 1;
            if header.is_empty() {
                continue;
            }
            if let Some(path) = header.strip_prefix(ADD) {
                let path = self.path(path)?;
                let mut lines = Vec::new();
                while let Some(added) = self.peek().and_then(|line| line.strip_prefix('+')) {
                    lines.push(added);
                    self.at += 1;
                }
                ops.push(Op::Add { path, lines });
            } else if let Some(path) = header.strip_prefix(DELETE) {
                ops.push(Op::Delete { path: self.path(path)? });
            } else if let Some(path) = header.strip_prefix(UPDATE) {
                let path = self.path(path)?;
                let move_to = match self.peek().and_then(|line| line.trim().strip_prefix(MOVE)) {
                    Some(to) => {
                        self.at += 1;
                        Some(self.path(to)?)
                    }
                    None => None,
                };
                let chunks = self.chunks(&path)?;
                ops.push(Op::Update { path, move_to, chunks });
            } else {
                return Err(self.error(format!(
                    "`{header}` is not a file section. Start each section with `{ADD}PATH`, `{DELETE}PATH` or `{UPDATE}PATH`; \
                     in an added file every line starts with `+`."
                )));
            }
        }
        Ok(ops)
    }

    fn path(&self, written: &str) -> Result<String, ParseError> {
        let path = written.trim();
        if path.is_empty() {
            return Err(self.error("the file path is missing.".into()));
        }
        Ok(match self.dir {
            Some(dir) if !path.starts_with('/') => format!("{}/{path}", dir.trim_end_matches('/')),
            _ => path.to_owned(),
        })
    }

    fn chunks(&mut self, path: &str) -> Result<Vec<Chunk<'a>>, ParseError> {
        let mut chunks = Vec::new();
        loop {
            while self.peek().is_some_and(|line| line.trim().is_empty()) {
                self.at += 1;
            }
            match self.peek() {
                Some(line) if !line.trim_start().starts_with("***") => chunks.push(self.chunk(path, chunks.is_empty())?),
                _ => break,
            }
        }
        if chunks.is_empty() {
            return Err(self.error(format!("the update of {path} has no hunks. Add an `@@` hunk with the lines to change.")));
        }
        Ok(chunks)
    }

    /// A hunk from its `@@` line, which the first hunk of a file may leave out.
    fn chunk(&mut self, path: &str, first: bool) -> Result<Chunk<'a>, ParseError> {
        let mut chunk = Chunk::default();
        let header = self.peek().unwrap_or_default().trim();
        if let Some(context) = header.strip_prefix("@@") {
            chunk.context = Some(context.trim()).filter(|context| !context.is_empty());
            self.at += 1;
        } else if !first {
            return Err(self.error(format!("expected an `@@` line to start the next hunk of {path}, found `{header}`.")));
        }
        let start = self.at;
        while let Some(line) = self.peek() {
            if line.trim() == END_OF_FILE {
                chunk.at_end = true;
                self.at += 1;
                break;
            }
            // An empty line is an empty context line whose leading space was lost.
            let tagged = match line.as_bytes().first() {
                None => (Tag::Context, ""),
                Some(b' ') => (Tag::Context, &line[1..]),
                Some(b'-') => (Tag::Removed, &line[1..]),
                Some(b'+') => (Tag::Added, &line[1..]),
                // The next file's header.
                Some(b'*') if line.starts_with("***") => break,
                Some(_) if self.at == start => {
                    return Err(self.error(format!(
                        "`{line}` is not a hunk line of {path}. Start every line of a hunk with ` ` (context), \
                         `-` (removed) or `+` (added)."
                    )))
                }
                Some(_) => break,
            };
            chunk.lines.push(tagged);
            self.at += 1;
        }
        if self.at == start {
            return Err(self.error(format!("a hunk of {path} has no lines. Follow each `@@` line with the lines to change.")));
        }
        Ok(chunk)
    }

    /// Names the line just read, counting `*** Begin Patch` as line 1.
    fn error(&self, message: String) -> ParseError {
        ParseError(format!("apply_patch: invalid patch at line {}: {message}", self.at.max(1)))
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn update(path: &str, chunks: Vec<Chunk<'static>>) -> Op<'static> {
        Op::Update { path: path.into(), move_to: None, chunks }
    }

    #[test]
    fn parses_every_operation() {
        let patch = "*** Begin Patch\n*** Add File: new.txt\n+one\n+\n*** Delete File: old.txt\n\
                     *** Update File: a.rs\n*** Move to: b.rs\n@@ fn main\n ctx\n-old\n+new\n*** End of File\n*** End Patch";
        let lines = vec![(Tag::Context, "ctx"), (Tag::Removed, "old"), (Tag::Added, "new")];
        let chunk = Chunk { context: Some("fn main"), lines, at_end: true };
        assert_eq!(
            parse(patch).unwrap(),
            [
                Op::Add { path: "new.txt".into(), lines: vec!["one", ""] },
                Op::Delete { path: "old.txt".into() },
                Op::Update { path: "a.rs".into(), move_to: Some("b.rs".into()), chunks: vec![chunk] },
            ]
        );
    }

    #[test]
    fn the_first_hunk_may_omit_its_header_and_blank_lines_are_context() {
        let patch = "*** Begin Patch\n*** Update File: a\n a\n\n-b\n@@\n+c\n\n*** End Patch\n";
        let first = Chunk { lines: vec![(Tag::Context, "a"), (Tag::Context, ""), (Tag::Removed, "b")], ..Chunk::default() };
        let second = Chunk { lines: vec![(Tag::Added, "c"), (Tag::Context, "")], ..Chunk::default() };
        assert_eq!(first.old(), ["a", "", "b"]);
        assert_eq!(parse(patch).unwrap(), [update("a", vec![first, second])]);
    }

    #[test]
    fn heredocs_and_whitespace_are_unwrapped() {
        let want = [Op::Delete { path: "x".into() }];
        for opener in ["apply_patch <<'EOF'", "apply_patch <<\"EOF\"", "applypatch <<EOF", "<<EOF", "apply_patch <<-EOF"] {
            let patch = format!("\n  {opener}\n*** Begin Patch\n  *** Delete File: x  \n*** End Patch\nEOF\n\n");
            assert_eq!(parse(&patch).unwrap(), want, "{opener}");
        }
        let cut_short = "apply_patch <<'PATCH'\n*** Begin Patch\n*** Delete File: x\n*** End Patch";
        assert_eq!(parse(cut_short).unwrap(), want);
    }

    #[test]
    fn crlf_patches_parse_as_lf_ones() {
        let patch = "*** Begin Patch\n*** Update File: a\n@@ fn main\n ctx\n-old\n+new\n*** End Patch\n";
        assert_eq!(parse(&patch.replace('\n', "\r\n")).unwrap(), parse(patch).unwrap());
        let heredoc = "apply_patch <<'EOF'\r\n*** Begin Patch\r\n*** Delete File: x\r\n*** End Patch\r\nEOF\r\n";
        assert_eq!(parse(heredoc).unwrap(), [Op::Delete { path: "x".into() }]);
    }

    #[test]
    fn a_heredoc_delimiter_inside_a_line_does_not_close_it() {
        let patch = "apply_patch <<EOF\n*** Begin Patch\n*** Delete File: x\n*** End PatchEOF";
        assert!(parse(patch).unwrap_err().to_string().contains("the last line of the patch must be `*** End Patch`"));
    }

    #[test]
    fn a_cd_before_the_heredoc_prefixes_relative_paths() {
        let patch =
            "cd 'my app' && apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** Delete File: /abs\n*** End Patch\nEOF";
        assert_eq!(parse(patch).unwrap(), [Op::Delete { path: "my app/x".into() }, Op::Delete { path: "/abs".into() }]);
    }

    #[test]
    fn missing_markers_and_empty_patches_are_explained() {
        let err = |patch: &str| parse(patch).unwrap_err().to_string();
        assert_eq!(
            err("  \n"),
            "apply_patch: the patch is empty. Send the whole patch, from `*** Begin Patch` to `*** End Patch`."
        );
        assert_eq!(
            err("*** Update File: a\n*** End Patch"),
            "apply_patch: the first line of the patch must be `*** Begin Patch`, not `*** Update File: a`."
        );
        assert!(err("*** Begin Patch\n*** Delete File: a")
            .starts_with("apply_patch: the last line of the patch must be `*** End Patch`."));
        assert!(err("*** Begin Patch").contains("last line"));
        assert!(err("*** Begin Patch\n\n*** End Patch").starts_with("apply_patch: the patch changes no files."));
    }

    #[test]
    fn malformed_sections_name_the_line() {
        let err = |body: &str| parse(&format!("*** Begin Patch\n{body}\n*** End Patch")).unwrap_err().to_string();
        assert!(err("*** Frobnicate: a")
            .starts_with("apply_patch: invalid patch at line 2: `*** Frobnicate: a` is not a file section."));
        assert!(err("*** Add File: a\n+x\nno plus").contains("line 4: `no plus` is not a file section"));
        assert!(err("*** Update File: a\n*** Delete File: b").contains("the update of a has no hunks"));
        assert!(err("*** Update File: a\n@@\n*** Delete File: b").contains("a hunk of a has no lines"));
        assert!(err("*** Update File: a\n@@\n x\n@@\n?y").contains("`?y` is not a hunk line of a"));
        assert!(err("*** Update File: a\n@@\n x\nnot a hunk").contains("expected an `@@` line to start the next hunk of a"));
    }
}
