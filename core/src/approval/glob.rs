//! A tiny glob matcher for approval rules: `*`, `**` and `?`, nothing else.
//!
//! The browser bundle has no room for a glob crate here (DESIGN.md), and rules need little: a
//! command glob (`git *`, where `*` matches anything) and a path glob (`src/**/*.rs`, where `*`
//! and `?` stay within one path segment and `**` crosses them). Matching walks the pattern once
//! over the set of text positions reached so far, so it costs pattern length times text length
//! whatever the pattern: a rule cannot make a long command slow to decide.

/// Whether `text` matches `pattern` whole. With `paths`, `*` and `?` do not match `/`, `**`
/// matches across segments, and `**/` also matches no directory at all.
pub fn glob_match(pattern: &str, text: &str, paths: bool) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let mut reached = vec![false; t.len() + 1];
    reached[0] = true;
    let mut i = 0;
    while i < p.len() {
        let mut next = vec![false; t.len() + 1];
        match p[i] {
            b'*' => {
                let deep = paths && p.get(i + 1) == Some(&b'*');
                let spans_slash = deep || !paths;
                if deep {
                    i += 1;
                }
                let mut running = false;
                for j in 0..=t.len() {
                    running |= reached[j];
                    next[j] = running;
                    if !spans_slash && t.get(j) == Some(&b'/') {
                        running = false;
                    }
                }
                if deep && p.get(i + 1) == Some(&b'/') {
                    // `**/`: any directories followed by `/`, or none at all.
                    i += 1;
                    let mut after = vec![false; t.len() + 1];
                    for j in 0..=t.len() {
                        after[j] = reached[j] || (j > 0 && next[j - 1] && t[j - 1] == b'/');
                    }
                    next = after;
                }
            }
            b'?' => {
                for j in 0..t.len() {
                    next[j + 1] = reached[j] && !(paths && t[j] == b'/');
                }
            }
            c => {
                for j in 0..t.len() {
                    next[j + 1] = reached[j] && t[j] == c;
                }
            }
        }
        reached = next;
        i += 1;
    }
    reached[t.len()]
}

/// Why `pattern` cannot be a path glob, if it cannot: `**` must be a whole path segment.
pub fn check_path_glob(pattern: &str) -> Result<(), String> {
    if pattern.contains("***") {
        return Err(format!("`{pattern}` has `***`; use `**` for any directories, `*` within one name"));
    }
    for segment in pattern.split('/') {
        if segment.contains("**") && segment != "**" {
            return Err(format!("`{pattern}`: `**` must be a whole path segment (`src/**/*.rs`), not part of `{segment}`"));
        }
    }
    Ok(())
}
