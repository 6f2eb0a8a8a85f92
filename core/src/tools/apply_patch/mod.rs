//! `apply_patch` (spec 3.4, Appendix A): add, delete, update and move files with one v4a patch,
//! the editing format OpenAI's models are trained on. Profiles that want it register
//! [`definition`] with [`ApplyPatchTool`]; it is not one of the shared core tools.
//!
//! The format itself, parsing a patch and computing a file's new content from its hunks, is the
//! `openagent-apply-patch` crate, pure functions over text; this module reads and writes the files
//! through the environment.
//!
//! # Atomicity: verify, write, undo on failure
//!
//! A patch applies whole or not at all. Every file it touches is read once through the
//! environment; then every operation is computed in memory, later ones seeing what earlier ones
//! in the same patch produced (so a file can be added and then updated). Only when every hunk of
//! every file has applied, and every path has been checked (updated and deleted files exist,
//! nothing is written over a directory or through a bad path), is each touched file brought to
//! its final state: written, or deleted. So a parse error, a missing file or a hunk that does not
//! match leaves the environment exactly as it was, and the error says that no file was changed.
//!
//! A change can still fail then: a full disk, permissions, a path the environment refuses (the
//! native one keeps changes inside its working directory), or a later file written where an
//! earlier one made a directory. The changes already made are then undone from the contents read
//! at the start, in reverse, so the files are as they were (directories created on the way may
//! stay, empty). Changes that could not be undone (a file that is not UTF-8 text, or that the
//! environment would not read whole, cannot be written back) are made last, and the error names
//! any file an undo missed.
//!
//! `*** Add File` over an existing file replaces it, as codex does (its scenario
//! `011_add_overwrites_existing_file`); the summary says so, so it is never silent.

#[cfg(test)]
mod tests;

use std::fmt::Write;

use async_trait::async_trait;
use openagent_apply_patch::{apply_chunks, parse, Chunk, ChunkError, Miss, Op};
use serde_json::Value;

use super::args::required_str;
use super::{schema, ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::env::{lexical_path, EnvError, ExecutionEnvironment};
use crate::llm::ToolDefinition;

pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: "apply_patch".into(),
        description: "Create, delete, edit and rename files with one patch. The patch starts with the line \
            `*** Begin Patch` and ends with `*** End Patch`. In between, one section per file:\n\
            `*** Add File: PATH`, then every line of the new file prefixed with `+`;\n\
            `*** Delete File: PATH`;\n\
            `*** Update File: PATH`, optionally `*** Move to: NEW_PATH`, then one or more hunks. A hunk starts \
            with `@@`, or `@@ LINE` where LINE is a line above the change (a function or class signature) to jump \
            to first, and lists lines prefixed with ` ` (unchanged context), `-` (removed) or `+` (added). Give \
            about 3 lines of context above and below each change so it is found in one place, keep hunks in file \
            order, and end a hunk that reaches the end of the file with `*** End of File`. Paths are relative to \
            the working directory. Either the whole patch applies or no file is changed."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "patch": {"type": "string", "description": "The whole patch, from *** Begin Patch to *** End Patch."}
            },
            "required": ["patch"],
            "additionalProperties": false
        }"#,
        ),
    }
}

pub struct ApplyPatchTool;

#[async_trait(?Send)]
impl ToolExecutor for ApplyPatchTool {
    async fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let ops = parse(required_str(args, "patch")?).map_err(|error| ToolError(error.0))?;
        // Every file the patch touches is read once, up front, so that planning needs no I/O.
        let mut files = Files { cwd: ctx.env.working_directory(), entries: Vec::new() };
        for path in ops.iter().flat_map(Op::paths).flatten() {
            let key = lexical_path(&files.cwd, path);
            if !files.entries.iter().any(|entry| entry.key == key) {
                let now = ctx.env.read_file(path, None, None).await;
                let original = original(&now, path, ctx.env).await;
                files.entries.push(Entry { key, path: path.to_owned(), original, now, changed: false });
            }
        }
        let summary = plan(&ops, &mut files)?;
        commit(&files.changes(), ctx.env).await?;
        Ok(format!("Success. Updated the following files:\n{}", summary.join("\n")).into())
    }
}

