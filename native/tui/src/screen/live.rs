//! The live part under the transcript: what it shows, laid out at the terminal's size, with
//! the input box and the completions offered.

use crossterm::style::{Color, Stylize};

use super::{thought, Screen, FRAMES};
use crate::text::{bold, dim, fg, width, Line};

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

impl Screen {
    /// The live part's rows at the terminal's width, cut to its height, and the caret's row in
    /// them and column. A row is never wider than the terminal, and the caret's row always shows:
    /// on a terminal of one row, that row is the input.
    pub(super) fn live_part(&self, input: &str, cursor: usize, offered: &Offered) -> (Vec<Line>, usize, usize) {
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
pub(super) fn input_rows(input: &str, cursor: usize, columns: usize) -> (Vec<Line>, (usize, usize)) {
    let margin = if columns > 2 { 2 } else { 0 };
    let text_columns = columns.saturating_sub(margin).max(1);
    let mut rows = Vec::new();
    let mut caret = (0, 0);
    let mut offset = 0;
    for (index, line) in input.split('\n').enumerate() {
        let mut rest = line;
        let mut first = true;
        loop {
            let (mut head, mut tail) = crate::text::split_at_width(rest, text_columns);
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
