//! Backslash escapes, as `echo -e`, `printf` and `$'...'` read them: shared by the parser and
//! the builtins, below both.

/// Interprets backslash escapes (`echo -e`, `printf`, `$'...'`). The flag is true when `\c`
/// asked for output to stop.
pub(super) fn unescape(text: &str) -> (String, bool) {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('a') => out.push('\x07'),
            Some('b') => out.push('\x08'),
            Some('f') => out.push('\x0c'),
            Some('v') => out.push('\x0b'),
            Some('e' | 'E') => out.push('\x1b'),
            Some('\\') => out.push('\\'),
            Some('\'') => out.push('\''),
            Some('"') => out.push('"'),
            Some('c') => return (out, true),
            Some(radix @ ('0' | 'x')) => {
                let (base, max) = if radix == '0' { (8, 3) } else { (16, 2) };
                let mut code = 0;
                for _ in 0..max {
                    match chars.peek().and_then(|c| c.to_digit(base)) {
                        Some(digit) => {
                            code = code * base + digit;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.extend(char::from_u32(code));
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    (out, false)
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn unescapes_backslash_sequences() {
        assert_eq!(unescape(r"a\tb\n\\\x41\0101"), ("a\tb\n\\AA".to_owned(), false));
        assert_eq!(unescape(r"stop\cignored"), ("stop".to_owned(), true));
        assert_eq!(unescape(r"\q"), (r"\q".to_owned(), false));
    }
}
