//! The files a session has read or written, for profiles that guard files against small models
//! (the general profile). `write_file` and `edit_file` refuse to change an existing file the model
//! has not read, so that an edit is made against the text that is there, not a guess at it; and
//! `write_file` refuses, once per file, a rewrite that would drop most of its lines, since small
//! models overwrite a whole module with the one function they meant to add.

use std::cell::RefCell;

use super::{ToolContext, ToolError};

/// A handful of files per session: lists cost the browser bundle less than sets.
#[derive(Debug, Default)]
pub struct FilesSeen {
    read: RefCell<Vec<String>>,
    /// Files whose lossy rewrite was refused once: sent again, it goes through.
    warned: RefCell<Vec<String>>,
}

impl FilesSeen {
    pub fn mark(&self, working_dir: &str, path: &str) {
        let key = key(working_dir, path);
        let mut read = self.read.borrow_mut();
        if !read.contains(&key) {
            read.push(key);
        }
    }

    pub fn has(&self, working_dir: &str, path: &str) -> bool {
        self.read.borrow().contains(&key(working_dir, path))
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

/// Refuses, once per file, a rewrite of `path` that keeps less than half of the lines of `old`
/// (blank ones aside), saying how to add or change code instead; the same call sent again is the
/// model's confirmation. Files of a few lines, and very long ones, are not checked.
pub(crate) fn require_kept(ctx: &ToolContext<'_>, path: &str, old: &str, new: &str) -> Result<(), ToolError> {
    let Some(seen) = ctx.files_seen else { return Ok(()) };
    let lines: Vec<&str> = old.lines().map(str::trim).filter(|line| !line.is_empty()).collect();
    if lines.len() < 3 || lines.len() > 2000 || new.len() > 200_000 {
        return Ok(());
    }
    let kept = lines.iter().filter(|line| new.lines().any(|other| other.trim() == **line)).count();
    let key = key(&ctx.env.working_directory(), path);
    if kept * 2 >= lines.len() || seen.warned.borrow().contains(&key) {
        return Ok(());
    }
    seen.warned.borrow_mut().push(key);
    Err(ToolError::new(format!(
        "Not written: {path} has {} lines and your content keeps {kept} of them, so the others would be lost. \
         To add your content at the end of the file, call write_file with append set to true; to change part \
         of it, use edit_file. To replace the whole file anyway, send this call again.",
        lines.len()
    )))
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
