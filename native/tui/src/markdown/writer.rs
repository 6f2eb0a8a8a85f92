//! A whole text laid out: pulldown-cmark's events written into lines, block by block, by
//! [`Writer`].

use crossterm::style::{Attribute, Color, ContentStyle, Stylize};
use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::highlight;
use crate::text::{bold, dim, fg, width, Line};

/// Renders `source` at `columns`, without trailing blank lines.
pub fn render(source: &str, columns: usize) -> Vec<Line> {
    render_open(source, columns).0
}

/// [`render`], and where the table `source` ends with starts among the lines, if it ends with
/// one: more rows may still come and widen its columns.
pub(super) fn render_open(source: &str, columns: usize) -> (Vec<Line>, Option<usize>) {
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
