//! `grep` (spec 3.3): search file contents with a regular expression through the environment.

use async_trait::async_trait;
use serde_json::{json, Value};

use super::args::{optional_bool, optional_str, optional_usize, required_str};
use super::{ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::env::GrepOptions;
use crate::llm::ToolDefinition;

const DEFAULT_MAX_RESULTS: usize = 100;

pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: "grep".into(),
        description: "Search the contents of files for a regular expression. Returns matching lines as \
            `path:line:text`. Searches the working directory unless path names a directory or file; \
            glob_filter narrows the files searched (e.g. `*.rs`)."
            .into(),
        parameters: json!({
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
        }),
    }
}

pub struct GrepTool;

#[async_trait(?Send)]
impl ToolExecutor for GrepTool {
    async fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let pattern = required_str(args, "pattern")?;
        let path = optional_str(args, "path")?.map_or_else(|| ctx.env.working_directory(), str::to_owned);
        let max_results = optional_usize(args, "max_results")?.unwrap_or(DEFAULT_MAX_RESULTS).max(1);
        let options = GrepOptions {
            glob_filter: optional_str(args, "glob_filter")?.map(str::to_owned),
            case_insensitive: optional_bool(args, "case_insensitive")?.unwrap_or(false),
            max_results,
        };
        let found = ctx.env.grep(pattern, &path, &options).await?;
        let found = found.trim_end_matches('\n');
        if found.is_empty() {
            return Ok("No matches found.".into());
        }
        let mut out = found.to_owned();
        // The environment stops at the limit, so reaching it means there may be more: say so
        // rather than let the model take these for all the matches.
        if found.lines().count() >= max_results {
            out.push_str(&format!(
                "\n[Reached max_results={max_results}; there may be more matches. Narrow the pattern or path, \
                 or raise max_results.]"
            ));
        }
        Ok(out.into())
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use serde_json::json;

    use super::*;
    use crate::env::MemoryEnvironment;
    use crate::tools::testing::{memory_env, run_err, run_ok, write};

    fn project() -> MemoryEnvironment {
        let env = memory_env();
        write(&env, "src/main.rs", "fn main() {\n    hello();\n}\n");
        write(&env, "src/lib.rs", "pub fn hello() {}\npub fn Hello() {}\n");
        write(&env, "README.md", "say hello\n");
        env
    }

    #[test]
    fn lists_matching_lines_with_paths_and_numbers() {
        let out = run_ok(&GrepTool, &project(), json!({"pattern": "hello\\("}));
        assert_eq!(out, "src/lib.rs:1:pub fn hello() {}\nsrc/main.rs:2:    hello();");
    }

    #[test]
    fn filters_by_glob_path_and_case() {
        let env = project();
        let rust = json!({"pattern": "hello", "glob_filter": "*.md"});
        assert_eq!(run_ok(&GrepTool, &env, rust), "README.md:1:say hello");
        let in_file = json!({"pattern": "fn hello", "path": "src/lib.rs", "case_insensitive": true});
        assert_eq!(run_ok(&GrepTool, &env, in_file), "src/lib.rs:1:pub fn hello() {}\nsrc/lib.rs:2:pub fn Hello() {}");
    }

    #[test]
    fn says_when_nothing_matched() {
        assert_eq!(run_ok(&GrepTool, &project(), json!({"pattern": "absent"})), "No matches found.");
    }

    #[test]
    fn says_when_the_limit_was_reached() {
        let out = run_ok(&GrepTool, &project(), json!({"pattern": "(?i)hello", "max_results": 2}));
        assert_eq!(
            out,
            "README.md:1:say hello\nsrc/lib.rs:1:pub fn hello() {}\n[Reached max_results=2; there may be more \
             matches. Narrow the pattern or path, or raise max_results.]"
        );
    }

    #[test]
    fn a_bad_regex_is_an_error() {
        let err = run_err(&GrepTool, &project(), json!({"pattern": "(unclosed"}));
        assert!(err.starts_with("invalid pattern (unclosed: "), "{err}");
    }
}
