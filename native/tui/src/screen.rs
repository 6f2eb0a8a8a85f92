//! The screen: a transcript printed into the terminal's own scrollback, and below it a small
//! live part (the line being streamed, the spinner, an open question, the input box and the
//! status line) redrawn in place. Finished text is never redrawn, so scrolling back works as
//! in any terminal program.
//!
//! What the terminal showed before the program started is scrolled into its scrollback when the
//! screen opens ([`Screen::open`]), so every row on the screen is the program's own. That is what
//! lets a resize lay the transcript out again without clearing anything: the rows on the screen
//! are written over in place at the new width, and the rows in the scrollback (the program's
//! older ones, and what was there before it) are left as the terminal keeps them. Nothing here
//! ever clears the scrollback (`ESC [3J`) or the whole screen (`ESC [2J`, which some terminals
//! also push into the scrollback).

use std::io::Write;

use crossterm::cursor::{MoveDown, MoveUp};
use crossterm::style::{Color, Stylize};
use crossterm::terminal::{BeginSynchronizedUpdate, Clear, ClearType, EndSynchronizedUpdate};
use crossterm::QueueableCommand;

use super::diff::{self, FileChange};
use super::markdown::{self, MarkdownStream};
use super::text::{bold, dim, fg, width, Line};

const FRAMES: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// A piece of the transcript, kept as what it was made from so it can be laid out again.
pub enum Block {
    Markdown(String),
    /// Lines wrapped at the width, with a hanging indent of two columns.
    Lines(Vec<Line>),
    Diff(FileChange),
    /// A tool call's output opened (by its number): lines as [`Block::Lines`], and it can be
    /// closed again.
    Output(usize, Vec<Line>),
}

impl Block {
    fn layout(&self, columns: usize) -> Vec<Line> {
        match self {
            Self::Markdown(source) => markdown::render(source, columns),
            Self::Lines(lines) | Self::Output(_, lines) => {
                lines.iter().flat_map(|line| line.wrap(columns, &Line::plain("  "))).collect()
            }
            Self::Diff(change) => diff::render(change, columns),
        }
    }
}

/// The model's thinking as it streams: printed a line at a time, dimmed, before its answer.
#[derive(Default)]
struct Thinking {
    text: String,
    /// Where the line not printed yet starts.
    printed: usize,
}

/// The heading over a model's thinking.
pub fn thinking_heading(who: &str) -> Line {
    Line::styled(format!("{who}✻ thinking"), dim())
}

/// Thinking `text` as the transcript shows it: each line dimmed, in italics, indented.
pub fn thought(text: &str) -> Vec<Line> {
    text.lines().map(|line| Line::styled(format!("  {line}"), dim().italic())).collect()
}

/// What the live part shows besides the input.
#[derive(Default)]
pub struct Live {
    /// What is being waited for, since when (for the spinner).
    pub waiting: Option<(String, std::time::Instant)>,
    /// An open question: its lines; keys answer it.
    pub question: Vec<Line>,
    /// The status line's text.
    pub status: String,
    /// A one-line notice under the input (a hint, "Ctrl-C again to quit").
    pub notice: Option<String>,
}

pub struct Screen {
    out: Box<dyn Write>,
    /// Colours are shown (`NO_COLOR` is not set): without, the styles stay.
    pub colour: bool,
    pub columns: usize,
    pub rows: usize,
    transcript: Vec<Block>,
    /// The assistant text being streamed.
    stream: Option<MarkdownStream>,
    /// The thinking being streamed, before the text.
    thinking: Option<Thinking>,
    pub live: Live,
    frame: usize,
    /// Rows of the live part above the cursor, where the last draw left it.
    cursor_row: usize,
    /// Rows the last draw gave the live part.
    live_rows: usize,
    /// Rows of transcript printed since the screen was opened or cleared (some may have scrolled
    /// off): the program's own rows above the live part.
    own_rows: usize,
    /// Lines finished since the last draw, printed above the live part at the next.
    pending: Vec<Line>,
    /// The size changed: the next draw writes the screen over from its top row.
    repaint: bool,
}

