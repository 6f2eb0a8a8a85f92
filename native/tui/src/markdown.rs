//! The model's markdown as terminal lines: headings, emphasis, inline code, lists, quotes, rules,
//! links and fenced code with syntax highlighting. Soft line breaks are kept as breaks: a model's
//! line breaks are meant, and it keeps a line that was shown from changing as more text streams.
//!
//! [`MarkdownStream`] renders text as it streams: a line is shown once it is complete, and the
//! text before a new top-level block is frozen, so each delta renders only the block in progress.

use crossterm::style::{Attribute, Color, ContentStyle, Stylize};
use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use super::highlight;
use super::text::{bold, dim, fg, width, Line};

/// Renders `source` at `columns`, without trailing blank lines.
pub fn render(source: &str, columns: usize) -> Vec<Line> {
    render_open(source, columns).0
}

/// [`render`], and where the table `source` ends with starts among the lines, if it ends with
/// one: more rows may still come and widen its columns.
fn render_open(source: &str, columns: usize) -> (Vec<Line>, Option<usize>) {
    let mut writer = Writer { columns, ..Writer::default() };
    for event in Parser::new_ext(source, Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS) {
        writer.event(event);
    }
    writer.flush();
    while writer.lines.last().is_some_and(|line| line.width() == 0) {
        writer.lines.pop();
    }
    let last_table = writer.last_table.filter(|&(_, end)| end == writer.lines.len()).map(|(start, _)| start);
    (writer.lines, last_table)
}

/// A list being written: the next item's number, if ordered, and the width of its item's
/// marker (`• `, `12. `, and `[ ] ` after it), under which the item's text hangs.
struct List {
    next: Option<u64>,
    marker: usize,
}

/// A table being written: its columns' alignments, and its rows of cells (the first one the
/// header, when it has one).
#[derive(Default)]
struct Table {
    alignments: Vec<Alignment>,
    rows: Vec<Vec<Line>>,
    head: bool,
}

#[derive(Default)]
struct Writer {
    columns: usize,
    lines: Vec<Line>,
    /// The line being built, before wrapping.
    current: Line,
    /// Prefix of the current line's first row, and of the rows it wraps onto.
    first_prefix: Option<Line>,
    styles: Vec<ContentStyle>,
    lists: Vec<List>,
    quote_depth: usize,
    /// In a fenced or indented code block: its language and text so far.
    code: Option<(String, String)>,
    link: Option<String>,
    /// A blank line goes before the next block (not before the first).
    gap: bool,
    /// In a table: its rows so far; cells are laid out together at its end.
    table: Option<Table>,
    /// The lines of the last table (from, to), until another block starts.
    last_table: Option<(usize, usize)>,
}

impl Writer {
    fn style(&self) -> ContentStyle {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, apply: impl FnOnce(ContentStyle) -> ContentStyle) {
        let style = apply(self.style());
        self.styles.push(style);
    }

    /// The prefix of continuation rows: quote bars, and the list items' markers as spaces.
    fn indent(&self) -> Line {
        self.indent_for(self.lists.len())
    }

    fn block_start(&mut self) {
        // A loose list item's paragraph: its first line takes the item's marker.
        if self.current.spans.is_empty() && self.first_prefix.is_some() {
            return;
        }
        self.flush();
        self.last_table = None;
        if std::mem::take(&mut self.gap) && self.lists.is_empty() {
            let mut blank = Line::default();
            for _ in 0..self.quote_depth {
                blank.push("│", fg(Color::DarkGrey));
            }
            self.lines.push(blank);
        }
    }

    /// Ends the current line: wrapped, with its prefixes.
    fn flush(&mut self) {
        let prefix = self.first_prefix.take();
        if self.current.spans.is_empty() && prefix.is_none() {
            return;
        }
        let indent = self.indent();
        let mut line = prefix.unwrap_or_else(|| indent.clone());
        for span in std::mem::take(&mut self.current).spans {
            line.push(span.text, span.style);
        }
        self.lines.extend(line.wrap(self.columns, &indent));
    }

