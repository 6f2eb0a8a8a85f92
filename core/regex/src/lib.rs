//! Regular expressions for the in-memory shell (search, `grep`, `sed`, `find`), in the Rust
//! `regex` dialect, and for JSON Schema's `pattern` ([`Regex::ecma`]), in ECMA-262's.
//!
//! regex-lite runs them by default. With the `js` feature on wasm32 (the browser package),
//! the JavaScript engine's `RegExp` runs them instead: the page already has a fast, well-tested
//! engine, and leaving regex-lite out saves the bundle about 13 KB gzipped. The pattern is
//! rewritten into JavaScript's `u`-mode syntax first ([`js_source`]); what has no JavaScript form
//! (inline flags after the start, `(?U)`) is refused with a message rather than read differently.

use std::ops::Range;

/// A compiled pattern.
pub struct Regex(engine::Compiled);

/// Opaque: the pattern's owner has its source.
impl std::fmt::Debug for Regex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Regex")
    }
}

/// The byte range of a match and of each of its groups (`None`: the group took no part).
pub type Captures = Vec<Option<Range<usize>>>;

impl Regex {
    /// `pattern` in the Rust `regex` dialect; the error says what is wrong with it.
    pub fn new(pattern: &str, case_insensitive: bool) -> Result<Regex, String> {
        engine::compile(pattern, case_insensitive).map(Regex)
    }

    /// `pattern` in ECMA-262's dialect, as JSON Schema's `pattern` keywords are written: as it
    /// is for `RegExp`, and for regex-lite, which reads the common part of the two alike.
    pub fn ecma(pattern: &str) -> Result<Regex, String> {
        engine::compile_ecma(pattern).map(Regex)
    }

    pub fn is_match(&self, text: &str) -> bool {
        self.0.is_match(text)
    }

    /// The successive non-overlapping matches, as the `regex` crate finds them: after an empty
    /// match the search moves on by one character, and an empty match right where the previous
    /// match ended is skipped.
    pub fn captures_iter<'r, 't>(&'r self, text: &'t str) -> impl Iterator<Item = Captures> + 'r
    where
        't: 'r,
    {
        let (mut at, mut previous_end) = (0, None);
        std::iter::from_fn(move || loop {
            if at > text.len() {
                return None;
            }
            let captures = self.0.captures_at(text, at)?;
            let whole = captures.first().cloned().flatten()?;
            let empty = whole.is_empty();
            at = if empty { whole.end + text[whole.end..].chars().next().map_or(1, char::len_utf8) } else { whole.end };
            if empty && previous_end == Some(whole.start) {
                continue;
            }
            previous_end = Some(whole.end);
            return Some(captures);
        })
    }

    /// The text of each match, as [`captures_iter`](Self::captures_iter) finds them.
    pub fn find_iter<'r, 't>(&'r self, text: &'t str) -> impl Iterator<Item = &'t str> + 'r
    where
        't: 'r,
    {
        self.captures_iter(text).filter_map(move |captures| captures.into_iter().next().flatten().map(|range| &text[range]))
    }
}

/// `text` with every character that is an operator in either engine escaped, so it matches
/// itself in both.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if r"\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A POSIX character class opening at `chars[at]` (`[:alpha:]` inside a bracket expression):
/// `None` when it does not close; else its ranges (`None` for a name that is no class) and the
/// index after its `:]`.
pub fn posix_class_at(chars: &[char], at: usize) -> Option<(Option<&'static str>, usize)> {
    let close = (at + 2..chars.len().saturating_sub(1)).find(|&j| chars[j] == ':' && chars[j + 1] == ']')?;
    let name: String = chars[at + 2..close].iter().collect();
    Some((posix_class(&name), close + 2))
}

/// A POSIX character class (`alpha` of `[:alpha:]`) as the inside of a bracket expression that
/// both engines read alike (hex escapes rather than `\&` or `\~`, which JavaScript's `u` mode refuses).
fn posix_class(name: &str) -> Option<&'static str> {
    Some(match name {
        "alpha" => "A-Za-z",
        "digit" => "0-9",
        "alnum" => "0-9A-Za-z",
        "upper" => "A-Z",
        "lower" => "a-z",
        "space" => r"\t\n\x0B\x0C\r ",
        "blank" => r" \t",
        "punct" => r"!-\x2F:-@\x5B-\x60\x7B-\x7E",
        "xdigit" => "0-9A-Fa-f",
        "word" => "0-9A-Za-z_",
        "cntrl" => r"\x00-\x1F\x7F",
        "print" => r"\x20-\x7E",
        "graph" => r"\x21-\x7E",
        _ => return None,
    })
}

