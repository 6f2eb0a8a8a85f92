//! Where a hunk's lines are in a file.
//!
//! The search runs in passes, each more forgiving than the last, because models retype code with
//! stray trailing spaces, different indentation or typographic punctuation: exact; trailing
//! whitespace ignored; leading and trailing whitespace ignored; and finally whitespace runs
//! collapsed and Unicode punctuation (dashes, curly quotes, non-breaking spaces, ...) mapped to
//! ASCII as `edit_file` does ([`crate::text`]). An earlier pass anywhere below the start wins over
//! a later pass, so a fuzzy match is only used when there is no better one.
//!
//! Searches only go forward from the previous hunk, and each pass normalises the file's lines
//! once, the first time it is needed: a patch whose hunks match exactly reads the file about once,
//! however many hunks it has. (A hunk that needs a fuzzy pass has first been looked for in the
//! rest of the file by the stricter ones.)

use std::borrow::Cow;

use crate::text::{fold, Fold};

const PASSES: usize = 4;

pub(crate) struct Seeker<'a> {
    lines: &'a [&'a str],
    /// The lines as passes 1, 2 and 3 see them.
    normalised: [Option<Vec<Cow<'a, str>>>; PASSES - 1],
}

impl<'a> Seeker<'a> {
    pub fn new(lines: &'a [&'a str]) -> Self {
        Self { lines, normalised: [None, None, None] }
    }

    /// The first line at or after `from` where `pattern` starts. With `at_end`, a match that ends
    /// the file is tried first.
    pub fn find(&mut self, pattern: &[&str], from: usize, at_end: bool) -> Option<usize> {
        let last = self.lines.len().checked_sub(pattern.len())?;
        if at_end && last >= from {
            if let Some(at) = self.search(pattern, last, last, 0) {
                return Some(at);
            }
        }
        self.search(pattern, from, last, 0)
    }

    /// The line an `@@` hint (trimmed) names, at or after `from`: a whole line, ignoring
    /// indentation, in the trimmed or folded pass, or else the first line that contains it
    /// (models shorten signatures: `@@ class Foo` for `class Foo(Base):`).
    pub fn find_hint(&mut self, hint: &str, from: usize) -> Option<usize> {
        // The exact passes could only find lines without indentation, which trimming finds too.
        if let Some(at) = self.search(&[hint], from, self.lines.len().checked_sub(1)?, 2) {
            return Some(at);
        }
        let rest = self.lines.get(from..)?;
        rest.iter().position(|line| line.contains(hint)).map(|at| from + at)
    }

    /// Tries the passes from `first_pass` on, over the starts `from..=to`.
    fn search(&mut self, pattern: &[&str], from: usize, to: usize, first_pass: usize) -> Option<usize> {
        if first_pass == 0 {
            if let Some(at) = position(self.lines, pattern, from, to) {
                return Some(at);
            }
        }
        for pass in first_pass.max(1)..PASSES {
            let lines = self.normalised[pass - 1].get_or_insert_with(|| self.lines.iter().map(|l| normalise(pass, l)).collect());
            let pattern: Vec<Cow<str>> = pattern.iter().map(|l| normalise(pass, l)).collect();
            if let Some(at) = position(lines, &pattern, from, to) {
                return Some(at);
            }
        }
        None
    }
}

/// The first start in `from..=to` where every line of `pattern` equals the file's.
fn position<L: AsRef<str>, P: AsRef<str>>(lines: &[L], pattern: &[P], from: usize, to: usize) -> Option<usize> {
    (from..=to).find(|&at| lines[at..].iter().zip(pattern).all(|(line, want)| line.as_ref() == want.as_ref()))
}

fn normalise(pass: usize, line: &str) -> Cow<'_, str> {
    match pass {
        1 => Cow::Borrowed(line.trim_end()),
        2 => Cow::Borrowed(line.trim()),
        _ => fold_line(line),
    }
}

/// Trimmed, whitespace runs as one space, typographic punctuation as ASCII.
fn fold_line(line: &str) -> Cow<'_, str> {
    let line = line.trim();
    // Most lines have nothing to fold, and a 1 MB file should not be copied for them.
    if line.is_ascii() && !line.contains("  ") && !line.contains('\t') {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        match fold(c) {
            Fold::Space | Fold::Newline if out.ends_with(' ') => {}
            Fold::Space | Fold::Newline => out.push(' '),
            Fold::Text(text) => out.push_str(text),
            Fold::Keep(c) => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn find(lines: &[&str], pattern: &[&str], from: usize) -> Option<usize> {
        Seeker::new(lines).find(pattern, from, false)
    }

    #[test]
    fn exact_matches_search_forward_from_the_start_line() {
        let lines = ["a", "b", "a", "b"];
        assert_eq!(find(&lines, &["a", "b"], 0), Some(0));
        assert_eq!(find(&lines, &["a", "b"], 1), Some(2));
        assert_eq!(find(&lines, &["a", "b"], 3), None);
        assert_eq!(find(&lines, &["a", "b", "a", "b", "a"], 0), None);
        assert_eq!(find(&lines, &[], 2), Some(2));
    }

    #[test]
    fn trailing_whitespace_is_ignored() {
        assert_eq!(find(&["x", "fn a() {  ", "\tbody();\t"], &["fn a() {", "\tbody();"], 0), Some(1));
        assert_eq!(find(&["fn a() {"], &["fn a() {   "], 0), Some(0));
    }

    #[test]
    fn leading_whitespace_is_ignored_when_nothing_closer_matches() {
        assert_eq!(find(&["\tif x {", "\t\ty();", "\t}"], &["    if x {", "        y();", "    }"], 0), Some(0));
    }

    #[test]
    fn unicode_punctuation_and_whitespace_runs_match_ascii() {
        let lines = ["say(\u{201c}it\u{2019}s\u{201d}) \u{2014} ok\u{2026}", "a\u{a0}=\u{a0}1", "b  =\t2"];
        assert_eq!(find(&lines, &["say(\"it's\") - ok...", "a = 1", "b = 2"], 0), Some(0));
        assert_eq!(find(&["x = 'a'"], &["x = \u{2018}a\u{2019}"], 0), Some(0));
        assert_eq!(find(&["foo bar"], &["foobar"], 0), None);
    }

    #[test]
    fn an_exact_match_further_down_beats_a_fuzzy_one_above() {
        assert_eq!(find(&["x  ", "y", "x"], &["x"], 0), Some(2));
    }

    #[test]
    fn end_of_file_prefers_the_last_lines_then_searches_normally() {
        let lines = ["end", "mid", "end"];
        assert_eq!(Seeker::new(&lines).find(&["end"], 0, true), Some(2));
        assert_eq!(Seeker::new(&lines).find(&["mid"], 0, true), Some(1));
        assert_eq!(Seeker::new(&lines).find(&["end"], 3, true), None);
    }

    #[test]
    fn hints_match_whole_lines_then_parts_of_lines() {
        let lines = ["class Foo(Base):", "    def run(self):", "class Bar:", "    def run(self):"];
        let mut seeker = Seeker::new(&lines);
        assert_eq!(seeker.find_hint("def run(self):", 0), Some(1));
        assert_eq!(seeker.find_hint("class Bar:", 0), Some(2));
        assert_eq!(seeker.find_hint("class Foo", 0), Some(0));
        assert_eq!(seeker.find_hint("class Foo", 1), None);
        assert_eq!(seeker.find_hint("x", 9), None);
    }
}
