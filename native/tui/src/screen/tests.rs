use super::live::input_rows;
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
    assert_eq!(rows[2..6], ["line 11 of a ", "  transcript that ", "  is wider than ", "  twenty"], "the end, at 20: {rows:?}");

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
