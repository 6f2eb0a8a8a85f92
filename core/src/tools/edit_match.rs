//! Where `old_string` occurs in a file, for `edit_file`.
//!
//! Exact occurrences win. Only when there are none is the search repeated on a normalised copy of
//! both texts, because models often retype code with the wrong whitespace or with typographic
//! punctuation (curly quotes, dashes) they were trained on. Every normalised byte remembers the
//! original bytes it came from, so a normalised match maps back to an exact range of the file and
//! the rest of the file is left byte for byte as it was.

use std::ops::Range;

use openagent_apply_patch::text::{fold, Fold};

/// Non-overlapping byte ranges of the original text, in order.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Found {
    pub ranges: Vec<Range<usize>>,
    /// True when the ranges were found only after normalising.
    pub fuzzy: bool,
}

pub(crate) fn find(text: &str, needle: &str) -> Found {
    // An empty needle would "occur" between every two characters.
    if needle.is_empty() {
        return Found { ranges: Vec::new(), fuzzy: false };
    }
    let exact: Vec<_> = text.match_indices(needle).map(|(at, m)| at..at + m.len()).collect();
    if !exact.is_empty() {
        return Found { ranges: exact, fuzzy: false };
    }
    Found { ranges: find_normalised(text, needle), fuzzy: true }
}

fn find_normalised(text: &str, needle: &str) -> Vec<Range<usize>> {
    let hay = Normalised::new(text);
    let pattern = Normalised::new(needle).text;
    if pattern.is_empty() {
        return Vec::new();
    }
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for (at, m) in hay.text.match_indices(&pattern) {
        let range = hay.spans[at].start..hay.spans[at + m.len() - 1].end;
        // One original character can become several normalised bytes (`…` to `...`), so two
        // normalised matches may land on the same original bytes; keep only the first.
        if ranges.last().is_none_or(|prev| range.start >= prev.end) {
            ranges.push(range);
        }
    }
    ranges
}

/// The lines of `text` most like `needle`, when `needle` is not in it: `(first line, 1-based,
/// those lines)`, for an error that shows the model what the file really says there. A window of
/// as many lines as `needle` has is scored line by line by the words they share; `None` when no
/// window shares at least half its words with `needle`.
pub(crate) fn closest<'a>(text: &'a str, needle: &str) -> Option<(usize, Vec<&'a str>)> {
    let wanted: Vec<&str> = needle.trim_matches('\n').lines().collect();
    let lines: Vec<&str> = text.lines().collect();
    if wanted.is_empty() || lines.is_empty() {
        return None;
    }
    let size = wanted.len().min(lines.len());
    let wanted_words: Vec<Vec<&str>> = wanted.iter().map(|line| words(line)).collect();
    let (mut best, mut best_score) = (0, 0.0);
    for start in 0..=lines.len() - size {
        let score: f64 = (0..size).map(|k| similarity(&words(lines[start + k]), &wanted_words[k])).sum();
        if score > best_score {
            (best, best_score) = (start, score);
        }
    }
    (best_score >= 0.5 * size as f64).then(|| (best + 1, lines[best..best + size].to_vec()))
}

/// A line's words: runs of letters, digits, `_` and non-ASCII characters, and each other visible
/// character alone. (Any non-ASCII character counts as a letter: Unicode's letter tables would
/// cost the browser bundle 3 KB gzipped, and a closest line is found as well without them.)
fn words(line: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = None;
    for (at, c) in line.char_indices() {
        let word = c.is_ascii_alphanumeric() || c == '_' || !c.is_ascii();
        match (word, start) {
            (true, None) => start = Some(at),
            (false, Some(from)) => {
                out.push(&line[from..at]);
                start = None;
            }
            _ => {}
        }
        if !word && !c.is_whitespace() {
            out.push(&line[at..at + c.len_utf8()]);
        }
    }
    out.extend(start.map(|from| &line[from..]));
    out
}

/// The share of words two lines have in common (Dice's coefficient over the multisets), from 0 to
/// 1; two blank lines are alike.
fn similarity(a: &[&str], b: &[&str]) -> f64 {
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let mut rest: Vec<&str> = b.to_vec();
    let shared = a
        .iter()
        .filter(|word| match rest.iter().position(|other| other == *word) {
            Some(at) => {
                rest.swap_remove(at);
                true
            }
            None => false,
        })
        .count();
    2.0 * shared as f64 / (a.len() + b.len()) as f64
}

/// A normalised text and, for each of its bytes, the range of original bytes it stands for.
struct Normalised {
    text: String,
    spans: Vec<Range<usize>>,
}

