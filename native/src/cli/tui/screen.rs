//! The screen: a transcript printed into the terminal's own scrollback, and below it a small
//! live part (the line being streamed, the spinner, an open question, the input box and the
//! status line) redrawn in place. Finished text is never redrawn, so scrolling back works as
//! in any terminal program; when the width changes, the transcript is laid out again for it.

use std::io::Write;

use crossterm::cursor::MoveUp;
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
}

impl Block {
    fn layout(&self, columns: usize) -> Vec<Line> {
        match self {
            Self::Markdown(source) => markdown::render(source, columns),
            Self::Lines(lines) => lines.iter().flat_map(|line| line.wrap(columns, &Line::plain("  "))).collect(),
            Self::Diff(change) => diff::render(change, columns),
        }
    }
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
    pub columns: usize,
    pub rows: usize,
    transcript: Vec<Block>,
    /// The assistant text being streamed.
    stream: Option<MarkdownStream>,
    pub live: Live,
    frame: usize,
    /// Rows of the live part above the cursor, where the last draw left it.
    cursor_row: usize,
    /// Lines finished since the last draw, printed above the live part at the next.
    pending: Vec<Line>,
}

impl Screen {
    pub fn new(out: Box<dyn Write>, columns: usize, rows: usize) -> Self {
        Self {
            out,
            columns: columns.max(20),
            rows: rows.max(5),
            transcript: Vec::new(),
            stream: None,
            live: Live::default(),
            frame: 0,
            cursor_row: 0,
            pending: Vec::new(),
        }
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

    /// More of the assistant's text.
    pub fn stream(&mut self, delta: &str) {
        let columns = self.columns;
        let stream = self.stream.get_or_insert_with(MarkdownStream::default);
        let lines = stream.push(delta, columns);
        self.pending.extend(lines);
    }

    /// The assistant's text is complete: it joins the transcript.
    pub fn end_stream(&mut self) {
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

    /// Forgets the transcript and clears the terminal: `/clear`.
    pub fn clear(&mut self) {
        self.transcript.clear();
        self.stream = None;
        self.pending.clear();
        let _ = self.out.write_all(b"\x1b[H\x1b[2J\x1b[3J");
        self.cursor_row = 0;
    }

    /// The terminal changed size: everything is laid out again for it, from the top.
    pub fn resize(&mut self, columns: usize, rows: usize) {
        self.columns = columns.max(20);
        self.rows = rows.max(5);
        self.pending = self.transcript.iter().flat_map(|block| block.layout(self.columns)).collect();
        if let Some(stream) = &mut self.stream {
            let source = std::mem::take(stream).source().to_owned();
            let mut again = MarkdownStream::default();
            self.pending.extend(again.push(&source, self.columns));
            *stream = again;
        }
        let _ = self.out.write_all(b"\x1b[H\x1b[2J\x1b[3J");
        self.cursor_row = 0;
    }

    /// Moves the spinner on a frame.
    pub fn tick(&mut self) {
        self.frame = (self.frame + 1) % FRAMES.len();
    }

    /// Prints the lines finished since the last draw, then the live part with the input
    /// (`input`, the cursor at byte `cursor`) and leaves the terminal's cursor on it.
    pub fn draw(&mut self, input: &str, cursor: usize, offered: &[String]) {
        let columns = self.columns;
        let mut live: Vec<Line> = Vec::new();
        if let Some(stream) = &self.stream {
            // Only the end of a line that never ends is laid out: the rows that can show.
            let tail = stream.tail();
            let mut start = tail.len().saturating_sub(columns * self.rows);
            while !tail.is_char_boundary(start) {
                start += 1;
            }
            if !tail.is_empty() {
                live.extend(Line::plain(&tail[start..]).wrap(columns - 1, &Line::default()));
            }
        }
        if let Some((label, since)) = &self.live.waiting {
            let mut line = Line::styled(format!("{} ", FRAMES[self.frame]), fg(Color::Cyan));
            line.push(format!("{label} {}s", since.elapsed().as_secs()), dim());
            live.push(line);
        }
        live.extend(self.live.question.iter().flat_map(|line| line.wrap(columns - 1, &Line::plain("  "))));
        live.push(Line::styled("─".repeat(columns - 1), fg(Color::DarkGrey)));
        // The input, wrapped; the cursor's row and column found on the way.
        let (input_lines, caret) = input_rows(input, cursor, columns - 1);
        let max_input = self.rows.saturating_sub(live.len() + 4).max(3);
        let skip = (caret.0 + 1).saturating_sub(max_input);
        let top = live.len();
        live.extend(input_lines.into_iter().skip(skip).take(max_input));
        let caret_row = top + caret.0 - skip;
        live.push(Line::styled("─".repeat(columns - 1), fg(Color::DarkGrey)));
        if !offered.is_empty() {
            live.push(Line::styled(offered.join("  "), fg(Color::Cyan)).truncate(columns - 1));
        }
        if let Some(notice) = &self.live.notice {
            live.push(Line::styled(notice.clone(), fg(Color::Yellow)).truncate(columns - 1));
        }
        live.push(Line::styled(self.live.status.clone(), dim()).truncate(columns - 1));
        // A live part taller than the terminal could not be redrawn in place: keep its end.
        let cut = live.len().saturating_sub(self.rows - 1);
        let live = &live[cut..];
        let caret_row = caret_row.saturating_sub(cut);

        let mut out = Vec::new();
        let _ = out.queue(BeginSynchronizedUpdate);
        self.print_pending(&mut out);
        let rendered: Vec<String> = live.iter().map(|line| line.render(true)).collect();
        out.extend_from_slice(rendered.join("\x1b[0m\r\n").as_bytes());
        out.extend_from_slice(b"\x1b[0m");
        let up = live.len() - 1 - caret_row;
        if up > 0 {
            let _ = out.queue(MoveUp(up as u16));
        }
        out.extend_from_slice(format!("\r\x1b[{}C", caret.1 + 2).as_bytes());
        let _ = out.queue(EndSynchronizedUpdate);
        self.cursor_row = caret_row;
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
        let _ = out.queue(Clear(ClearType::FromCursorDown));
        for line in self.pending.drain(..) {
            out.extend_from_slice(line.render(true).as_bytes());
            out.extend_from_slice(b"\x1b[0m\r\n");
        }
    }
}

/// The input as rows of the box: `› ` before the first line, two spaces before the others;
/// and the cursor's (row, column) inside the text area.
fn input_rows(input: &str, cursor: usize, columns: usize) -> (Vec<Line>, (usize, usize)) {
    let text_columns = columns.saturating_sub(2).max(8);
    let mut rows = Vec::new();
    let mut caret = (0, 0);
    let mut offset = 0;
    for (index, line) in input.split('\n').enumerate() {
        let mut rest = line;
        let mut first = true;
        loop {
            let (head, tail) = super::text::split_at_width(rest, text_columns);
            let head_start = offset + (rest.as_ptr() as usize - line.as_ptr() as usize);
            let prefix = if index == 0 && first { "› " } else { "  " };
            let mut row = Line::styled(prefix, bold().with(Color::Cyan));
            row.push(head, Default::default());
            let head_end = head_start + head.len();
            let at_end_of_row = cursor == head_end && (tail.is_empty() || width(head) < text_columns);
            if cursor >= head_start && (cursor < head_end || at_end_of_row) {
                caret = (rows.len(), width(&input[head_start..cursor]));
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
        caret = (0, 0);
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
        assert_eq!(caret, (1, 2));
        let long = "x".repeat(25);
        let (rows, caret) = input_rows(&long, 25, 12);
        assert_eq!(rows.len(), 3);
        assert_eq!(caret, (2, 5));
        assert_eq!(input_rows("", 0, 40).1, (0, 0));
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
        screen.draw("", 0, &[]);
        let first = String::from_utf8(out.0.borrow().clone()).unwrap();
        assert!(first.contains("Hi") && first.contains("some text") && first.contains("part"));
        out.0.borrow_mut().clear();
        screen.end_stream();
        screen.draw("abc", 3, &[]);
        let second = String::from_utf8(out.0.borrow().clone()).unwrap();
        assert!(!second.contains("some text"), "printed again: {second:?}");
        assert!(second.contains("part") && second.contains("abc"));
        // Up from the input row (under the streamed line and the rule) to the top of the live
        // part, and cleared from there.
        assert!(second.starts_with("\x1b[?2026h\x1b[2A\r\x1b[J"), "{second:?}");
    }
}
