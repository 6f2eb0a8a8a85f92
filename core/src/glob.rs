//! A small glob matcher, for approval rules and for the files of the memory filesystem (the
//! glob tool, `grep --include`, the shell's wildcards). The browser bundle has no room for a glob
//! crate (DESIGN.md).
//!
//! Approval rules need little and take `*`, `**` and `?` only: a command glob (`git *`, where
//! `*` matches anything) and a path glob (`src/**/*.rs`, where `*` and `?` stay within one path
//! segment and `**` crosses them). File globs also take `[abc]`, `[a-z]`, `[!a]`, `{a,b}` and
//! `\` escapes. Matching walks the pattern once over the set of text positions reached so far, so
//! it costs pattern length times text length whatever the pattern: a rule cannot make a long
//! command slow to decide.

/// The most alternatives braces may make, at every depth; past it they are taken as they are
/// written, so a hostile pattern (`{a,b}` twenty times over) cannot make a million.
const MAX_ALTERNATIVES: usize = 256;

/// Whether `text` matches `pattern` whole. With `paths`, `*` and `?` do not match `/`, `**`
/// matches across segments, and `**/` also matches no directory at all.
pub fn glob_match(pattern: &str, text: &str, paths: bool) -> bool {
    matches(pattern.as_bytes(), text.as_bytes(), paths, false)
}

/// A file glob: a path glob with classes (`[a-z]`, `[!._]`), alternatives (`*.{js,ts}`) and `\`
/// escapes. Its braces are expanded once, when it is made, for the many paths a search tries.
pub struct FileGlob(Vec<String>);

impl FileGlob {
    pub fn new(pattern: &str) -> Self {
        let mut budget = MAX_ALTERNATIVES;
        Self(expand_braces(pattern, &mut budget).unwrap_or_else(|| vec![pattern.to_owned()]))
    }

    /// Whether the path `text` matches the glob whole.
    pub fn is_match(&self, text: &str) -> bool {
        self.0.iter().any(|pattern| matches(pattern.as_bytes(), text.as_bytes(), true, true))
    }
}

/// The patterns `pattern`'s braces make, each alternative taking one of `budget`: none once it
/// runs out.
fn expand_braces(pattern: &str, budget: &mut usize) -> Option<Vec<String>> {
    let Some((open, close, commas)) = brace_group(pattern.as_bytes()) else { return Some(vec![pattern.to_owned()]) };
    let (head, body, tail) = (&pattern[..open], &pattern[open + 1..close], &pattern[close + 1..]);
    let mut expanded = Vec::new();
    let mut start = 0;
    for end in commas.iter().copied().chain([body.len()]) {
        *budget = budget.checked_sub(1)?;
        expanded.extend(expand_braces(&format!("{head}{}{tail}", &body[start..end]), budget)?);
        start = end + 1;
    }
    Some(expanded)
}