/// `pattern`, in the Rust `regex` dialect, as the source of a JavaScript `RegExp` with the `u`
/// flag, and the flags its leading `(?ims)` groups ask for. (Tested on every target; only the
/// JavaScript engine uses it.)
#[cfg_attr(not(all(feature = "js", target_arch = "wasm32")), allow(dead_code))]
pub fn js_source(pattern: &str) -> Result<(String, String), String> {
    let mut flags = String::new();
    let mut rest = pattern;
    while let Some(group) = rest.strip_prefix("(?").and_then(|after| after.split_once(')')) {
        if group.0.is_empty() || !group.0.chars().all(|c| c.is_ascii_alphabetic()) {
            break;
        }
        for flag in group.0.chars() {
            match flag {
                'i' | 'm' | 's' if !flags.contains(flag) => flags.push(flag),
                'i' | 'm' | 's' => {}
                other => return Err(format!("the inline flag `{other}` has no JavaScript form")),
            }
        }
        rest = group.1;
    }
    let chars: Vec<char> = rest.chars().collect();
    let (mut out, mut i, mut class) = (String::with_capacity(rest.len()), 0, false);
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '\\' => {
                let Some(&escaped) = chars.get(i) else {
                    out.push('\\');
                    break;
                };
                i += 1;
                match escaped {
                    'A' if !class => out.push('^'),
                    'z' if !class => out.push('$'),
                    'x' if chars.get(i) == Some(&'{') => {
                        let end = chars[i..].iter().position(|&c| c == '}').map_or(chars.len(), |at| i + at);
                        out.push_str(r"\u{");
                        out.extend(&chars[(i + 1).min(end)..end]);
                        out.push('}');
                        i = end + 1;
                    }
                    e if e.is_ascii_alphanumeric() || r"^$\.*+?()[]{}|/".contains(e) || (class && e == '-') => {
                        out.push('\\');
                        out.push(e);
                    }
                    // Punctuation Rust lets one escape and JavaScript's `u` mode does not (`\#`, `\&`, `\~`):
                    // it stands for itself, which needs no escape in JavaScript.
                    e => out.push(e),
                }
            }
            '[' if !class => {
                class = true;
                out.push('[');
                if chars.get(i) == Some(&'^') {
                    out.push('^');
                    i += 1;
                }
                if chars.get(i) == Some(&']') {
                    out.push_str(r"\]");
                    i += 1;
                }
            }
            '[' => match posix_class_at(&chars, i - 1).filter(|_| chars.get(i) == Some(&':')) {
                Some((Some(ranges), end)) => {
                    out.push_str(ranges);
                    i = end;
                }
                _ => out.push_str(r"\["),
            },
            ']' if class => {
                class = false;
                out.push(']');
            }
            '(' if !class && chars.get(i) == Some(&'?') => {
                if chars.get(i + 1) == Some(&'P') && chars.get(i + 2) == Some(&'<') {
                    out.push_str("(?<");
                    i += 3;
                } else if matches!(chars.get(i + 1), Some(':' | '<' | '=' | '!')) {
                    out.push_str("(?");
                    i += 1;
                } else {
                    return Err("inline flags (`(?i)`) are only read at the start of a pattern here".into());
                }
            }
            c => out.push(c),
        }
    }
    Ok((out, flags))
}

#[cfg(not(all(feature = "js", target_arch = "wasm32")))]
mod engine {
    use super::Captures;

    pub struct Compiled(regex_lite::Regex);

    pub fn compile(pattern: &str, case_insensitive: bool) -> Result<Compiled, String> {
        regex_lite::RegexBuilder::new(pattern)
            .case_insensitive(case_insensitive)
            .build()
            .map(Compiled)
            .map_err(|err| err.to_string())
    }

    pub fn compile_ecma(pattern: &str) -> Result<Compiled, String> {
        compile(pattern, false)
    }

    impl Compiled {
        /// Without allocating (the validator checks tool calls this way).
        pub fn is_match(&self, text: &str) -> bool {
            self.0.is_match(text)
        }

        pub fn captures_at(&self, text: &str, at: usize) -> Option<Captures> {
            let captures = self.0.captures_at(text, at)?;
            Some(captures.iter().map(|group| group.map(|found| found.range())).collect())
        }
    }
}

#[cfg(all(feature = "js", target_arch = "wasm32"))]
mod engine {
    use js_sys::{Array, Function, Reflect, RegExp};
    use wasm_bindgen::JsCast;

    use super::Captures;

    pub struct Compiled(RegExp);

    pub fn compile(pattern: &str, case_insensitive: bool) -> Result<Compiled, String> {
        let (source, mut flags) = super::js_source(pattern)?;
        if case_insensitive && !flags.contains('i') {
            flags.push('i');
        }
        regexp(source, flags)
    }

    pub fn compile_ecma(pattern: &str) -> Result<Compiled, String> {
        regexp(pattern.to_owned(), String::new())
    }

    fn regexp(source: String, mut flags: String) -> Result<Compiled, String> {
        // g: search from lastIndex; d: the groups' indices; u: code points, and strict syntax.
        flags.push_str("gdu");
        let constructor: Function = Reflect::get(&js_sys::global(), &"RegExp".into())
            .ok()
            .and_then(|f| f.dyn_into().ok())
            .ok_or("this JavaScript environment has no RegExp")?;
        // Through Reflect, which returns a SyntaxError rather than throwing it through the module.
        Reflect::construct(&constructor, &Array::of2(&source.into(), &flags.into()))
            .map(|regex| Compiled(regex.unchecked_into()))
            .map_err(|error| match error.dyn_ref::<js_sys::Error>() {
                Some(error) => String::from(error.message()),
                None => "the pattern is not valid".into(),
            })
    }