impl Screen {
    pub fn new(out: Box<dyn Write>, columns: usize, rows: usize) -> Self {
        Self {
            out,
            colour: true,
            columns: columns.max(1),
            rows: rows.max(1),
            transcript: Vec::new(),
            stream: None,
            thinking: None,
            live: Live::default(),
            frame: 0,
            cursor_row: 0,
            live_rows: 0,
            own_rows: 0,
            pending: Vec::new(),
            repaint: false,
        }
    }

    /// Scrolls what the terminal shows into its scrollback, unchanged, and starts at the top
    /// row: from here on every row on the screen is the program's own.
    pub fn open(&mut self) {
        let mut out = Vec::new();
        scroll_away(&mut out, self.rows);
        let _ = self.out.write_all(&out).and_then(|()| self.out.flush());
    }

    /// Adds a finished block to the transcript; it is printed at the next draw.
    pub fn push(&mut self, block: Block) {
        self.end_stream();
        self.pending.extend(block.layout(self.columns));
        self.transcript.push(block);
    }

    pub fn note(&mut self, color: Color, mark: &str, text: &str) {
        let mut line = Line::styled(format!("{mark} "), fg(color));
        line.push(text, Default::default());
        self.push(Block::Lines(vec![line]));
    }

    pub fn lines(&mut self, lines: Vec<Line>) {
        self.push(Block::Lines(lines));
    }

    /// More of the model's thinking: its complete lines are printed as they come.
    pub fn think(&mut self, delta: &str) {
        if self.stream.is_some() {
            self.end_stream();
        }
        let columns = self.columns;
        if self.thinking.is_none() {
            self.pending.extend(Block::Lines(vec![thinking_heading("")]).layout(columns));
        }
        let thinking = self.thinking.get_or_insert_with(Thinking::default);
        thinking.text.push_str(delta);
        if let Some(end) = thinking.text[thinking.printed..].rfind('\n') {
            let end = thinking.printed + end + 1;
            let lines = thought(&thinking.text[thinking.printed..end]);
            thinking.printed = end;
            self.pending.extend(Block::Lines(lines).layout(columns));
        }
    }

    /// The thinking is over (the text starts, or the response ends): it joins the transcript.
    fn end_thinking(&mut self) {
        if let Some(thinking) = self.thinking.take() {
            let rest = &thinking.text[thinking.printed..];
            self.pending.extend(Block::Lines(thought(rest)).layout(self.columns));
            let mut lines = vec![thinking_heading("")];
            lines.extend(thought(&thinking.text));
            self.transcript.push(Block::Lines(lines));
        }
    }

    /// More of the assistant's text.
    pub fn stream(&mut self, delta: &str) {
        self.end_thinking();
        let columns = self.columns;
        let stream = self.stream.get_or_insert_with(MarkdownStream::default);
        let lines = stream.push(delta, columns);
        self.pending.extend(lines);
    }

    /// The assistant's response is complete: its thinking and text join the transcript.
    pub fn end_stream(&mut self) {
        self.end_thinking();
        if let Some(mut stream) = self.stream.take() {
            self.pending.extend(stream.finish(self.columns));
            let source = stream.source().to_owned();
            if !source.trim().is_empty() {
                self.transcript.push(Block::Markdown(source));
            }
        }
    }

    /// A blank line between inputs, once the transcript has something.
    pub fn gap(&mut self) {
        if !self.transcript.is_empty() {
            self.push(Block::Lines(vec![Line::default()]));
        }
    }

