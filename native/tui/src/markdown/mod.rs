//! The model's markdown as terminal lines: headings, emphasis, inline code, lists, quotes, rules,
//! links and fenced code with syntax highlighting. Soft line breaks are kept as breaks: a model's
//! line breaks are meant, and it keeps a line that was shown from changing as more text streams.
//!
//! [`MarkdownStream`] renders text as it streams: a line is shown once it is complete, and the
//! text before a new top-level block is frozen, so each delta renders only the block in progress.

mod writer;

pub use self::writer::render;
use self::writer::render_open;
use super::text::Line;

/// Lines the block in progress may grow to before it is cut where it stands: a long code block
/// or list is rendered a bounded piece at a time, never again from its start for each new line.
const MAX_OPEN_LINES: usize = 64;

/// Markdown arriving in pieces. Lines are handed out once complete and never change after; the
/// unfinished last line is [`MarkdownStream::tail`], for the screen's live part. A table is
/// handed out whole, once a block after it starts or the text ends: each row may widen its
/// columns, and so change the rows before it.
#[derive(Debug, Default)]
pub struct MarkdownStream {
    source: String,
    /// Where the text that is rendered for good ends.
    frozen_at: usize,
    /// How many lines of the text after `frozen_at` were handed out.
    shown: usize,
    /// When `frozen_at` cut a code block: its opening fence, put back before the text after it.
    reopen: String,
    /// Where the unfinished last line starts (after the last newline).
    line_start: usize,
    /// The block in progress is a table: it is not cut where it stands.
    in_table: bool,
}

impl MarkdownStream {
    /// Adds `delta`; gives the lines completed by it, rendered at `columns`.
    pub fn push(&mut self, delta: &str, columns: usize) -> Vec<Line> {
        let Some(at) = delta.rfind('\n') else {
            self.source.push_str(delta);
            return Vec::new();
        };
        let end = self.source.len() + at;
        self.source.push_str(delta);
        self.line_start = end + 1;
        let mut lines = self.freeze(end + 1, columns);
        let (mut rendered, table) = render_open(&self.open_text(end + 1), columns);
        let line_begin = self.source[..end].rfind('\n').map_or(0, |at| at + 1).max(self.frozen_at);
        match table {
            Some(start) => rendered.truncate(start),
            // A line with a bar may be a table's header: the next line says, with its `|---|`.
            None if self.source.get(line_begin..end).is_some_and(|line| line.contains('|')) => {
                rendered.truncate(render(&self.open_text(line_begin), columns).len());
            }
            None => {}
        }
        self.in_table = table.is_some();
        lines.extend(self.take_new(rendered));
        lines
    }

    /// The text after the last complete line.
    pub fn tail(&self) -> &str {
        &self.source[self.line_start..]
    }

    /// Everything so far.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The text is complete: the lines not handed out yet.
    pub fn finish(&mut self, columns: usize) -> Vec<Line> {
        let rendered = render(&self.open_text(self.source.len()), columns);
        self.take_new(rendered)
    }

    /// The text after `frozen_at` up to `end`, as it renders: behind its fence when it is the
    /// rest of a code block.
    fn open_text(&self, end: usize) -> String {
        [self.reopen.as_str(), &self.source[self.frozen_at..end]].concat()
    }

    fn take_new(&mut self, rendered: Vec<Line>) -> Vec<Line> {
        let new = rendered.get(self.shown..).map(<[Line]>::to_vec).unwrap_or_default();
        self.shown = self.shown.max(rendered.len());
        new
    }

    /// Moves `frozen_at` on, when it can, and gives the frozen text's lines not handed out yet.
    ///
    /// - To the start of the last top-level block before `end`: a line after a blank line, not
    ///   indented, outside any code fence. What comes after cannot change how the text before it
    ///   renders, which is its lines, a blank line, then the rest's.
    /// - Else, when the block in progress is over [`MAX_OPEN_LINES`], to `end` itself: a
    ///   paragraph, a list or a code block cut between lines renders the same lines (a code
    ///   block's fence is put back before its rest).
    fn freeze(&mut self, end: usize, columns: usize) -> Vec<Line> {
        let mut fence = (!self.reopen.is_empty()).then(|| self.reopen.clone());
        let mut after_blank = false;
        let mut candidate = None;
        let mut at = self.frozen_at;
        let mut count = 0;
        for line in self.source[self.frozen_at..end].split_inclusive('\n') {
            let trimmed = line.trim_start();
            if fence.is_none() && after_blank && at > self.frozen_at && !line.starts_with([' ', '\t']) && !trimmed.is_empty() {
                candidate = Some(at);
            }
            if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
                fence = if fence.is_some() { None } else { Some(line.to_owned()) };
            }
            after_blank = trimmed.is_empty();
            at += line.len();
            count += 1;
        }
        let (start, gap, reopen) = match candidate {
            Some(start) => (start, true, String::new()),
            None if count > MAX_OPEN_LINES && !self.in_table => (end, after_blank, fence.unwrap_or_default()),
            None => return Vec::new(),
        };
        let mut before = render(&self.open_text(start), columns);
        if gap && !before.is_empty() {
            before.push(Line::default());
        }
        self.frozen_at = start;
        self.reopen = reopen;
        let owed = before.get(self.shown..).map(<[Line]>::to_vec).unwrap_or_default();
        self.shown = self.shown.saturating_sub(before.len());
        owed
    }
}

#[cfg(test)]
mod tests;