/// What a file held before the patch, for undoing a change to it.
#[derive(Clone)]
enum Original {
    Missing,
    Text(String),
    /// There, but not as text the environment can write back (not UTF-8, or unreadable).
    Unrestorable,
}

/// A file's content as read, with binary files read as bytes: one with NUL bytes is still text
/// that `write_file` can put back.
async fn original(read: &Result<String, EnvError>, path: &str, env: &dyn ExecutionEnvironment) -> Original {
    match read {
        Ok(content) => Original::Text(content.clone()),
        Err(EnvError::NotFound(_)) => Original::Missing,
        Err(EnvError::BinaryFile(_)) => match env.read_bytes(path).await.map(String::from_utf8) {
            Ok(Ok(content)) => Original::Text(content),
            _ => Original::Unrestorable,
        },
        Err(_) => Original::Unrestorable,
    }
}

/// One file a patch touches.
struct Entry {
    /// Absolute and lexically normal.
    key: String,
    /// As the patch first names it.
    path: String,
    original: Original,
    /// As the operations so far have left it: its content, or why there is none (`NotFound` once
    /// deleted, `IsADirectory`, ...).
    now: Result<String, EnvError>,
    changed: bool,
}

/// The files a patch touches, in the order it first names them.
struct Files {
    cwd: String,
    entries: Vec<Entry>,
}

impl Files {
    fn read(&self, path: &str) -> Result<&str, EnvError> {
        let key = lexical_path(&self.cwd, path);
        match self.entries.iter().find(|entry| entry.key == key).map(|entry| &entry.now) {
            Some(Ok(content)) => Ok(content),
            Some(Err(error)) => Err(error.clone()),
            None => Err(EnvError::NotFound(path.to_owned())),
        }
    }

    fn set(&mut self, path: &str, state: Result<String, EnvError>) {
        let key = lexical_path(&self.cwd, path);
        match self.entries.iter_mut().find(|entry| entry.key == key) {
            Some(entry) => {
                entry.now = state;
                entry.changed = true;
            }
            // Every path of the patch was read up front, so this is not reached; it keeps `set`
            // total all the same.
            None => {
                self.entries.push(Entry { key, path: path.to_owned(), original: Original::Missing, now: state, changed: true })
            }
        }
    }

    /// Each changed file's final state, those that can be undone first.
    fn changes(&self) -> Vec<Change> {
        let mut changes: Vec<Change> = self
            .entries
            .iter()
            .filter(|entry| entry.changed)
            .filter_map(|entry| {
                let content = entry.now.as_ref().ok().cloned();
                // A file added and then deleted by the same patch needs nothing done.
                let nothing = content.is_none() && matches!(entry.original, Original::Missing);
                (!nothing).then(|| Change { path: entry.path.clone(), content, original: entry.original.clone() })
            })
            .collect();
        let unrestorable = |change: &Change| matches!(change.original, Original::Unrestorable);
        openagent_llm::sort::sort_by(&mut changes, |a, b| unrestorable(a).cmp(&unrestorable(b)));
        changes
    }

    /// Refuses paths that could not be written: a directory, a path through a file, outside the
    /// environment, ...
    fn check_writable(&self, path: &str) -> Result<(), ToolError> {
        match self.read(path) {
            Ok(_) | Err(EnvError::NotFound(_)) => Ok(()),
            Err(error) if exists_unseen(&error) => Ok(()),
            Err(error) => Err(cannot("write", path, error)),
        }
    }
}

/// Whether a read `error` says the file is there but its text could not be had: binary, or
/// refused by the environment for another reason (the native one reads at most 16 MiB at once).
/// Such a file can still be replaced or deleted.
fn exists_unseen(error: &EnvError) -> bool {
    matches!(error, EnvError::BinaryFile(_) | EnvError::Io(_))
}

/// One file brought to its final state: written with `content`, or deleted.
struct Change {
    path: String,
    content: Option<String>,
    original: Original,
}