    /// Forgets the transcript and starts again on an empty screen: `/clear`. What was on the
    /// screen goes into the scrollback, as a `clear` that keeps it would.
    pub fn clear(&mut self) {
        self.transcript.clear();
        self.stream = None;
        self.thinking = None;
        let mut out = Vec::new();
        self.print_pending(&mut out);
        scroll_away(&mut out, self.rows);
        (self.cursor_row, self.live_rows, self.own_rows) = (0, 0, 0);
        let _ = self.out.write_all(&out).and_then(|()| self.out.flush());
    }

    /// The terminal changed size: the transcript is laid out again for it, and the next draw
    /// writes the rows on the screen over with its end.
    pub fn resize(&mut self, columns: usize, rows: usize) {
        let mut out = Vec::new();
        let grew = rows > self.rows;
        if grew && self.own_rows + self.live_rows < rows {
            // A terminal that grows taller may pull rows back out of its scrollback (tmux does);
            // with less than a screen of its own, those are not the program's. Everything down to
            // the live part's end goes back into the scrollback before the screen is written.
            let below = self.live_rows.saturating_sub(self.cursor_row + 1);
            if below > 0 {
                let _ = out.queue(MoveDown(below as u16));
            }
            out.extend_from_slice(b"\r");
            out.extend(std::iter::repeat_n(b'\n', rows));
            self.own_rows = 0;
        }
        self.columns = columns.max(1);
        self.rows = rows.max(1);
        self.relayout();
        let _ = self.out.write_all(&out);
    }

    /// Takes the opened output of call `number` out of the transcript; false if it is not there.
    pub fn close_output(&mut self, number: usize) -> bool {
        let before = self.transcript.len();
        self.transcript.retain(|block| !matches!(block, Block::Output(n, _) if *n == number));
        let closed = self.transcript.len() < before;
        if closed {
            self.relayout();
        }
        closed
    }

    /// Lays the whole transcript out again, for the next draw to write the screen over with.
    fn relayout(&mut self) {
        self.pending = self.transcript.iter().flat_map(|block| block.layout(self.columns)).collect();
        if let Some(thinking) = &self.thinking {
            let mut lines = vec![thinking_heading("")];
            lines.extend(thought(&thinking.text[..thinking.printed]));
            self.pending.extend(Block::Lines(lines).layout(self.columns));
        }
        if let Some(stream) = &mut self.stream {
            let source = std::mem::take(stream).source().to_owned();
            let mut again = MarkdownStream::default();
            self.pending.extend(again.push(&source, self.columns));
            *stream = again;
        }
        self.repaint = true;
    }

    /// Moves the spinner on a frame.
    pub fn tick(&mut self) {
        self.frame = (self.frame + 1) % FRAMES.len();
    }

    /// Prints the lines finished since the last draw, then the live part with the input
    /// (`input`, the cursor at byte `cursor`) and leaves the terminal's cursor on it.
    pub fn draw(&mut self, input: &str, cursor: usize, offered: &Offered) {
        let (live, caret_row, caret_column) = self.live_part(input, cursor, offered);
        let mut out = Vec::new();
        let _ = out.queue(BeginSynchronizedUpdate);
        if std::mem::take(&mut self.repaint) {
            // Over from the top row; what is cleared is only ever the program's own rows.
            out.extend_from_slice(b"\x1b[H\x1b[2K");
            if self.rows > 1 {
                out.extend_from_slice(b"\x1b[2;1H\x1b[J\x1b[H");
            }
            let shown = self.rows.saturating_sub(live.len());
            let total = self.pending.len();
            for line in self.pending.drain(..).skip(total.saturating_sub(shown)) {
                out.extend_from_slice(line.render(self.colour).as_bytes());
                out.extend_from_slice(b"\x1b[0m\r\n");
            }
            self.own_rows = total;
        } else {
            self.print_pending(&mut out);
        }
        let rendered: Vec<String> = live.iter().map(|line| line.render(self.colour)).collect();
        out.extend_from_slice(rendered.join("\x1b[0m\r\n").as_bytes());
        out.extend_from_slice(b"\x1b[0m");
        let up = live.len() - 1 - caret_row;
        if up > 0 {
            let _ = out.queue(MoveUp(up as u16));
        }
        out.extend_from_slice(b"\r");
        if caret_column > 0 {
            out.extend_from_slice(format!("\x1b[{caret_column}C").as_bytes());
        }
        let _ = out.queue(EndSynchronizedUpdate);
        (self.cursor_row, self.live_rows) = (caret_row, live.len());
        let _ = self.out.write_all(&out).and_then(|()| self.out.flush());
    }

