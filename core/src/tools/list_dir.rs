//! `list_dir` (spec 3.6, as gemini-cli and codex have it): a directory's entries, a few levels deep.

use async_trait::async_trait;
use serde_json::Value;

use super::args::{optional_str, optional_usize};
use super::{schema, ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::llm::ToolDefinition;

const DEFAULT_DEPTH: usize = 2;
/// A listing is for orientation; past this many entries a narrower listing serves better.
const MAX_ENTRIES: usize = 500;

pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: "list_dir".into(),
        description: "List the files and subdirectories of a directory, `depth` levels deep (default 2), \
            sorted by name. Directories end with `/`; files show their size in bytes. To find files by name \
            anywhere below a directory, use glob."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory to list, absolute or relative to the working directory (default: the working directory)."},
                "depth": {"type": "integer", "minimum": 1, "description": "Levels to descend: 1 lists only the direct entries (default 2)."}
            },
            "additionalProperties": false
        }"#,
        ),
    }
}

pub struct ListDirTool;

#[async_trait(?Send)]
impl ToolExecutor for ListDirTool {
    async fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let path = optional_str(args, "path")?.map_or_else(|| ctx.env.working_directory(), str::to_owned);
        let depth = optional_usize(args, "depth")?.unwrap_or(DEFAULT_DEPTH).max(1);
        let entries = ctx.env.list_directory(&path, depth).await?;
        if entries.is_empty() {
            return Ok(format!("{path} is empty.").into());
        }
        let mut lines: Vec<String> = entries
            .iter()
            .take(MAX_ENTRIES)
            .map(|entry| match (entry.is_dir, entry.size) {
                (true, _) => format!("{}/", entry.name),
                (false, Some(size)) => format!("{} ({size} bytes)", entry.name),
                (false, None) => entry.name.clone(),
            })
            .collect();
        if entries.len() > MAX_ENTRIES {
            lines.push(format!(
                "[Showing {MAX_ENTRIES} of {} entries. List a subdirectory, or use a smaller depth.]",
                entries.len()
            ));
        }
        Ok(lines.join("\n").into())
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;
    use crate::tools::testing::{memory_env, run_err, run_ok, write};

    #[test]
    fn lists_entries_to_the_given_depth() {
        let env = memory_env();
        write(&env, "README.md", "hello\n");
        write(&env, "src/main.rs", "fn main() {}\n");
        write(&env, "src/deep/x.rs", "");
        assert_eq!(run_ok(&ListDirTool, &env, json!({"depth": 1})), "README.md (6 bytes)\nsrc/");
        assert_eq!(run_ok(&ListDirTool, &env, json!({})), "README.md (6 bytes)\nsrc/\nsrc/deep/\nsrc/main.rs (13 bytes)");
        assert_eq!(run_ok(&ListDirTool, &env, json!({"path": "src/deep"})), "x.rs (0 bytes)");
    }

    #[test]
    fn says_when_a_directory_is_empty_or_not_a_directory() {
        let env = memory_env();
        env.mkdir_p("empty").expect("created");
        write(&env, "f.txt", "");
        assert_eq!(run_ok(&ListDirTool, &env, json!({"path": "empty"})), "empty is empty.");
        assert_eq!(run_err(&ListDirTool, &env, json!({"path": "f.txt"})), "/workspace/f.txt is not a directory");
    }

    #[test]
    fn long_listings_are_cut_with_a_note() {
        let env = memory_env();
        for n in 0..=MAX_ENTRIES {
            write(&env, &format!("d/{n:04}.txt"), "");
        }
        let out = run_ok(&ListDirTool, &env, json!({"path": "d"}));
        assert_eq!(out.lines().count(), MAX_ENTRIES + 1);
        assert!(out.ends_with("[Showing 500 of 501 entries. List a subdirectory, or use a smaller depth.]"), "{out}");
    }
}
