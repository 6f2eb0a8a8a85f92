//! What the fuzzy passes and the line endings rest on, shared with `openagent-core`'s `edit_file`
//! so that both editing tools forgive the same retyping and keep a file's line endings alike.

/// A file uses CRLF when its first line ends with it.
pub fn uses_crlf(content: &str) -> bool {
    content.find('\n').is_some_and(|at| content[..at].ends_with('\r'))
}

/// The lines without their endings (CRs too, with `crlf`); the final line ending does not start
/// another line.
pub(crate) fn split_lines(content: &str, crlf: bool) -> Vec<&str> {
    if content.is_empty() {
        return Vec::new();
    }
    let body = content.strip_suffix('\n').unwrap_or(content);
    let mut lines = Vec::with_capacity(content.len() / 32);
    for line in body.split('\n') {
        lines.push(if crlf { line.strip_suffix('\r').unwrap_or(line) } else { line });
    }
    lines
}

/// What one character becomes when normalised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fold {
    /// Horizontal whitespace, a non-breaking or typographic space included; a run is one space.
    Space,
    Newline,
    /// Typographic punctuation, as ASCII: curly quotes, dashes, the ellipsis.
    Text(&'static str),
    /// Any other character, as it is.
    Keep(char),
}

/// Maps the whitespace and typographic punctuation that models retype to their ASCII form.
///
/// ```
/// use openagent_apply_patch::text::{fold, Fold};
///
/// assert_eq!(fold('\u{201c}'), Fold::Text("\""));
/// assert_eq!(fold('\u{a0}'), Fold::Space);
/// assert_eq!(fold('x'), Fold::Keep('x'));
/// ```
pub fn fold(c: char) -> Fold {
    match c {
        '\n' => Fold::Newline,
        ' ' | '\t' | '\u{a0}' | '\u{2000}'..='\u{200a}' | '\u{202f}' | '\u{205f}' | '\u{3000}' => Fold::Space,
        '\u{2018}' | '\u{2019}' | '\u{201a}' | '\u{201b}' | '\u{2032}' => Fold::Text("'"),
        '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{201f}' | '\u{2033}' => Fold::Text("\""),
        '\u{2010}'..='\u{2015}' | '\u{2212}' => Fold::Text("-"),
        '\u{2026}' => Fold::Text("..."),
        c => Fold::Keep(c),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn uses_crlf_looks_at_the_first_line_ending() {
        assert!(uses_crlf("a\r\nb\n"));
        assert!(!uses_crlf("a\nb\r\n"));
        assert!(!uses_crlf("no newline\r"));
    }
}