impl Normalised {
    /// CRLF becomes LF, runs of horizontal whitespace become one space, whitespace at the end of
    /// a line goes, and typographic punctuation becomes its ASCII form.
    fn new(original: &str) -> Self {
        let mut out = Self { text: String::with_capacity(original.len()), spans: Vec::with_capacity(original.len()) };
        // A whitespace run is held back until we know whether it ends its line.
        let mut pending_space: Option<Range<usize>> = None;
        let mut chars = original.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            let mut span = at..at + c.len_utf8();
            let fold = if c == '\r' && chars.peek().is_some_and(|&(_, next)| next == '\n') {
                chars.next();
                span.end += 1;
                Fold::Newline
            } else {
                fold(c)
            };
            match fold {
                Fold::Space => pending_space = Some(pending_space.map_or(span.clone(), |run| run.start..span.end)),
                Fold::Newline => {
                    pending_space = None;
                    out.push("\n", span);
                }
                Fold::Text(s) => {
                    out.flush_space(pending_space.take());
                    out.push(s, span);
                }
                Fold::Keep(c) => {
                    out.flush_space(pending_space.take());
                    out.push(c.encode_utf8(&mut [0; 4]), span);
                }
            }
        }
        out
    }

    fn flush_space(&mut self, run: Option<Range<usize>>) {
        if let Some(run) = run {
            self.push(" ", run);
        }
    }

    fn push(&mut self, s: &str, span: Range<usize>) {
        self.text.push_str(s);
        self.spans.extend(std::iter::repeat_n(span, s.len()));
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn fuzzy_at(start: usize, end: usize) -> Found {
        let range = start..end;
        Found { ranges: vec![range], fuzzy: true }
    }

    const NOT_FOUND: Found = Found { ranges: Vec::new(), fuzzy: true };

    #[test]
    fn exact_occurrences_win_and_are_not_fuzzy() {
        assert_eq!(find("a b a  b a b", "a b"), Found { ranges: vec![0..3, 9..12], fuzzy: false });
    }

    #[test]
    fn trailing_whitespace_in_the_file_is_ignored() {
        let text = "fn a() {   \n    x();\t\n}\n";
        assert_eq!(find(text, "fn a() {\n    x();\n}"), fuzzy_at(0, text.len() - 1));
    }

    #[test]
    fn trailing_whitespace_in_old_string_is_ignored() {
        assert_eq!(find("let x = 1;\nlet y = 2;", "let x = 1;  \nlet y"), fuzzy_at(0, 16));
    }

    #[test]
    fn runs_of_tabs_and_spaces_are_equal() {
        let text = "if x {\n\tcall(a,  b);\n}";
        assert_eq!(find(text, "    call(a, b);"), fuzzy_at(7, 20));
        assert_eq!(&text[7..20], "\tcall(a,  b);");
    }

    #[test]
    fn every_normalised_match_maps_to_its_own_range() {
        assert_eq!(find("a\t= 1\nb  = 1", "\u{a0}= 1"), Found { ranges: vec![1..5, 7..12], fuzzy: true });
    }

    #[test]
    fn crlf_matches_lf() {
        assert_eq!(find("one\r\ntwo\r\nthree", "one\ntwo\n"), fuzzy_at(0, 10));
    }

    #[test]
    fn typographic_punctuation_matches_ascii_both_ways() {
        let text = "say(\u{201c}it\u{2019}s\u{201d}) \u{2014} wait\u{2026}";
        assert_eq!(find(text, "say(\"it's\") - wait..."), fuzzy_at(0, text.len()));
        assert_eq!(find("x = 'a' - b", "x = \u{2018}a\u{2019} \u{2013} b"), fuzzy_at(0, 11));
    }

    #[test]
    fn non_breaking_space_is_a_space() {
        assert_eq!(find("a\u{a0}=\u{a0}1", "a = 1"), fuzzy_at(0, 7));
    }

    #[test]
    fn a_match_inside_one_original_character_is_counted_once() {
        assert_eq!(find("wait\u{2026}", "."), fuzzy_at(4, 7));
    }

    #[test]
    fn different_text_still_does_not_match() {
        assert_eq!(find("foo bar", "foobar"), NOT_FOUND);
        assert_eq!(find("abc", "   "), NOT_FOUND);
        assert_eq!(find("x = 1", "x = 2"), NOT_FOUND);
    }

    #[test]
    fn empty_needle_finds_nothing() {
        assert_eq!(find("abc", ""), Found { ranges: vec![], fuzzy: false });
    }

    #[test]
    fn the_closest_lines_are_the_window_sharing_most_words() {
        let text = "def add(a, b):\n    return a - b\n\ndef sub(a, b):\n    return a - b\n";
        let (line, lines) = closest(text, "def add(a, b):\n    return a + b").expect("a close window");
        assert_eq!((line, lines), (1, vec!["def add(a, b):", "    return a - b"]));
        assert_eq!(closest(text, "  return a-b  ").map(|(line, _)| line), Some(2));
    }

    #[test]
    fn nothing_close_is_nothing() {
        assert_eq!(closest("alpha beta\ngamma\n", "fn totally_different() {}"), None);
        assert_eq!(closest("", "x"), None);
        assert_eq!(closest("x", "\n\n"), None);
    }

    #[test]
    fn a_needle_longer_than_the_file_is_compared_with_all_of_it() {
        assert_eq!(closest("x = 1\n", "x = 1\ny = 2\nz = 3"), Some((1, vec!["x = 1"])));
    }
}
