//! `grep` and `glob` over the in-memory tree (the tools' search operations, spec 4.1).

use openagent_core::glob::FileGlob;

use super::fs::{join, relative_to, resolve, Kind, Node, Stamp, Tree};
use openagent_core::env::{push_grep_matches, EnvError, GrepOptions};
use openagent_regex::Regex;

/// The files to search under `root`: the file itself, or every file below a directory, in
/// name order, as (path relative to `root`, absolute path, node).
fn files_under<'a>(tree: &'a Tree, root: &str) -> Result<Vec<(String, String, &'a Node)>, EnvError> {
    let node = tree.get(root)?;
    if !node.is_dir() {
        let name = root.rsplit('/').next().unwrap_or(root).to_owned();
        return Ok(vec![(name, root.to_owned(), node)]);
    }
    Ok(tree
        .walk(root, usize::MAX)?
        .into_iter()
        .filter(|(_, node, _)| !node.is_dir())
        .map(|(rel, node, _)| (rel.clone(), join(root, &rel), node))
        .collect())
}

/// A grep filter matches the path relative to the search root or just the file name, so that
/// `*.rs` finds Rust files at any depth, as `rg --glob` does.
fn filter_matches(filter: &FileGlob, rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    filter.is_match(rel) || filter.is_match(name)
}

/// Lines matching `pattern` as `path:line:text`, separated by newlines, at most
/// `options.max_results` of them. Binary files are skipped.
pub(super) fn grep(tree: &Tree, cwd: &str, pattern: &str, path: &str, options: &GrepOptions) -> Result<String, EnvError> {
    let regex = Regex::new(pattern, options.case_insensitive)
        .map_err(|reason| EnvError::InvalidPattern { pattern: pattern.to_owned(), reason })?;
    let root = resolve(cwd, path)?;
    let filter = options.glob_filter.as_deref().map(|filter| FileGlob::new(filter.strip_prefix("./").unwrap_or(filter)));
    let mut found = Vec::new();
    for (rel, abs, node) in files_under(tree, &root)? {
        if filter.as_ref().is_some_and(|filter| !filter_matches(filter, &rel)) {
            continue;
        }
        let Kind::File(content) = &node.kind else { continue };
        let Some(text) = content.text() else { continue };
        if !push_grep_matches(&mut found, &relative_to(cwd, &abs), text, |line| regex.is_match(line), options.max_results) {
            break;
        }
    }
    Ok(found.join("\n"))
}