    /// The live part's rows at the terminal's width, cut to its height, and the caret's row in
    /// them and column. A row is never wider than the terminal, and the caret's row always shows:
    /// on a terminal of one row, that row is the input.
    fn live_part(&self, input: &str, cursor: usize, offered: &Offered) -> (Vec<Line>, usize, usize) {
        // One column is left free, so that a full row never leaves the terminal waiting to wrap;
        // a terminal of one column has none to spare.
        let columns = if self.columns > 1 { self.columns - 1 } else { 1 };
        let mut live: Vec<Line> = Vec::new();
        if let Some(thinking) = &self.thinking {
            let partial = thought(&thinking.text[thinking.printed..]);
            live.extend(partial.iter().flat_map(|line| line.truncate(columns * self.rows).wrap(columns, &Line::plain("  "))));
        }
        if let Some(stream) = &self.stream {
            // Only the end of a line that never ends is laid out: the rows that can show.
            let tail = stream.tail();
            let mut start = tail.len().saturating_sub(columns * self.rows);
            while !tail.is_char_boundary(start) {
                start += 1;
            }
            if !tail.is_empty() {
                live.extend(Line::plain(&tail[start..]).wrap(columns, &Line::default()));
            }
        }
        if let Some((label, since)) = &self.live.waiting {
            let mut line = Line::styled(format!("{} ", FRAMES[self.frame]), fg(Color::Cyan));
            line.push(format!("{label} {}s", since.elapsed().as_secs()), dim());
            live.push(line.truncate(columns));
        }
        live.extend(self.live.question.iter().flat_map(|line| line.wrap(columns, &Line::plain("  "))));
        live.push(Line::styled("─".repeat(columns), fg(Color::DarkGrey)));
        // The input, wrapped; the cursor's row and column found on the way.
        let (input_lines, caret) = input_rows(input, cursor, columns);
        let max_input = self.rows.saturating_sub(live.len() + 4).max(3);
        let skip = (caret.0 + 1).saturating_sub(max_input);
        let top = live.len();
        live.extend(input_lines.into_iter().skip(skip).take(max_input));
        let caret_row = top + caret.0 - skip;
        live.push(Line::styled("─".repeat(columns), fg(Color::DarkGrey)));
        if !offered.choices.is_empty() {
            live.push(offered.line(columns));
        }
        if let Some(notice) = &self.live.notice {
            live.push(Line::styled(notice.clone(), fg(Color::Yellow)).truncate(columns));
        }
        live.push(Line::styled(self.live.status.clone(), dim()).truncate(columns));
        // A live part taller than the terminal could not be redrawn in place: the rows that fit
        // are kept, from the end, unless that would leave the caret's row out.
        let room = if self.rows > 1 { self.rows - 1 } else { 1 };
        let cut = live.len().saturating_sub(room).min(caret_row);
        live.truncate(cut + room);
        live.drain(..cut);
        (live, caret_row - cut, caret.1)
    }

    /// Clears the live part and leaves the cursor below the transcript: the screen closes.
    pub fn close(&mut self) {
        let mut out = Vec::new();
        self.print_pending(&mut out);
        self.cursor_row = 0;
        let _ = self.out.write_all(&out).and_then(|()| self.out.flush());
    }

