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
    // reached[j]: the pattern so far matches t[..j]. Updated in place, token by token.
    let mut reached = vec![false; t.len() + 1];
    reached[0] = true;
    // For `**/`, the positions before it: it may match no directory at all.
    let mut before_dirs: Option<Vec<bool>> = None;
    let mut i = 0;
    while i < p.len() {
        if p[i] == b'*' {
            let deep = paths && p.get(i + 1) == Some(&b'*');
            if deep {
                i += 1;
                if p.get(i + 1) == Some(&b'/') {
                    before_dirs = Some(reached.clone());
                }
            }
            let mut running = false;
            for (j, slot) in reached.iter_mut().enumerate() {
                running |= *slot;
                *slot = running;
                if paths && !deep && t.get(j) == Some(&b'/') {
                    running = false;
                }
            }
        } else {
            for j in (1..=t.len()).rev() {
                let c = t[j - 1];
                reached[j] = reached[j - 1] && (c == p[i] || (p[i] == b'?' && !(paths && c == b'/')));
            }
            reached[0] = false;
            if let Some(before) = before_dirs.take() {
                for (now, then) in reached.iter_mut().zip(before) {
                    *now |= then;
                }
            }
        }
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