    impl Compiled {
        pub fn is_match(&self, text: &str) -> bool {
            self.0.set_last_index(0);
            self.0.test(text)
        }

        pub fn captures_at(&self, text: &str, at: usize) -> Option<Captures> {
            let offsets = Utf16::new(text);
            self.0.set_last_index(offsets.unit(at) as u32);
            let found = self.0.exec(text)?;
            let indices: Array = Reflect::get(&found, &"indices".into()).ok()?.dyn_into().ok()?;
            let range = |pair: wasm_bindgen::JsValue| {
                let pair: Array = pair.dyn_into().ok()?;
                Some(offsets.byte(pair.get(0).as_f64()? as usize)..offsets.byte(pair.get(1).as_f64()? as usize))
            };
            Some(indices.iter().map(range).collect())
        }
    }

    /// JavaScript counts UTF-16 code units where Rust counts bytes: the two agree on ASCII text.
    struct Utf16<'t>(Option<&'t str>);

    impl<'t> Utf16<'t> {
        fn new(text: &'t str) -> Self {
            Self((!text.is_ascii()).then_some(text))
        }

        /// The code-unit index of the byte offset `byte`.
        fn unit(&self, byte: usize) -> usize {
            match self.0 {
                None => byte,
                Some(text) => text[..byte].chars().map(char::len_utf16).sum(),
            }
        }

        /// The byte offset of the code-unit index `unit`.
        fn byte(&self, unit: usize) -> usize {
            let Some(text) = self.0 else { return unit };
            let mut units = 0;
            for (byte, c) in text.char_indices() {
                if units >= unit {
                    return byte;
                }
                units += c.len_utf16();
            }
            text.len()
        }
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn matches(pattern: &str, text: &str) -> Vec<String> {
        Regex::new(pattern, false).unwrap().find_iter(text).map(str::to_owned).collect()
    }

    #[test]
    fn matches_are_found_in_order_with_empty_ones_as_the_regex_crate_finds_them() {
        assert_eq!(matches(r"\d+", "a1 b22 c333"), ["1", "22", "333"]);
        assert_eq!(matches("a*", "baaab"), ["", "aaa", ""], "not the empty match where `aaa` ended");
        assert_eq!(matches("x*", "é"), ["", ""], "the search steps over a whole character");
        assert!(Regex::new("HELLO", true).unwrap().is_match("say hello"));
    }

    #[test]
    fn groups_are_byte_ranges_also_after_multibyte_text() {
        let regex = Regex::new(r"(\w+)@(\w+)?", false).unwrap();
        let all: Vec<Captures> = regex.captures_iter("é ab@cd ✓ ef@").collect();
        assert_eq!(all, vec![vec![Some(3..8), Some(3..5), Some(6..8)], vec![Some(13..16), Some(13..15), None]]);
    }

    #[test]
    fn escape_makes_operators_literal_in_both_dialects() {
        let text = r"a.b*c(d)[e]{f}|g^h$i\j+k?l#m&n~o-p/q";
        let regex = Regex::new(&format!("^{}$", escape(text)), false).unwrap();
        assert!(regex.is_match(text));
        assert!(!regex.is_match("aXb*c(d)[e]{f}|g^h$i\\j+k?l#m&n~o-p/q"));
    }

    #[test]
    fn an_invalid_pattern_is_an_error_that_says_so() {
        for pattern in ["(unclosed", "[z-a]", "a{2,1}"] {
            assert!(Regex::new(pattern, false).is_err(), "{pattern}");
        }
    }

    #[test]
    fn rust_syntax_becomes_javascript_syntax() {
        let source = |pattern: &str| js_source(pattern).unwrap();
        assert_eq!(source(r"(?i)\Afoo\z"), (r"^foo$".into(), "i".into()));
        assert_eq!(source(r"(?s)(?m)a.b"), ("a.b".into(), "sm".into()));
        assert_eq!(source(r"(?P<word>\w+)"), (r"(?<word>\w+)".into(), String::new()));
        assert_eq!(source(r"\#\&\~ \x{263A}"), (r"#&~ \u{263A}".into(), String::new()));
        assert_eq!(source(r"[[:alpha:]_\-][^]x]"), (r"[A-Za-z_\-][^\]x]".into(), String::new()));
        assert!(js_source("a(?i)b").is_err(), "a flag after the start");
        assert!(js_source("(?U)a+").is_err(), "a flag with no JavaScript form");
    }

    /// Lookahead is JavaScript's and not regex-lite's: proof of which engine the build runs.
    #[test]
    fn the_engine_is_the_one_the_build_chose() {
        let lookahead = Regex::new("a(?=b)", false);
        if cfg!(all(feature = "js", target_arch = "wasm32")) {
            assert_eq!(lookahead.unwrap().find_iter("ac ab").collect::<Vec<_>>(), ["a"]);
        } else {
            assert!(lookahead.is_err());
        }
    }
}