    fn text(&mut self, text: &str) {
        if let Some((_, code)) = &mut self.code {
            code.push_str(text);
            return;
        }
        let style = self.style();
        self.current.push(text, style);
    }

    fn event(&mut self, event: Event) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                let style = self.style().with(Color::Cyan);
                self.current.push(code.to_string(), style);
            }
            Event::SoftBreak | Event::HardBreak => self.flush(),
            Event::Rule => {
                self.block_start();
                let rule = "─".repeat(self.columns.saturating_sub(self.indent().width()).min(60));
                self.current.push(rule, fg(Color::DarkGrey));
                self.flush();
                self.gap = true;
            }
            Event::TaskListMarker(done) => {
                self.current.push(if done { "[x] " } else { "[ ] " }, fg(Color::DarkGrey));
                if let Some(list) = self.lists.last_mut() {
                    list.marker += 4;
                }
            }
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html),
            Event::InlineMath(math) | Event::DisplayMath(math) => self.text(&math),
            Event::FootnoteReference(name) => self.text(&format!("[^{name}]")),
        }
    }

    fn start(&mut self, tag: Tag) {
        match tag {
            Tag::Paragraph => self.block_start(),
            Tag::Heading { level, .. } => {
                self.block_start();
                let color = if level == HeadingLevel::H1 { Color::Magenta } else { Color::Blue };
                let marks = "#".repeat(level as usize);
                self.current.push(format!("{marks} "), fg(color));
                self.push_style(|_| bold().with(color));
            }
            Tag::BlockQuote(_) => {
                self.block_start();
                self.quote_depth += 1;
            }
            Tag::CodeBlock(kind) => {
                self.block_start();
                let language = match kind {
                    CodeBlockKind::Fenced(info) => info.split([' ', ',']).next().unwrap_or("").to_owned(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((language, String::new()));
            }
            Tag::List(start) => {
                if self.lists.is_empty() {
                    self.block_start();
                } else {
                    self.flush();
                }
                self.lists.push(List { next: start, marker: 0 });
            }
            Tag::Item => {
                self.flush();
                let depth = self.lists.len().saturating_sub(1);
                let mut prefix = self.indent_for(depth);
                let Some(list) = self.lists.last_mut() else { return };
                let marker = match list.next.as_mut() {
                    Some(number) => {
                        *number += 1;
                        format!("{}. ", *number - 1)
                    }
                    None => "• ".to_owned(),
                };
                list.marker = width(&marker);
                prefix.push(marker, fg(Color::Yellow));
                self.first_prefix = Some(prefix);
            }
            Tag::Emphasis => self.push_style(|style| style.attribute(Attribute::Italic)),
            Tag::Strong => self.push_style(|style| style.attribute(Attribute::Bold)),
            Tag::Strikethrough => self.push_style(|style| style.attribute(Attribute::CrossedOut)),
            Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. } => {
                self.push_style(|style| style.with(Color::Blue).attribute(Attribute::Underlined));
                self.link = Some(dest_url.to_string());
            }
            Tag::Table(alignments) => {
                self.block_start();
                self.table = Some(Table { alignments, ..Table::default() });
            }
            Tag::TableHead | Tag::TableRow => {
                if let Some(table) = &mut self.table {
                    table.rows.push(Vec::new());
                }
            }
            _ => {}
        }
    }

    /// The prefix of rows inside the first `depth` lists: quote bars, then the width of each
    /// list's item marker (an item of the list at `depth` puts its marker after it).
    fn indent_for(&self, depth: usize) -> Line {
        let mut line = Line::default();
        for _ in 0..self.quote_depth {
            line.push("│ ", fg(Color::DarkGrey));
        }
        line.push(" ".repeat(self.lists[..depth].iter().map(|list| list.marker).sum()), ContentStyle::new());
        line
    }

    /// The table's rows: its columns padded to one width each and aligned as it says, a rule
    /// under its header; rows wrapped instead when that is wider than the screen.
    fn table(&mut self, table: Table) {
        let indent = self.indent();
        let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
        let widths: Vec<usize> =
            (0..columns).map(|c| table.rows.iter().filter_map(|row| row.get(c)).map(Line::width).max().unwrap_or(0)).collect();
        let fits = indent.width() + widths.iter().sum::<usize>() + 3 * columns.saturating_sub(1) <= self.columns;
        let bar = fg(Color::DarkGrey);
        for (index, row) in table.rows.iter().enumerate() {
            let mut line = indent.clone();
            for (c, cell) in row.iter().enumerate() {
                if c > 0 {
                    line.push(" │ ", bar);
                }
                let room = if fits { widths[c] - cell.width() } else { 0 };
                let before = match table.alignments.get(c) {
                    Some(Alignment::Right) => room,
                    Some(Alignment::Center) => room / 2,
                    _ => 0,
                };
                line.push(" ".repeat(before), ContentStyle::new());
                let header = index == 0 && table.head;
                for span in &cell.spans {
                    line.push(span.text.clone(), if header { span.style.attribute(Attribute::Bold) } else { span.style });
                }
                // The last cell is not padded: no trailing spaces.
                if c + 1 < row.len() {
                    line.push(" ".repeat(room - before), ContentStyle::new());
                }
            }
            self.lines.extend(line.wrap(self.columns, &indent));
            if index == 0 && table.head {
                let rule: Vec<String> = match fits {
                    true => widths.iter().map(|w| "─".repeat(*w)).collect(),
                    false => vec!["─".repeat(self.columns.saturating_sub(indent.width()).min(60))],
                };
                let mut line = indent.clone();
                line.push(rule.join("─┼─"), bar);
                self.lines.push(line);
            }
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => {
                self.flush();
                self.gap = true;
            }
            TagEnd::Heading(_) => {
                self.styles.pop();
                self.flush();
                self.gap = true;
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.quote_depth -= 1;
                self.gap = true;
            }
            TagEnd::CodeBlock => {
                let (language, code) = self.code.take().unwrap_or_default();
                let indent = self.indent();
                for row in highlight::lines(&code, &language) {
                    let mut line = indent.clone();
                    line.push("▏ ", fg(Color::DarkGrey));
                    for span in row.spans {
                        line.push(span.text, span.style);
                    }
                    let mut hang = indent.clone();
                    hang.push("▏ ", fg(Color::DarkGrey));
                    self.lines.extend(line.wrap(self.columns, &hang));
                }
                self.gap = true;
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
                self.gap = self.lists.is_empty();
            }
            TagEnd::Item => self.flush(),
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => {
                self.styles.pop();
            }
            TagEnd::Link | TagEnd::Image => {
                self.styles.pop();
                if let Some(url) = self.link.take().filter(|url| !url.is_empty()) {
                    self.current.push(format!(" ({url})"), dim());
                }
            }
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.current);
                if let Some(row) = self.table.as_mut().and_then(|table| table.rows.last_mut()) {
                    row.push(cell);
                }
            }
            TagEnd::TableHead => {
                if let Some(table) = &mut self.table {
                    table.head = true;
                }
            }
            TagEnd::Table => {
                let start = self.lines.len();
                if let Some(table) = self.table.take() {
                    self.table(table);
                }
                self.last_table = Some((start, self.lines.len()));
                self.gap = true;
            }
            _ => {}
        }
    }
}

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
mod tests {
    use super::*;

