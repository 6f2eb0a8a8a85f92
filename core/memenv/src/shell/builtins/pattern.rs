//! POSIX patterns in the Rust regex dialect: basic and extended regular expressions (grep, sed)
//! and shell wildcards matched across `/` (find -path). What they produce reads alike in
//! regex-lite and in JavaScript's `RegExp` (see `openagent_regex`).

use openagent_regex::{escape, posix_class_at, Regex};

/// Translates a POSIX regular expression (basic unless `extended`) into the Rust regex dialect.
/// In a basic expression `\(`, `\)`, `\{`, `\}`, `\|`, `\+` and `\?` are the operators and the
/// bare characters literal; GNU's `\<` and `\>` become `\b`.
pub(super) fn translate(pattern: &str, extended: bool) -> String {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '\\' if i < chars.len() => {
                let escaped = chars[i];
                i += 1;
                match escaped {
                    '<' | '>' => out.push_str(r"\b"),
                    '(' | ')' | '{' | '}' | '|' | '+' | '?' if !extended => out.push(escaped),
                    c if c.is_ascii_alphanumeric() => {
                        out.push('\\');
                        out.push(c);
                    }
                    c => out.push_str(&escape(&c.to_string())),
                }
            }
            '[' => i = bracket(&chars, i, false, &mut out),
            '(' | ')' | '{' | '}' | '|' | '+' | '?' if !extended => {
                out.push('\\');
                out.push(c);
            }
            // A leading `*` is literal in a basic expression.
            '*' if !extended && (out.is_empty() || out == "^" || out.ends_with('(') || out.ends_with('|')) => out.push_str(r"\*"),
            _ => out.push(c),
        }
    }
    out
}

/// Copies a bracket expression that starts after `chars[start - 1] == '['`, escaping what the
/// Rust dialect would read differently (a backslash is literal in POSIX brackets, `[` could nest,
/// `&&`, `--` and `~~` would be set operations), and spelling out classes like `[:alpha:]`.
/// Wildcards (`bang`) also negate with `[!...]`.
/// Returns the index after the closing `]`.
fn bracket(chars: &[char], start: usize, bang: bool, out: &mut String) -> usize {
    let mut i = start;
    out.push('[');
    if chars.get(i) == Some(&'^') || (bang && chars.get(i) == Some(&'!')) {
        out.push('^');
        i += 1;
    }
    if chars.get(i) == Some(&']') {
        out.push_str(r"\]");
        i += 1;
    }
    while let Some(&c) = chars.get(i) {
        match c {
            ']' => {
                out.push(']');
                return i + 1;
            }
            '[' if chars.get(i + 1) == Some(&':') => {
                // An unknown or unclosed class goes as written, for the engine to refuse.
                let end = match posix_class_at(chars, i) {
                    Some((Some(ranges), end)) => {
                        out.push_str(ranges);
                        end
                    }
                    unknown => {
                        let end = unknown.map_or(chars.len(), |(_, end)| end);
                        out.extend(&chars[i..end]);
                        end
                    }
                };
                i = end;
                continue;
            }
            '\\' | '[' => {
                out.push('\\');
                out.push(c);
            }
            // As hex escapes: `\&` and `\~` are refused by JavaScript's `u` mode.
            '&' => out.push_str(r"\x26"),
            '~' => out.push_str(r"\x7E"),
            '-' if chars.get(i + 1) == Some(&'-') => out.push_str(r"\-"),
            _ => out.push(c),
        }
        i += 1;
    }
    // Unclosed: leave it unclosed so that the regex compiler reports it.
    i
}

/// A shell wildcard pattern as an anchored regular expression in which `*` also matches `/`
/// (fnmatch without FNM_PATHNAME, as `find -path` uses it).
pub(super) fn wildcard(pattern: &str, case_insensitive: bool) -> Result<Regex, String> {
    let chars: Vec<char> = pattern.chars().collect();
    let mut out = String::from("^");
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        match c {
            '*' => out.push_str(".*"),
            '?' => out.push('.'),
            '[' if chars[i..].contains(&']') => i = bracket(&chars, i, true, &mut out),
            '\\' if i < chars.len() => {
                out.push_str(&escape(&chars[i].to_string()));
                i += 1;
            }
            c => out.push_str(&escape(&c.to_string())),
        }
    }
    out.push('$');
    Regex::new(&out, case_insensitive).map_err(|err| format!("invalid pattern '{pattern}': {err}"))
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn matches(pattern: &str, extended: bool, text: &str) -> bool {
        Regex::new(&translate(pattern, extended), false).unwrap().is_match(text)
    }

    #[test]
    fn basic_expressions_swap_escaped_and_bare_operators() {
        assert_eq!(translate(r"a\|b", false), "a|b");
        assert_eq!(translate("a|b", false), r"a\|b");
        assert_eq!(translate(r"\(ab\)\{2\}", false), "(ab){2}");
        assert_eq!(translate("f(x)+", false), r"f\(x\)\+");
        assert_eq!(translate("*star", false), r"\*star");
        assert!(matches(r"foo\|bar", false, "a bar"));
        assert!(matches(r"\<word\>", false, "a word here"));
        assert!(!matches(r"\<word\>", false, "swordfish"));
        assert!(matches(r"a\.b\/c", false, "a.b/c"));
    }

    #[test]
    fn extended_expressions_pass_through() {
        assert_eq!(translate("(a|b)+", true), "(a|b)+");
        assert!(matches("^(get|set)_[a-z]+$", true, "get_name"));
    }

    #[test]
    fn brackets_are_posix() {
        assert!(matches(r"[[:digit:]]\+x", false, "42x"));
        assert!(matches("[[:digit:]]+x", false, "4+x"));
        assert!(matches(r"[\]", false, r"a\b"));
        assert!(matches("[]a]", false, "]"));
        assert!(matches("[^[:space:]]", true, " x"));
        assert!(matches("[a&&b]", true, "&"));
        assert!(Regex::new(&translate("[abc", true), false).is_err());
    }

    #[test]
    fn wildcards_cross_slashes() {
        let re = wildcard("./src/*/*.rs", false).unwrap();
        assert!(re.is_match("./src/a/b/c.rs"));
        assert!(!re.is_match("./lib/a.rs"));
        assert!(wildcard("*.MD", true).unwrap().is_match("readme.md"));
        assert!(wildcard("file[0-9].txt", false).unwrap().is_match("file7.txt"));
        assert!(wildcard("[!a]*", false).unwrap().is_match("bcd"));
        assert!(!wildcard("[!a]*", false).unwrap().is_match("abc"));
        assert!(wildcard("a+b(c).txt", false).unwrap().is_match("a+b(c).txt"));
    }
}
