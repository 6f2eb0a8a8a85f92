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

mod live;

use std::io::Write;

use crossterm::cursor::{MoveDown, MoveUp};
use crossterm::style::{Color, Stylize};
use crossterm::terminal::{BeginSynchronizedUpdate, Clear, ClearType, EndSynchronizedUpdate};
use crossterm::QueueableCommand;

use self::live::Live;
pub use self::live::Offered;
use super::diff::{self, FileChange};
use super::markdown::{self, MarkdownStream};
use super::text::{dim, fg, Line};

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

#[cfg(test)]
mod tests;