/// Files under the directory `path` whose path relative to it matches `pattern`, newest first
/// (ties, which a still clock makes common, by write order, then by path).
pub(super) fn glob(tree: &Tree, cwd: &str, pattern: &str, path: &str) -> Result<Vec<String>, EnvError> {
    if pattern.is_empty() {
        return Err(EnvError::InvalidPattern { pattern: String::new(), reason: "the pattern is empty".into() });
    }
    let base = resolve(cwd, path)?;
    if !tree.get(&base)?.is_dir() {
        return Err(EnvError::NotADirectory(base));
    }
    // An absolute pattern is matched against absolute paths; a relative one against paths under `path`.
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    let glob = FileGlob::new(pattern);
    let mut hits: Vec<(Stamp, String)> = files_under(tree, &base)?
        .into_iter()
        .filter(|(rel, abs, _)| glob.is_match(if pattern.starts_with('/') { abs } else { rel }))
        .map(|(_, abs, node)| (node.stamp, abs))
        .collect();
    openagent_core::llm::sort::sort_by(&mut hits, |(a, a_path), (b, b_path)| b.cmp(a).then_with(|| a_path.cmp(b_path)));
    Ok(hits.into_iter().map(|(_, abs)| relative_to(cwd, &abs)).collect())
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    fn tree() -> Tree {
        let mut tree = Tree::new(0);
        for (path, text, ms) in [
            ("/w/src/main.rs", "fn main() {\n    println!(\"Hello\");\n}\n", 10),
            ("/w/src/lib/util.rs", "pub fn hello() {}\r\n", 30),
            ("/w/README.md", "# hello\nno match here\n", 20),
            ("/w/old.rs", "// HELLO\n", 20),
            ("/other/x.rs", "hello elsewhere\n", 5),
        ] {
            tree.write(path, text.as_bytes().to_vec(), ms, true).unwrap();
        }
        tree.write("/w/bin.dat", b"hello\0binary".to_vec(), 40, true).unwrap();
        tree
    }

    fn options(filter: Option<&str>, case_insensitive: bool, max: usize) -> GrepOptions {
        GrepOptions { glob_filter: filter.map(Into::into), case_insensitive, max_results: max }
    }

    #[test]
    fn grep_reports_path_line_and_text() {
        let tree = tree();
        let out = grep(&tree, "/w", "hello", ".", &options(None, false, 100)).unwrap();
        assert_eq!(out, "README.md:1:# hello\nsrc/lib/util.rs:1:pub fn hello() {}");
        let out = grep(&tree, "/w", "hello", ".", &options(None, true, 100)).unwrap();
        assert_eq!(out.lines().count(), 4, "{out}");
        assert!(out.contains("src/main.rs:2:    println!(\"Hello\");"));
    }

    #[test]
    fn grep_filters_caps_and_searches_single_files() {
        let tree = tree();
        let rust = grep(&tree, "/w", "(?i)hello", ".", &options(Some("*.rs"), false, 100)).unwrap();
        assert_eq!(rust, "old.rs:1:// HELLO\nsrc/lib/util.rs:1:pub fn hello() {}\nsrc/main.rs:2:    println!(\"Hello\");");
        let nested = grep(&tree, "/w", "hello", "src", &options(Some("lib/*.rs"), false, 100)).unwrap();
        assert_eq!(nested, "src/lib/util.rs:1:pub fn hello() {}");
        assert_eq!(grep(&tree, "/w", "(?i)hello", ".", &options(None, false, 2)).unwrap().lines().count(), 2);
        assert_eq!(grep(&tree, "/w", "hello", "/other/x.rs", &options(None, false, 9)).unwrap(), "/other/x.rs:1:hello elsewhere");
        assert_eq!(grep(&tree, "/w", "absent", ".", &options(None, false, 9)).unwrap(), "");
    }

    #[test]
    fn grep_rejects_bad_patterns_and_missing_paths() {
        let tree = tree();
        assert!(matches!(grep(&tree, "/w", "(unclosed", ".", &GrepOptions::default()), Err(EnvError::InvalidPattern { .. })));
        assert!(matches!(grep(&tree, "/w", "x", "nope", &GrepOptions::default()), Err(EnvError::NotFound(_))));
    }

    #[test]
    fn glob_lists_newest_first() {
        let tree = tree();
        assert_eq!(glob(&tree, "/w", "**/*.rs", ".").unwrap(), ["src/lib/util.rs", "old.rs", "src/main.rs"]);
        assert_eq!(glob(&tree, "/w", "*.rs", ".").unwrap(), ["old.rs"]);
        assert_eq!(glob(&tree, "/w", "*.rs", "src/lib").unwrap(), ["src/lib/util.rs"]);
        assert_eq!(glob(&tree, "/w", "**/*.rs", "/other").unwrap(), ["/other/x.rs"]);
        assert_eq!(glob(&tree, "/w", "/w/src/**", "/").unwrap(), ["src/lib/util.rs", "src/main.rs"]);
        assert!(glob(&tree, "/w", "*.none", ".").unwrap().is_empty());
    }

    #[test]
    fn glob_breaks_clock_ties_by_write_order() {
        let mut tree = Tree::new(0);
        for name in ["b", "a", "c"] {
            tree.write(&format!("/w/{name}.txt"), vec![], 7, true).unwrap();
        }
        assert_eq!(glob(&tree, "/w", "*.txt", ".").unwrap(), ["c.txt", "a.txt", "b.txt"]);
        assert!(matches!(glob(&tree, "/w", "*", "missing"), Err(EnvError::NotFound(_))));
        assert!(matches!(glob(&tree, "/w", "*", "a.txt"), Err(EnvError::NotADirectory(_))));
    }
}