    /// Into `out`: the live part erased, from the row the cursor is on, and the lines finished
    /// since the last draw printed where it was.
    fn print_pending(&mut self, out: &mut Vec<u8>) {
        if self.cursor_row > 0 {
            let _ = out.queue(MoveUp(self.cursor_row as u16));
        }
        out.extend_from_slice(b"\r");
        let top_row = match self.own_rows + self.live_rows >= self.rows {
            true => self.rows - self.live_rows.min(self.rows),
            false => self.own_rows,
        };
        if top_row > 0 {
            let _ = out.queue(Clear(ClearType::FromCursorDown));
        } else {
            // Erasing down from the top row would push the screen into the scrollback in some
            // terminals (tmux's scroll-on-clear): the rows below it are erased from the next.
            out.extend_from_slice(b"\x1b[2K");
            if self.rows > 1 {
                out.extend_from_slice(b"\x1b[B\x1b[J\x1b[A");
            }
        }
        self.own_rows += self.pending.len();
        for line in self.pending.drain(..) {
            out.extend_from_slice(line.render(self.colour).as_bytes());
            out.extend_from_slice(b"\x1b[0m\r\n");
        }
    }
}

/// Into `out`: the rows down to the cursor's scrolled into the scrollback, one newline each (a
/// newline on the last row scrolls), and the cursor back on the top row of an empty screen.
fn scroll_away(out: &mut Vec<u8>, rows: usize) {
    out.extend_from_slice(b"\r");
    out.extend(std::iter::repeat_n(b'\n', rows - 1));
    if rows > 1 {
        let _ = out.queue(MoveUp((rows - 1) as u16));
    }
}

/// The completions the last Tab offered, and how many more there were than it kept.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Offered {
    pub choices: Vec<String>,
    pub more: usize,
}

impl Offered {
    /// One row: as many choices as fit in `columns`, then how many are not shown.
    pub fn line(&self, columns: usize) -> Line {
        let mut shown = String::new();
        for (index, choice) in self.choices.iter().enumerate() {
            let hidden = self.choices.len() - index - 1 + self.more;
            let joined = if shown.is_empty() { choice.clone() } else { format!("{shown}  {choice}") };
            let suffix = if hidden > 0 { format!("  … {hidden} more") } else { String::new() };
            if width(&joined) + width(&suffix) > columns && !shown.is_empty() {
                let hidden = hidden + 1;
                return Line::styled(format!("{shown}  … {hidden} more"), fg(Color::Cyan)).truncate(columns);
            }
            shown = joined;
        }
        if self.more > 0 {
            shown = format!("{shown}  … {} more", self.more);
        }
        Line::styled(shown, fg(Color::Cyan)).truncate(columns)
    }
}

