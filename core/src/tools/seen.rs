//! The files a session has read or written: `write_file` and `edit_file` refuse to change an
//! existing file the model has not read, so that an edit is made against the text that is there,
//! not a guess at it (small models otherwise overwrite a whole module with the one function they
//! meant to add).

use std::cell::RefCell;

use super::{ToolContext, ToolError};

/// A handful of files per session: a list costs the browser bundle less than a set.
#[derive(Debug, Default)]
pub struct FilesSeen(RefCell<Vec<String>>);

impl FilesSeen {
    pub fn mark(&self, working_dir: &str, path: &str) {
        let key = key(working_dir, path);
        let mut seen = self.0.borrow_mut();
        if !seen.contains(&key) {
            seen.push(key);
        }
    }

    pub fn has(&self, working_dir: &str, path: &str) -> bool {
        self.0.borrow().contains(&key(working_dir, path))
    }
}

/// Marks `path` as seen, when the session keeps count.
pub(crate) fn mark(ctx: &ToolContext<'_>, path: &str) {
    if let Some(seen) = ctx.files_seen {
        seen.mark(&ctx.env.working_directory(), path);
    }
}

/// Refuses a change to the existing file `path` when the session keeps count and the model has
/// not read it.
pub(crate) fn require_read(ctx: &ToolContext<'_>, path: &str) -> Result<(), ToolError> {
    match ctx.files_seen {
        Some(seen) if !seen.has(&ctx.env.working_directory(), path) => Err(ToolError::new(format!(
            "Not changed: {path} already exists and you have not read it yet. Read it with read_file first, \
             then change part of it with edit_file (or all of it with write_file)."
        ))),
        _ => Ok(()),
    }
}

/// `path` made absolute against `working_dir`, with `.`, `..` and repeated separators taken out,
/// so that `a.py`, `./a.py` and `/work/a.py` are one file. Lexical: a file reached through a
/// symlink counts as another, and has to be read under that name too.
fn key(working_dir: &str, path: &str) -> String {
    let path = path.replace('\\', "/");
    let absolute = path.starts_with('/') || path.get(1..3) == Some(":/");
    let joined = if absolute { path } else { [working_dir.replace('\\', "/").as_str(), "/", &path].concat() };
    let mut parts: Vec<&str> = Vec::new();
    for part in joined.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            part => parts.push(part),
        }
    }
    parts.join("/")
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn one_file_under_its_several_spellings() {
        let seen = FilesSeen::default();
        seen.mark("/work", "src/a.py");
        for path in ["src/a.py", "./src/a.py", "/work/src/a.py", "src//a.py", "lib/../src/a.py", "/work/./src/a.py"] {
            assert!(seen.has("/work", path), "{path}");
        }
        for path in ["a.py", "src/b.py", "/src/a.py", "/work/src"] {
            assert!(!seen.has("/work", path), "{path}");
        }
        seen.mark("C:\\proj", "main.rs");
        assert!(seen.has("C:\\proj", "C:/proj/main.rs"));
    }
}