/// The first `{...}` with a comma at its own level: where it opens and closes, and its commas
/// (offsets within it). Escaped braces and commas do not count.
fn brace_group(p: &[u8]) -> Option<(usize, usize, Vec<usize>)> {
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            b'\\' => i += 1,
            b'{' => {
                let (mut depth, mut commas, mut j) = (0, Vec::new(), i + 1);
                while j < p.len() {
                    match p[j] {
                        b'\\' => j += 1,
                        b'{' => depth += 1,
                        b'}' if depth == 0 => {
                            if !commas.is_empty() {
                                return Some((i, j, commas));
                            }
                            break;
                        }
                        b'}' => depth -= 1,
                        b',' if depth == 0 => commas.push(j - i - 1),
                        _ => {}
                    }
                    j += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// One pattern without braces against `t`; `classes` reads `[...]` and `\` escapes.
fn matches(p: &[u8], t: &[u8], paths: bool, classes: bool) -> bool {
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
            // One byte of the text: a literal, `?`, or (with `classes`) an escape or a class.
            let class = if classes && p[i] == b'[' { class_end(p, i) } else { None };
            let literal = match p[i] {
                b'\\' if classes && i + 1 < p.len() => {
                    i += 1;
                    Some(p[i])
                }
                b'?' => None,
                _ if class.is_some() => None,
                c => Some(c),
            };
            let accepts = |c: u8| match (literal, class) {
                (Some(literal), _) => c == literal,
                _ if paths && c == b'/' => false,
                (None, Some(end)) => in_class(&p[i + 1..end], c),
                (None, None) => true,
            };
            for j in (1..=t.len()).rev() {
                reached[j] = reached[j - 1] && accepts(t[j - 1]);
            }
            if let Some(end) = class {
                i = end;
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

/// Where the class opening at `p[open]` closes (its `]`), if it does. A `]` first in it (after
/// a `!` or `^`) is a member.
fn class_end(p: &[u8], open: usize) -> Option<usize> {
    let mut i = open + 1;
    if matches!(p.get(i), Some(b'!' | b'^')) {
        i += 1;
    }
    if p.get(i) == Some(&b']') {
        i += 1;
    }
    p[i.min(p.len())..].iter().position(|&c| c == b']').map(|at| i + at)
}

/// Whether `c` is in the class `members` (what is between `[` and `]`): bytes and `a-z` ranges,
/// all but them after a leading `!` or `^`.
fn in_class(members: &[u8], c: u8) -> bool {
    let (negated, members) = match members.first() {
        Some(b'!' | b'^') => (true, &members[1..]),
        _ => (false, members),
    };
    let mut found = false;
    let mut i = 0;
    while i < members.len() {
        if i + 2 < members.len() && members[i + 1] == b'-' {
            found |= (members[i]..=members[i + 2]).contains(&c);
            i += 3;
        } else {
            found |= members[i] == c;
            i += 1;
        }
    }
    found != negated
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

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn file_globs_take_classes_alternatives_and_escapes() {
        let yes = [
            ("*.{js,ts}", "app.ts"),
            ("src/**/*.{rs,toml}", "src/a/b/Cargo.toml"),
            ("src/**/*.rs", "src/main.rs"),
            ("{src,tests}/*.rs", "tests/a.rs"),
            ("file[0-9].txt", "file7.txt"),
            ("[!.]*", "README"),
            ("[^.]*", "README"),
            ("[]x]", "]"),
            ("[!]x]", "a"),
            ("a\\*b", "a*b"),
            ("a\\{b,c}", "a{b,c}"),
            ("{a,{b,c}}.txt", "c.txt"),
            ("{a}.txt", "{a}.txt"),
            ("[ab", "[ab"),
            ("**", "a/b/c"),
            ("**/*.md", "README.md"),
            ("?.rs", "a.rs"),
        ];
        for (pattern, path) in yes {
            assert!(FileGlob::new(pattern).is_match(path), "{pattern} should match {path}");
        }
        let no = [
            ("*.{js,ts}", "app.rs"),
            ("*.rs", "src/main.rs"),
            ("file[0-9].txt", "filex.txt"),
            ("[!.]*", ".hidden"),
            ("src/[a-z]*", "src/Main.rs"),
            ("a[/]b", "a/b"),
            ("a?b", "a/b"),
            ("a\\*b", "axb"),
            ("{a,b}", "c"),
        ];
        for (pattern, path) in no {
            assert!(!FileGlob::new(pattern).is_match(path), "{pattern} should not match {path}");
        }
    }

    #[test]
    fn approval_globs_keep_brackets_and_braces_literal() {
        assert!(glob_match("test [ -f x ]", "test [ -f x ]", false));
        assert!(!glob_match("cargo {build,test}", "cargo test", false));
        assert!(glob_match("cargo {build,test}", "cargo {build,test}", false));
    }

    #[test]
    fn a_pattern_of_many_brace_groups_stays_bounded() {
        let hostile = "{a,b}".repeat(20);
        let text = "ab".repeat(10);
        assert!(!FileGlob::new(&hostile).is_match(&text), "past the cap, braces are literal");
        assert!(FileGlob::new(&"{a,b}".repeat(4)).is_match("abba"));
    }
}
