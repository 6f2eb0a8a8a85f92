//! `write_file` (spec 3.3): replace a file's whole content, creating it and its directories.

use async_trait::async_trait;
use serde_json::Value;

use super::args::required_str;
use super::{schema, ToolContext, ToolError, ToolExecutor, ToolOutput};
use crate::llm::ToolDefinition;

pub fn definition() -> ToolDefinition {
    ToolDefinition {
        name: "write_file".into(),
        description: "Write a file with the given content, replacing everything in it. Creates the file and \
            any missing parent directories. To change part of an existing file, prefer edit_file."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "file_path": {"type": "string", "description": "Path of the file, absolute or relative to the working directory."},
                "content": {"type": "string", "description": "The complete new content of the file."}
            },
            "required": ["file_path", "content"],
            "additionalProperties": false
        }"#,
        ),
    }
}

pub struct WriteFileTool;

#[async_trait(?Send)]
impl ToolExecutor for WriteFileTool {
    async fn execute(&self, args: &Value, ctx: &ToolContext<'_>) -> Result<ToolOutput, ToolError> {
        let path = required_str(args, "file_path")?;
        let content = required_str(args, "content")?;
        // Any stat failure means "nothing there yet"; if the path is unusable, the write says why.
        let existed = match ctx.env.stat(path).await {
            Ok(info) if info.is_dir => {
                return Err(ToolError::new(format!("{path} is a directory. Give the path of a file inside it instead.")))
            }
            Ok(_) => true,
            Err(_) => false,
        };
        ctx.env.write_file(path, content).await?;
        let what = if existed { "overwrote the existing file" } else { "new file" };
        Ok(format!("Wrote {} bytes to {path} ({what}).", content.len()).into())
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use futures::executor::block_on;
    use serde_json::json;

    use super::*;
    use crate::env::ExecutionEnvironment;
    use crate::tools::testing::{memory_env, read, run_err, run_ok, write};

    #[test]
    fn creates_a_file_and_its_directories() {
        let env = memory_env();
        let out = run_ok(&WriteFileTool, &env, json!({"file_path": "notes/day/1.md", "content": "café\n"}));
        assert_eq!(out, "Wrote 6 bytes to notes/day/1.md (new file).");
        assert_eq!(read(&env, "/workspace/notes/day/1.md"), "café\n");
        assert!(block_on(env.stat("/workspace/notes/day")).expect("parent exists").is_dir);
    }

    #[test]
    fn overwrites_an_existing_file_whole() {
        let env = memory_env();
        write(&env, "a.txt", "a long old content\n");
        let out = run_ok(&WriteFileTool, &env, json!({"file_path": "a.txt", "content": "new"}));
        assert_eq!(out, "Wrote 3 bytes to a.txt (overwrote the existing file).");
        assert_eq!(read(&env, "a.txt"), "new");
    }

    #[test]
    fn writes_an_empty_file() {
        let env = memory_env();
        assert_eq!(run_ok(&WriteFileTool, &env, json!({"file_path": "e", "content": ""})), "Wrote 0 bytes to e (new file).");
        assert_eq!(read(&env, "e"), "");
    }

    #[test]
    fn refuses_a_directory() {
        let env = memory_env();
        write(&env, "src/a.rs", "x");
        assert_eq!(
            run_err(&WriteFileTool, &env, json!({"file_path": "src", "content": "y"})),
            "src is a directory. Give the path of a file inside it instead."
        );
        assert_eq!(read(&env, "src/a.rs"), "x");
    }

    #[test]
    fn missing_content_is_named() {
        let env = memory_env();
        assert_eq!(
            run_err(&WriteFileTool, &env, json!({"file_path": "a.txt"})),
            "Missing required argument \"content\" (a string)."
        );
        assert!(!block_on(env.file_exists("a.txt")));
    }
}
