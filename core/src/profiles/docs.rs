//! Project instruction files (spec 6.5): `AGENTS.md` and the active family's own file in each
//! directory from the root (the git root, else the working directory) down to the working
//! directory. Root files come first, so deeper files, which come later, take precedence.

use crate::env::ExecutionEnvironment;

/// Spec 6.5: at most this many bytes of instructions in all.
pub(crate) const BUDGET: usize = 32 * 1024;
pub(crate) const TRUNCATED: &str = "[Project instructions truncated at 32KB]";

/// Each file found, in a `<project_instructions>` section; empty when there are none.
pub(crate) async fn project_docs(env: &dyn ExecutionEnvironment, root: Option<&str>, names: &[&str]) -> String {
    let mut sections = Vec::new();
    let mut room = BUDGET;
    for dir in walk(root, &env.working_directory()) {
        for name in names {
            let path = format!("{}/{name}", dir.trim_end_matches('/'));
            // Most directories have none of the files: a failed read just means "not here".
            let Ok(text) = env.read_file(&path, None, None).await else { continue };
            if text.trim().is_empty() {
                continue;
            }
            let mut cut = text.len().min(room);
            while !text.is_char_boundary(cut) {
                cut -= 1;
            }
            room -= cut;
            let marker = if cut < text.len() { format!("\n{TRUNCATED}") } else { String::new() };
            sections.push(format!(
                "<project_instructions path=\"{path}\">\n{}{marker}\n</project_instructions>",
                text[..cut].trim_end()
            ));
            if !marker.is_empty() {
                return sections.join("\n\n");
            }
        }
    }
    sections.join("\n\n")
}

/// The directories from `root` down to `cwd`, root first; only `cwd` when it is not below `root`.
pub(super) fn walk(root: Option<&str>, cwd: &str) -> Vec<String> {
    // Windows hosts may give `C:\dir` while git gives `C:/dir`; both accept `/`.
    let cwd = cwd.replace('\\', "/");
    let root = root.map(|root| root.replace('\\', "/").trim_end_matches('/').to_owned());
    let below = root.as_deref().and_then(|root| Some((root, cwd.strip_prefix(root)?)));
    match below {
        Some((root, rest)) if rest.is_empty() || rest.starts_with('/') => {
            let mut dirs = vec![root.to_owned()];
            for part in rest.split('/').filter(|part| !part.is_empty()) {
                dirs.push(format!("{}/{part}", dirs[dirs.len() - 1]));
            }
            dirs
        }
        _ => vec![cwd],
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn walks_from_the_root_down_to_the_working_directory() {
        assert_eq!(walk(Some("/repo"), "/repo/a/b"), ["/repo", "/repo/a", "/repo/a/b"]);
        assert_eq!(walk(Some("/repo/"), "/repo"), ["/repo"]);
        assert_eq!(walk(Some("C:/repo"), "C:\\repo\\a"), ["C:/repo", "C:/repo/a"]);
        assert_eq!(walk(Some("/"), "/w"), ["", "/w"]);
    }

    #[test]
    fn outside_the_root_only_the_working_directory_counts() {
        assert_eq!(walk(Some("/repo"), "/repository/a"), ["/repository/a"]);
        assert_eq!(walk(Some("/repo"), "/elsewhere"), ["/elsewhere"]);
        assert_eq!(walk(None, "/w/x"), ["/w/x"]);
    }
}