/// The input as rows of the box: `› ` before the first line, two spaces before the others
/// (none on a terminal too narrow for them); and the cursor's (row, column).
fn input_rows(input: &str, cursor: usize, columns: usize) -> (Vec<Line>, (usize, usize)) {
    let margin = if columns > 2 { 2 } else { 0 };
    let text_columns = columns.saturating_sub(margin).max(1);
    let mut rows = Vec::new();
    let mut caret = (0, 0);
    let mut offset = 0;
    for (index, line) in input.split('\n').enumerate() {
        let mut rest = line;
        let mut first = true;
        loop {
            let (mut head, mut tail) = super::text::split_at_width(rest, text_columns);
            if head.is_empty() && !rest.is_empty() {
                // A character wider than the whole row: it goes alone.
                (head, tail) = rest.split_at(rest.chars().next().map_or(0, char::len_utf8));
            }
            let head_start = offset + (rest.as_ptr() as usize - line.as_ptr() as usize);
            let prefix = match (margin, index == 0 && first) {
                (0, _) => "",
                (_, true) => "› ",
                _ => "  ",
            };
            let mut row = Line::styled(prefix, bold().with(Color::Cyan));
            row.push(head, Default::default());
            let head_end = head_start + head.len();
            let at_end_of_row = cursor == head_end && (tail.is_empty() || width(head) < text_columns);
            if cursor >= head_start && (cursor < head_end || at_end_of_row) {
                caret = (rows.len(), margin + width(&input[head_start..cursor]));
            }
            rows.push(row);
            first = false;
            if tail.is_empty() {
                break;
            }
            rest = tail;
        }
        offset += line.len() + 1;
    }
    if input.is_empty() {
        caret = (0, margin);
    }
    (rows, caret)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caret_is_found_on_wrapped_and_later_lines() {
        let (rows, caret) = input_rows("hello\nworld", 8, 40);
        assert_eq!(rows.iter().map(Line::text).collect::<Vec<_>>(), ["› hello", "  world"]);
        assert_eq!(caret, (1, 4));
        let long = "x".repeat(25);
        let (rows, caret) = input_rows(&long, 25, 12);
        assert_eq!(rows.len(), 3);
        assert_eq!(caret, (2, 7));
        assert_eq!(input_rows("", 0, 40).1, (0, 2));
        // Too narrow for the margin: the text alone, a character a row.
        let (rows, caret) = input_rows("ab日", 2, 2);
        assert_eq!(rows.iter().map(Line::text).collect::<Vec<_>>(), ["ab", "日"]);
        assert_eq!(caret, (1, 0));
    }

    /// What the terminal would show of `bytes`: the escape sequences left out, one string a row.
    fn rows_of(bytes: &[u8]) -> Vec<String> {
        let text = String::from_utf8_lossy(bytes);
        let mut plain = String::new();
        let mut chars = text.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '\x1b' {
                plain.push(c);
                continue;
            }
            if chars.next_if_eq(&'[').is_some() {
                while chars.next().is_some_and(|c| !c.is_ascii_alphabetic()) {}
            }
        }
        plain.split("\r\n").map(|row| row.trim_start_matches('\r').to_owned()).collect()
    }

    /// Thinking is printed a line at a time as it streams, dimmed, and before the answer.
    #[test]
    fn thinking_streams_before_the_answer() {
        let out = Shared::default();
        let mut screen = Screen::new(Box::new(out.clone()), 40, 20);
        screen.think("first li");
        screen.draw("", 0, &Offered::default());
        let rows = rows_of(&out.0.borrow());
        assert_eq!(rows[..2], ["✻ thinking", "  first li"], "the line so far, in the live part: {rows:?}");
        screen.think("ne\nsecond");
        screen.stream("The answer.\n");
        screen.end_stream();
        screen.draw("", 0, &Offered::default());
        let rows = rows_of(&out.0.borrow());
        let at = |text: &str| rows.iter().position(|row| row == text).unwrap_or_else(|| panic!("{text:?} in {rows:?}"));
        assert!(at("✻ thinking") < at("  first line") && at("  first line") < at("  second"));
        assert!(at("  second") < at("The answer."), "{rows:?}");
        let shown = String::from_utf8_lossy(&out.0.borrow()).into_owned();
        assert!(shown.contains("\x1b[2m\x1b[3m  first line"), "dimmed, in italics: {shown:?}");
    }

    #[test]
    fn the_live_part_fits_any_size_and_keeps_the_input_on_one_row() {
        let offered = Offered { choices: vec!["@file_1.txt".into(), "@file_2.txt".into()], more: 298 };
        let input = "a task long enough to wrap on a narrow terminal";
        for (columns, rows) in [(1, 1), (1, 12), (2, 3), (5, 2), (10, 12), (19, 5), (80, 24)] {
            let mut screen = Screen::new(Box::new(Shared::default()), columns, rows);
            screen.live.status = "anthropic · claude-sonnet-4-5 · 12.0k tokens".into();
            screen.live.question = vec![Line::plain("? Allow shell echo one > one.txt")];
            let (live, caret_row, caret_column) = screen.live_part(input, input.len(), &offered);
            assert!(live.len() < rows.max(2), "{columns}x{rows}: {} rows", live.len());
            for line in &live {
                assert!(line.width() <= columns, "{columns}x{rows}: {:?} is wider", line.text());
            }
            assert!(caret_column <= columns, "{columns}x{rows}: caret at {caret_column}");
            let row = live[caret_row].text();
            assert!(row.ends_with("terminal") || row.ends_with('l'), "{columns}x{rows}: the caret's row is {row:?}");
        }
    }

    #[test]
    fn offered_completions_say_how_many_more_there_are() {
        let offered = Offered { choices: (1..=50).map(|n| format!("@file_{n}.txt")).collect(), more: 250 };
        let line = offered.line(40).text();
        assert_eq!(line, "@file_1.txt  @file_2.txt  … 298 more");
        let all = Offered { choices: vec!["@a".into(), "@b".into()], more: 0 };
        assert_eq!(all.line(40).text(), "@a  @b");
    }

    /// A resize writes the screen's own rows over at the new width, and `/clear` scrolls them
    /// away: neither clears the scrollback or the whole screen, which would lose what the terminal
    /// showed before the program.
    #[test]
    fn a_resize_or_a_clear_never_clears_the_scrollback() {
        let out = Shared::default();
        let mut screen = Screen::new(Box::new(out.clone()), 60, 10);
        screen.open();
        let opened = String::from_utf8(out.0.borrow().clone()).unwrap();
        assert_eq!(opened, format!("\r{}\x1b[9A", "\n".repeat(9)), "the screen's rows scrolled away");
        for n in 0..12 {
            screen.lines(vec![Line::plain(format!("line {n} of a transcript that is wider than twenty"))]);
        }
        screen.draw("", 0, &Offered::default());
        out.0.borrow_mut().clear();
        screen.resize(20, 10);
        screen.draw("", 0, &Offered::default());
        let written = out.0.borrow().clone();
        let text = String::from_utf8_lossy(&written);
        assert!(!text.contains("\x1b[3J") && !text.contains("\x1b[2J"), "{text:?}");
        assert!(text.starts_with("\x1b[?2026h\x1b[H\x1b[2K\x1b[2;1H\x1b[J\x1b[H"), "over from the top row: {text:?}");
        let rows = rows_of(&written);
        assert_eq!(rows.len(), 10, "a screenful: {rows:?}");
        assert!(rows.iter().all(|row| row.chars().count() <= 20), "{rows:?}");
        assert_eq!(
            rows[2..6],
            ["line 11 of a ", "  transcript that ", "  is wider than ", "  twenty"],
            "the end, at 20: {rows:?}"
        );

        out.0.borrow_mut().clear();
        screen.clear();
        let text = String::from_utf8_lossy(&out.0.borrow()).into_owned();
        assert!(!text.contains("\x1b[3J") && !text.contains("\x1b[2J"), "{text:?}");
        assert!(text.ends_with(&format!("{}\x1b[9A", "\n".repeat(9))), "{text:?}");
    }

    /// A writer the test can read after the screen wrote to it.
    #[derive(Clone, Default)]
    struct Shared(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn finished_lines_are_printed_once_and_the_live_part_is_redrawn_in_place() {
        let out = Shared::default();
        let mut screen = Screen::new(Box::new(out.clone()), 40, 20);
        screen.stream("# Hi\n\nsome text\npart");
        screen.draw("", 0, &Offered::default());
        let first = String::from_utf8(out.0.borrow().clone()).unwrap();
        assert!(first.contains("Hi") && first.contains("some text") && first.contains("part"));
        out.0.borrow_mut().clear();
        screen.end_stream();
        screen.draw("abc", 3, &Offered::default());
        let second = String::from_utf8(out.0.borrow().clone()).unwrap();
        assert!(!second.contains("some text"), "printed again: {second:?}");
        assert!(second.contains("part") && second.contains("abc"));
        // Up from the input row (under the streamed line and the rule) to the top of the live
        // part, and cleared from there.
        assert!(second.starts_with("\x1b[?2026h\x1b[2A\r\x1b[J"), "{second:?}");
    }
}
