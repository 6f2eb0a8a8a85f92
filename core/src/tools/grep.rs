//! `grep` (spec 3.3): search file contents with a regular expression through the environment.
//!
//! The executor also reads `output_mode`: `content` (matching lines, the shared tool's output),
//! `files_with_matches` or `count`, the modes of Claude Code's Grep; codex's grep_files is
//! `files_with_matches`. The shared schema leaves it out; the Anthropic and OpenAI profiles offer
//! their own schemas over this executor.

use async_trait::async_trait;
use serde_json::Value;

use super::args::{optional_bool, optional_str, optional_usize, required_str};
use super::{schema, ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::env::GrepOptions;
use crate::llm::ToolDefinition;

const DEFAULT_MAX_RESULTS: usize = 100;
/// Matching lines read to list files or count matches: enough for any real search, bounded so
/// that a pattern like `.` cannot pull a whole repository into memory.
const SCAN_LIMIT: usize = 20_000;

pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: "grep".into(),
        description: "Search the contents of files for a regular expression. Returns matching lines as \
            `path:line:text`. Searches the working directory unless path names a directory or file; \
            glob_filter narrows the files searched (e.g. `*.rs`)."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Regular expression to search for."},
                "path": {"type": "string", "description": "File or directory to search (default: the working directory)."},
                "glob_filter": {"type": "string", "description": "Only search files whose path matches this glob, e.g. `*.py` or `src/**/*.ts`."},
                "case_insensitive": {"type": "boolean", "description": "Ignore case (default false)."},
                "max_results": {"type": "integer", "minimum": 1, "description": "Most matching lines to return (default 100)."}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }"#,
        ),
    }
}

pub struct GrepTool;

#[derive(Clone, Copy, PartialEq)]
enum OutputMode {
    Content,
    Files,
    Count,
}

#[async_trait(?Send)]
impl ToolExecutor for GrepTool {
    async fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let pattern = required_str(args, "pattern")?;
        let path = optional_str(args, "path")?.map_or_else(|| ctx.env.working_directory(), str::to_owned);
        let max_results = optional_usize(args, "max_results")?.unwrap_or(DEFAULT_MAX_RESULTS).max(1);
        let mode = match optional_str(args, "output_mode")? {
            None | Some("content") => OutputMode::Content,
            Some("files_with_matches") => OutputMode::Files,
            Some("count") => OutputMode::Count,
            Some(other) => {
                return Err(ToolError::new(format!("Unknown output_mode \"{other}\". Use content, files_with_matches or count.")))
            }
        };
        let scan = if mode == OutputMode::Content { max_results } else { SCAN_LIMIT };
        let options = GrepOptions {
            glob_filter: optional_str(args, "glob_filter")?.map(str::to_owned),
            case_insensitive: optional_bool(args, "case_insensitive")?.unwrap_or(false),
            max_results: scan,
        };
        let found = ctx.env.grep(pattern, &path, &options).await?;
        let found = found.trim_end_matches('\n');
        if found.is_empty() {
            return Ok("No matches found.".into());
        }
        // The environment stops at the limit, so reaching it means there may be more: say so
        // rather than let the model take these for all the matches.
        let lines = found.lines().count();
        if mode == OutputMode::Content {
            let mut out = found.to_owned();
            if lines >= max_results {
                out.push_str(&format!(
                    "\n[Reached the limit of {max_results} lines; there may be more matches. Narrow the pattern \
                     or path, or raise the limit.]"
                ));
            }
            return Ok(out.into());
        }
        let mut out = per_file(found, mode == OutputMode::Count, max_results);
        if lines >= scan {
            out.push_str(&format!("\n[Stopped after {scan} matching lines; files and counts may be incomplete.]"));
        }
        Ok(out.into())
    }
}

/// One line per file with matches, in the order grep found them: its path, or `path:count`.
fn per_file(found: &str, counts: bool, limit: usize) -> String {
    let mut files: Vec<(&str, usize)> = Vec::new();
    for path in found.lines().filter_map(match_path) {
        // Grep reports file by file, so the file is nearly always the last one: searching from
        // the end is linear in practice, and lighter in the browser bundle than a map.
        match files.iter_mut().rev().find(|(seen, _)| *seen == path) {
            Some((_, n)) => *n += 1,
            None => files.push((path, 1)),
        }
    }
    let shown = files.len().min(limit);
    let mut out: Vec<String> =
        files[..shown].iter().map(|&(path, n)| if counts { format!("{path}:{n}") } else { path.to_owned() }).collect();
    if shown < files.len() {
        out.push(format!("[Showing {shown} of {} files. Narrow the pattern, path or glob, or raise the limit.]", files.len()));
    }
    out.join("\n")
}

/// The path of a `path:line:text` match. A path may hold colons (`C:\` on Windows), so it ends
/// at the first `:digits:`.
fn match_path(line: &str) -> Option<&str> {
    let mut from = 0;
    while let Some(found) = line[from..].find(':') {
        let at = from + found;
        let rest = &line.as_bytes()[at + 1..];
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if digits > 0 && rest.get(digits) == Some(&b':') {
            return Some(&line[..at]);
        }
        from = at + 1;
    }
    None
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn paths_end_at_the_first_line_number() {
        assert_eq!(match_path("C:\\src\\a.rs:12:let x = 1:2:3;"), Some("C:\\src\\a.rs"));
        assert_eq!(match_path("a.rs:x:1"), None);
    }
}
