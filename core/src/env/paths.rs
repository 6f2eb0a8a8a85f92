//! Paths as names, before any filesystem is asked: the lexical fold every environment starts from.

/// `path` made absolute against `cwd` with `.` and `..` folded by name (`..` above `/` stays at
/// `/`), `/`-separated, without a trailing `/`. This is what an environment without symlinks
/// resolves a path to, and where a symlink-aware one starts, so approval rules and tools agree on
/// which file `docs/../secrets/key` is.
pub fn lexical_path(cwd: &str, path: &str) -> String {
    let base = if path.starts_with('/') { "" } else { cwd };
    let mut out = String::with_capacity(base.len() + path.len() + 1);
    for name in base.split('/').chain(path.split('/')) {
        match name {
            "" | "." => {}
            ".." => out.truncate(out.rfind('/').unwrap_or(0)),
            _ => {
                out.push('/');
                out.push_str(name);
            }
        }
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::lexical_path;

    #[test]
    fn folds_dots_by_name_and_never_climbs_above_the_root() {
        assert_eq!(lexical_path("/work", "docs/../secrets/key"), "/work/secrets/key");
        assert_eq!(lexical_path("/work", "./a//b/."), "/work/a/b");
        assert_eq!(lexical_path("/work", "/tmp/x"), "/tmp/x");
        assert_eq!(lexical_path("/work", "../../../etc"), "/etc");
        assert_eq!(lexical_path("/work", ".."), "/");
        assert_eq!(lexical_path("/", "."), "/");
    }
}
