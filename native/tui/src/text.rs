//! Styled text for the terminal: a [`Line`] is spans of one style each, measured in terminal
//! columns and wrapped at a width. Everything the screen shows is built from these, so a resize
//! can lay the whole transcript out again.

use crossterm::style::{Attribute, Color, ContentStyle, Stylize};
use unicode_width::UnicodeWidthChar;

use openagent_runner::terminal::{is_terminal_control, picture};

/// One run of text in one style.
#[derive(Debug, Clone, PartialEq)]
pub struct Span {
    pub text: String,
    pub style: ContentStyle,
}

/// A line of spans, with no newline in it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Line {
    pub spans: Vec<Span>,
}

impl Line {
    pub fn plain(text: impl Into<String>) -> Self {
        Self::styled(text, ContentStyle::new())
    }

    pub fn styled(text: impl Into<String>, style: ContentStyle) -> Self {
        let mut line = Self::default();
        line.push(text, style);
        line
    }

    /// Adds `text` in `style`, joined to the last span when the style is the same. Control
    /// characters are shown, not sent: a model's answer, a file or a command's output must not
    /// drive the terminal (clear it, retitle it, write the clipboard through OSC 52).
    pub fn push(&mut self, text: impl Into<String>, style: ContentStyle) {
        let text = visible(text.into());
        if text.is_empty() {
            return;
        }
        match self.spans.last_mut() {
            Some(last) if last.style == style => last.text.push_str(&text),
            _ => self.spans.push(Span { text, style }),
        }
    }

    /// The text without its styles: what tests read.
    #[cfg(test)]
    pub fn text(&self) -> String {
        self.spans.iter().map(|span| span.text.as_str()).collect()
    }

    pub fn width(&self) -> usize {
        self.spans.iter().map(|span| width(&span.text)).sum()
    }

    /// This line cut into lines of at most `columns` (at least one), breaking after spaces where
    /// it can; each line after the first starts with `indent` (a list item's hanging indent),
    /// unless the indent would leave no room for text. The screen counts rows by these lines, so
    /// none may be wider than asked, however narrow the terminal; only a double-width character
    /// on a one-column terminal is.
    pub fn wrap(&self, columns: usize, indent: &Line) -> Vec<Line> {
        let columns = columns.max(1);
        if self.width() <= columns {
            return vec![self.clone()];
        }
        let indent = if indent.width() < columns { indent.clone() } else { Line::default() };
        let mut lines = Vec::new();
        let mut current = Line::default();
        let mut used = 0;
        for (word, style) in self.words() {
            let word_width = width(&word);
            if used + word_width > columns && used > indent.width() {
                lines.push(std::mem::replace(&mut current, indent.clone()));
                used = indent.width();
                if word.trim().is_empty() {
                    continue;
                }
            }
            // A word longer than a whole line is cut where the line ends.
            let mut rest = word.as_str();
            while used + width(rest) > columns {
                let (mut head, mut tail) = split_at_width(rest, columns - used);
                if head.is_empty() && used > indent.width() {
                    lines.push(std::mem::replace(&mut current, indent.clone()));
                    used = indent.width();
                    continue;
                }
                if head.is_empty() && used > 0 {
                    // A wide character that does not fit after the indent: a row without it.
                    (current, used) = (Line::default(), 0);
                    continue;
                }
                if head.is_empty() {
                    // A character wider than the whole line: it goes alone.
                    let first = rest.chars().next().map_or(0, char::len_utf8);
                    (head, tail) = rest.split_at(first);
                }
                current.push(head, style);
                lines.push(std::mem::replace(&mut current, indent.clone()));
                used = indent.width();
                rest = tail;
            }
            used += width(rest);
            current.push(rest, style);
        }
        lines.push(current);
        lines
    }

    /// Words with the spaces after them, each with its span's style.
    fn words(&self) -> Vec<(String, ContentStyle)> {
        let mut words = Vec::new();
        for span in &self.spans {
            let mut start = 0;
            for (at, c) in span.text.char_indices() {
                if c == ' ' {
                    words.push((span.text[start..=at].to_owned(), span.style));
                    start = at + 1;
                }
            }
            if start < span.text.len() {
                words.push((span.text[start..].to_owned(), span.style));
            }
        }
        words
    }

    /// The line cut to `columns`, for the parts of the screen that must stay one row.
    pub fn truncate(&self, columns: usize) -> Line {
        let mut line = Line::default();
        let mut left = columns;
        for span in &self.spans {
            let (head, _) = split_at_width(&span.text, left);
            left -= width(head);
            line.push(head, span.style);
            if head.len() < span.text.len() {
                break;
            }
        }
        line
    }

    /// The line as the terminal should print it: with its styles, and their colours when
    /// `colour` (without, bold, dim, italic and underline stay: `NO_COLOR` is about colour).
    pub fn render(&self, colour: bool) -> String {
        let styled = |span: &Span| match colour {
            true => span.style,
            false => ContentStyle { foreground_color: None, background_color: None, underline_color: None, ..span.style },
        };
        self.spans.iter().map(|span| styled(span).apply(span.text.as_str()).to_string()).collect()
    }
}