    fn texts(lines: &[Line]) -> Vec<String> {
        lines.iter().map(Line::text).collect()
    }

    #[test]
    fn headings_lists_quotes_and_code_are_laid_out() {
        let source = "# Title\n\nSome *text* and `code`.\n\n- one\n- two\n  1. inner\n\n> quoted\n\n```rust\nfn main() {}\n```\n";
        let lines = render(source, 80);
        assert_eq!(
            texts(&lines),
            ["# Title", "", "Some text and code.", "", "• one", "• two", "  1. inner", "", "│ quoted", "", "▏ fn main() {}"]
        );
        assert!(lines[0].spans.iter().any(|s| s.style.attributes.has(Attribute::Bold)));
        // The code is highlighted: more than one colour on its line.
        let colours: std::collections::HashSet<_> =
            lines[10].spans.iter().map(|s| format!("{:?}", s.style.foreground_color)).collect();
        assert!(colours.len() > 2, "{:?}", lines[10]);
    }

    #[test]
    fn tables_have_a_header_rule_and_aligned_columns() {
        let source = "| Name | Count | Note |\n|:-----|------:|:----:|\n| apple | 3 | ok |\n| kiwi | 12 | fine |\n";
        assert_eq!(
            texts(&render(source, 80)),
            ["Name  │ Count │ Note", "──────┼───────┼─────", "apple │     3 │  ok", "kiwi  │    12 │ fine"]
        );
        // Too wide to align: each row wraps, under a rule as wide as the screen allows.
        let wide = "| a | b |\n|---|---|\n| one two three four five | six |\n";
        let lines = texts(&render(wide, 12));
        assert_eq!(lines[..2], ["a │ b", "────────────"]);
        assert!(lines.iter().all(|line| line.chars().count() <= 12), "{lines:?}");
    }