/// Computes every operation over `files`, checking each; returns the summary, `A path`,
/// `M path`, `D path`, one per operation.
fn plan(ops: &[Op<'_>], files: &mut Files) -> Result<Vec<String>, ToolError> {
    let mut summary = Vec::new();
    for op in ops {
        match op {
            Op::Add { path, lines } => {
                files.check_writable(path)?;
                let replaced = match files.read(path) {
                    Err(EnvError::NotFound(_)) => "",
                    _ => " (replaced the existing file)",
                };
                let mut content = String::new();
                for line in lines {
                    content.push_str(line);
                    content.push('\n');
                }
                files.set(path, Ok(content));
                summary.push(format!("A {path}{replaced}"));
            }
            Op::Delete { path } => {
                match files.read(path) {
                    // Any file can be deleted, text or not, small or not.
                    Ok(_) => {}
                    Err(error) if exists_unseen(&error) => {}
                    Err(error) => return Err(cannot("delete", path, error)),
                }
                files.set(path, Err(EnvError::NotFound(path.clone())));
                summary.push(format!("D {path}"));
            }
            Op::Update { path, move_to, chunks } => {
                let old = files.read(path).map_err(|error| cannot("update", path, error))?;
                let content = apply_chunks(old, chunks).map_err(|error| hunk_error(path, chunks, error))?;
                let target = move_to.as_ref().unwrap_or(path);
                files.check_writable(target)?;
                files.set(path, Err(EnvError::NotFound(path.clone())));
                files.set(target, Ok(content));
                if lexical_path(&files.cwd, target) != lexical_path(&files.cwd, path) {
                    summary.push(format!("M {target} (moved from {path})"));
                } else {
                    summary.push(format!("M {path}"));
                }
            }
        }
    }
    Ok(summary)
}

/// Makes the changes; on the first failure, undoes those made, newest first.
async fn commit(changes: &[Change], env: &dyn ExecutionEnvironment) -> Result<(), ToolError> {
    for (done, change) in changes.iter().enumerate() {
        let (result, verb) = match &change.content {
            Some(content) => (env.write_file(&change.path, content).await, "write"),
            None => (env.remove_file(&change.path).await, "delete"),
        };
        let Err(error) = result else { continue };
        let mut missed = Vec::new();
        for made in changes[..done].iter().rev() {
            let undone = match &made.original {
                Original::Text(content) => env.write_file(&made.path, content).await.is_ok(),
                Original::Missing => env.remove_file(&made.path).await.is_ok(),
                Original::Unrestorable => false,
            };
            if !undone {
                missed.push(made.path.as_str());
            }
        }
        let path = &change.path;
        return Err(ToolError::new(if missed.is_empty() {
            format!(
                "apply_patch: every hunk applied, but could not {verb} {path}: {error}. The changes made before it \
                 were undone, so no file was changed."
            )
        } else {
            format!(
                "apply_patch: every hunk applied, but could not {verb} {path}: {error}. The changes made before \
                 it could not all be undone: {} may be changed; read them before you patch them again.",
                missed.join(", ")
            )
        }));
    }
    Ok(())
}

fn cannot(verb: &str, path: &str, error: EnvError) -> ToolError {
    match error {
        EnvError::NotFound(_) => {
            let create = if verb == "update" { ", or use `*** Add File:` to create it" } else { "" };
            unchanged(format!("cannot {verb} {path}: there is no such file. Check the path (glob finds files){create}."))
        }
        error => unchanged(format!("cannot {verb} {path}: {error}.")),
    }
}

fn hunk_error(path: &str, chunks: &[Chunk<'_>], error: ChunkError) -> ToolError {
    let chunk = &chunks[error.index];
    let mut head = format!("in {path}, hunk {}", error.index + 1);
    if let Some(context) = chunk.context {
        let _ = write!(head, " (@@ {context})");
    }
    let after_previous = if error.index > 0 { " below the previous hunk" } else { "" };
    let fix = format!(
        "Read {path} to see its current content, then send the patch again with context and `-` lines copied \
         from it exactly, hunks in file order."
    );
    unchanged(match (error.miss, chunk.context) {
        (Miss::Context, Some(context)) => format!("{head}: the @@ line `{context}` was not found{after_previous}. {fix}"),
        (_, context) => {
            let below = if context.is_some() { " below its @@ line" } else { after_previous };
            format!("{head}: the lines to replace were not found{below}:\n{}\n{fix}", chunk.old().join("\n"))
        }
    })
}

/// An error from before any change was made.
fn unchanged(message: String) -> ToolError {
    ToolError::new(format!("apply_patch: {message} No file was changed."))
}
