use crossterm::style::Attribute;

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
    let source = "1. an ordered item long enough to wrap\n   - a nested item that wraps too\n- [ ] a task long enough to wrap\n";
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