/// `text` with each control character (bidi ones too) as its visible picture (ESC as `␛`), a
/// tab as four spaces. A line has no newline, so one is shown too.
fn visible(text: String) -> String {
    if !text.chars().any(is_terminal_control) {
        return text;
    }
    text.chars()
        .flat_map(|c| match c {
            '\t' => vec![' '; 4],
            c if is_terminal_control(c) => vec![picture(c)],
            c => vec![c],
        })
        .collect()
}

/// Columns `text` takes once shown: a control character as its one-column picture.
pub fn width(text: &str) -> usize {
    text.chars().map(char_width).sum()
}

fn char_width(c: char) -> usize {
    match c {
        '\t' => 4,
        c if is_terminal_control(c) => 1,
        c => c.width().unwrap_or(0),
    }
}

/// `text` cut after at most `columns` columns, and the rest.
pub fn split_at_width(text: &str, columns: usize) -> (&str, &str) {
    let mut used = 0;
    for (at, c) in text.char_indices() {
        used += char_width(c);
        if used > columns {
            return text.split_at(at);
        }
    }
    (text, "")
}

/// The palette, in one place.
pub fn dim() -> ContentStyle {
    ContentStyle::new().attribute(Attribute::Dim)
}

pub fn bold() -> ContentStyle {
    ContentStyle::new().attribute(Attribute::Bold)
}

pub fn fg(color: Color) -> ContentStyle {
    ContentStyle::new().with(color)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bidi overrides, embeddings and isolates would make the screen read in another order than
    /// the text: they are shown, as are the C1 controls, and each takes its one column.
    #[test]
    fn bidi_controls_and_c1_controls_are_shown_not_sent() {
        let line = Line::plain("a\u{202e}b\u{2066}c\u{2069}\u{9b}2J\x1b[0m");
        let shown = line.text();
        assert!(
            !shown.chars().any(|c| c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')),
            "{shown:?}"
        );
        assert_eq!(line.width(), shown.chars().count(), "{shown:?}");
        assert!(shown.starts_with('a') && shown.contains("␛[0m"), "{shown:?}");
    }

    #[test]
    fn wrapping_breaks_after_spaces_and_hangs_the_indent() {
        let line = Line::plain("- alpha beta gamma delta epsilon");
        let wrapped: Vec<String> = line.wrap(16, &Line::plain("  ")).iter().map(Line::text).collect();
        assert_eq!(wrapped, ["- alpha beta ", "  gamma delta ", "  epsilon"]);
    }

    #[test]
    fn no_line_is_wider_than_asked_down_to_one_column() {
        let mut line = Line::styled("• ", bold());
        line.push("a list item, then 日本語 and a_very_long_word", Default::default());
        for columns in 1..=12 {
            for wrapped in line.wrap(columns, &Line::plain("    ")) {
                assert!(wrapped.width() <= columns.max(2), "{columns}: {:?}", wrapped.text());
                assert!(wrapped.width() <= columns || wrapped.text().chars().all(|c| width(&c.to_string()) == 2));
            }
        }
        let texts: Vec<String> = Line::plain("abc").wrap(1, &Line::plain("  ")).iter().map(Line::text).collect();
        assert_eq!(texts, ["a", "b", "c"]);
        let texts: Vec<String> = Line::plain("ab cd").wrap(3, &Line::plain("  ")).iter().map(Line::text).collect();
        assert_eq!(texts, ["ab ", "  c", "  d"]);
    }

    #[test]
    fn a_word_longer_than_the_line_is_cut_and_wide_characters_count_twice() {
        let wrapped: Vec<String> = Line::plain("x".repeat(25)).wrap(10, &Line::default()).iter().map(Line::text).collect();
        assert_eq!(wrapped, ["xxxxxxxxxx", "xxxxxxxxxx", "xxxxx"]);
        assert_eq!(width("日本"), 4);
        assert_eq!(Line::plain("日本語です").truncate(5).text(), "日本");
    }

    #[test]
    fn control_characters_are_shown_and_never_reach_the_terminal() {
        let hostile = "a\x1b[2Jb\x1b]52;c;ZXZpbA==\x07c\u{9b}d\te\r";
        let line = Line::plain(hostile);
        assert_eq!(line.text(), "a␛[2Jb␛]52;c;ZXZpbA==␇c\u{fffd}d    e␍");
        assert_eq!(line.width(), width(hostile));
        let rendered = line.render(true);
        assert!(!rendered.contains('\x07') && !rendered.contains('\r') && !rendered.contains('\u{9b}'));
        // The only escapes left are the line's own styles.
        assert_eq!(Line::plain(hostile).render(false).matches('\x1b').count(), 0);
    }

    #[test]
    fn styles_are_kept_across_a_wrap_and_dropped_without_colour() {
        let mut line = Line::plain("plain words then ");
        line.push("bold words here", bold());
        let wrapped = line.wrap(12, &Line::default());
        assert!(wrapped.iter().flat_map(|l| &l.spans).any(|s| s.style == bold() && s.text.contains("words")));
        assert_eq!(line.text(), "plain words then bold words here");
        assert!(line.render(true).contains("\x1b["));
        let mut coloured = Line::styled("green", fg(Color::Green).attribute(Attribute::Bold));
        coloured.push(" plain", ContentStyle::new());
        assert_eq!(coloured.render(false), "\x1b[1mgreen\x1b[0m plain", "bold without its colour");
        assert!(coloured.render(true).contains("\x1b[38;5;10m"));
    }
}
