//! `apply_patch` (spec 3.4, Appendix A): add, delete, update and move files with one v4a patch,
//! the editing format OpenAI's models are trained on. Profiles that want it register
//! [`definition`] with [`ApplyPatchTool`]; it is not one of the shared core tools.
//!
//! The work is split as the format is: `parse` turns the text into operations, `seek` finds a
//! hunk's lines in a file (exact first, then ever more forgiving passes) and `apply` computes a
//! file's new content.
//!
//! # Atomicity: verify, then write
//!
//! A patch applies whole or not at all. Every file it touches is read once through the
//! environment; then every operation is computed in memory, later ones seeing what earlier ones
//! in the same patch produced (so a file can be added and then updated). Only when every hunk of
//! every file has applied, and every path has been checked (updated and deleted files exist,
//! nothing is written over a directory or through a bad path), are the writes, deletes and moves
//! made, in patch order. So a parse error, a missing file or a hunk that does not match leaves
//! the environment exactly as it was, and the error says that no file was changed.
//!
//! The writes themselves can still fail midway (a full disk, permissions, a file changed
//! underneath, or a later section writing a file where an earlier one made a directory). They
//! are not rolled back, since a rollback can fail the same way; the error names the change that
//! failed and lists those that were made, so the model can read the files and go on from their
//! real state.

mod apply;
mod parse;
mod seek;
#[cfg(test)]
mod tests;

use std::fmt::Write;

use async_trait::async_trait;
use serde_json::Value;

use self::apply::{apply_chunks, ChunkError, Miss};
use self::parse::{parse, Chunk, Op};
use super::args::required_str;
use super::{schema, ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::env::{EnvError, ExecutionEnvironment};
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
        let ops = parse(required_str(args, "patch")?).map_err(ToolError)?;
        // Every file the patch touches is read once, up front, so that planning needs no I/O.
        let mut files = Files { cwd: ctx.env.working_directory(), entries: Vec::new() };
        for path in ops.iter().flat_map(Op::paths).flatten() {
            let key = key(&files.cwd, path);
            if !files.entries.iter().any(|(known, _)| *known == key) {
                files.entries.push((key, ctx.env.read_file(path, None, None).await));
            }
        }
        let plan = plan(&ops, &mut files)?;
        commit(&plan, ctx.env).await?;
        Ok(format!("Success. Updated the following files:\n{}", plan.summary.join("\n")).into())
    }
}

/// The files a patch touches as its operations so far have left them, by absolute path: their
/// content, or why there is none (`NotFound` once deleted, `IsADirectory`, ...).
struct Files {
    cwd: String,
    entries: Vec<(String, Result<String, EnvError>)>,
}

impl Files {
    fn read(&self, path: &str) -> Result<&str, EnvError> {
        let key = key(&self.cwd, path);
        match self.entries.iter().find(|(known, _)| *known == key) {
            Some((_, Ok(content))) => Ok(content),
            Some((_, Err(error))) => Err(error.clone()),
            None => Err(EnvError::NotFound(path.to_owned())),
        }
    }

    fn set(&mut self, path: &str, state: Result<String, EnvError>) {
        let key = key(&self.cwd, path);
        match self.entries.iter_mut().find(|(known, _)| *known == key) {
            Some((_, slot)) => *slot = state,
            None => self.entries.push((key, state)),
        }
    }

    /// Refuses paths that could not be written: a directory, a path through a file, outside the
    /// environment, ...
    fn check_writable(&self, path: &str) -> Result<(), ToolError> {
        match self.read(path) {
            Ok(_) | Err(EnvError::NotFound(_) | EnvError::BinaryFile(_)) => Ok(()),
            Err(error) => Err(cannot("write", path, error)),
        }
    }
}

enum Change {
    Write { path: String, content: String },
    Remove { path: String },
}

/// Every change of a patch, computed and checked, none made yet.
#[derive(Default)]
struct Plan {
    changes: Vec<Change>,
    /// `A path`, `M path`, `D path`, one per operation.
    summary: Vec<String>,
}

fn plan(ops: &[Op<'_>], files: &mut Files) -> Result<Plan, ToolError> {
    let mut plan = Plan::default();
    for op in ops {
        match op {
            Op::Add { path, lines } => {
                files.check_writable(path)?;
                let mut content = String::new();
                for line in lines {
                    content.push_str(line);
                    content.push('\n');
                }
                files.set(path, Ok(content.clone()));
                plan.changes.push(Change::Write { path: path.clone(), content });
                plan.summary.push(format!("A {path}"));
            }
            Op::Delete { path } => {
                match files.read(path) {
                    // Any file can be deleted, text or not.
                    Ok(_) | Err(EnvError::BinaryFile(_)) => {}
                    Err(error) => return Err(cannot("delete", path, error)),
                }
                files.set(path, Err(EnvError::NotFound(path.clone())));
                plan.changes.push(Change::Remove { path: path.clone() });
                plan.summary.push(format!("D {path}"));
            }
            Op::Update { path, move_to, chunks } => {
                let old = files.read(path).map_err(|error| cannot("update", path, error))?;
                let content = apply_chunks(old, chunks).map_err(|error| hunk_error(path, chunks, error))?;
                let target = move_to.as_ref().unwrap_or(path);
                files.check_writable(target)?;
                files.set(path, Err(EnvError::NotFound(path.clone())));
                files.set(target, Ok(content.clone()));
                plan.changes.push(Change::Write { path: target.clone(), content });
                if key(&files.cwd, target) != key(&files.cwd, path) {
                    plan.changes.push(Change::Remove { path: path.clone() });
                    plan.summary.push(format!("M {target} (moved from {path})"));
                } else {
                    plan.summary.push(format!("M {path}"));
                }
            }
        }
    }
    Ok(plan)
}

/// Makes the changes in order; on the first failure, says which were made.
async fn commit(plan: &Plan, env: &dyn ExecutionEnvironment) -> Result<(), ToolError> {
    let mut made = Vec::new();
    for change in &plan.changes {
        let (result, verb, done, path) = match change {
            Change::Write { path, content } => (env.write_file(path, content).await, "write", "wrote", path),
            Change::Remove { path } => (env.remove_file(path).await, "delete", "deleted", path),
        };
        if let Err(error) = result {
            let made = if made.is_empty() { "none".to_owned() } else { made.join(", ") };
            return Err(ToolError::new(format!(
                "apply_patch: every hunk applied, but could not {verb} {path}: {error}. The patch is only partly \
                 applied (changes made: {made}); read the affected files before you patch them again."
            )));
        }
        made.push(format!("{done} {path}"));
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

/// `path` absolute and lexically normal, so that `./a.rs` and `a.rs` are one file in [`Files`].
fn key(cwd: &str, path: &str) -> String {
    let base = if path.starts_with('/') { "" } else { cwd };
    let mut names: Vec<&str> = Vec::new();
    for name in base.split('/').chain(path.split('/')) {
        match name {
            "" | "." => {}
            ".." => {
                names.pop();
            }
            _ => names.push(name),
        }
    }
    names.join("/")
}