    #[test]
    fn a_wrapped_list_item_hangs_under_its_text() {
        let source =
            "1. an ordered item long enough to wrap\n   - a nested item that wraps too\n- [ ] a task long enough to wrap\n";
        assert_eq!(
            texts(&render(source, 22)),
            [
                "1. an ordered item ",
                "   long enough to wrap",
                "   • a nested item ",
                "     that wraps too",
                "",
                "• [ ] a task long ",
                "      enough to wrap",
            ]
        );
        // A loose list's items keep their markers on their text.
        assert_eq!(texts(&render("- one\n\n- two\n", 40)), ["• one", "• two"]);
    }

    #[test]
    fn a_stream_shows_each_line_once_and_the_same_lines_as_a_whole_render() {
        let source = "Intro line\nsecond line\n\n## Steps\n\n1. first step\n2. second step\n\n| a | b |\n|---|--:|\n| one | 1 |\n| three | 333 |\n\n```py\nprint(1)\nprint(2)\n```\n\nDone, with a long closing paragraph that wraps.";
        for piece in [1, 3, 7, 64] {
            let mut stream = MarkdownStream::default();
            let mut shown = Vec::new();
            let chars: Vec<char> = source.chars().collect();
            for chunk in chars.chunks(piece) {
                shown.extend(stream.push(&chunk.iter().collect::<String>(), 30));
            }
            assert_eq!(stream.tail(), "Done, with a long closing paragraph that wraps.");
            shown.extend(stream.finish(30));
            assert_eq!(texts(&shown), texts(&render(source, 30)), "pieces of {piece}");
        }
    }

    /// A code block, a list or a paragraph of hundreds of lines streams in bounded pieces (the
    /// text rendered again per line stays under the cap) and shows the lines a whole render does.
    #[test]
    fn long_blocks_are_rendered_a_bounded_piece_at_a_time() {
        let code: String = (0..150).map(|n| format!("let x{n} = {n};\n")).collect();
        let list: String = (1..=300).map(|n| format!("{n}. item\n")).collect();
        let paragraph: String = (0..300).map(|n| format!("line {n}\n")).collect();
        for source in [format!("```rust\n{code}```\n\nafter\n"), list, paragraph] {
            let mut stream = MarkdownStream::default();
            let mut shown = Vec::new();
            for line in source.split_inclusive('\n') {
                shown.extend(stream.push(line, 80));
                let open = stream.source[stream.frozen_at..].lines().count();
                assert!(open <= MAX_OPEN_LINES + 1, "{open} lines would be rendered again");
            }
            shown.extend(stream.finish(80));
            assert_eq!(texts(&shown), texts(&render(&source, 80)), "{}", &source[..20]);
        }
    }
}
