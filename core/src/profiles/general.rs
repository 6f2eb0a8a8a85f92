//! `GeneralProfile`: any model behind an OpenAI-compatible Chat Completions server (llama.cpp,
//! vLLM, Ollama, LM Studio, hosted gateways). The shared core tools described in as few words as
//! stay clear, a short prompt, no subagent tools unless asked for, AGENTS.md only, and the
//! session's command timeout: on a CPU, every token of the first request is prompt evaluation the
//! user waits for (about 50 tokens a second for a 1.5B model on two cores).

use std::rc::Rc;

use super::prompt::Layers;
use super::{Family, Parts};
use crate::llm::{openai_chat, ToolDefinition};
use crate::tools::{
    bind, schema, EditFileTool, GlobTool, GrepTool, ReadFileTool, ShellTool, ToolExecutor, ToolRegistry, WriteFileTool,
};

const FAMILY: Family = Family {
    id: openai_chat::DEFAULT_PROVIDER,
    layers: Layers { base: include_str!("base/general.md"), doc_files: &["AGENTS.md"] },
    // A common window for local models; `with_context_window_size` sets the real one, and the
    // builders below what else the model can do.
    unknown_models: (32_768, false),
    // The session's default.
    command_timeout_ms: None,
};

pub struct GeneralProfile(Parts);

impl GeneralProfile {
    /// Routed to the `openai-compatible` provider unless [`Self::with_id`] names another.
    pub fn new(model: impl Into<String>) -> Self {
        let mut parts = Parts::new(&FAMILY, model.into(), lean_core_tools());
        parts.subagents = false;
        parts.repairs_tool_calls = true;
        parts.read_before_write = true;
        parts.reads_named_files = true;
        Self(parts)
    }

    /// Offers the subagent tools (spec 7), which the lean first request leaves out.
    pub fn with_subagents(mut self, on: bool) -> Self {
        self.0.subagents = on;
        self
    }

    /// The provider the session's requests name, for a client with several compatible servers.
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.0.id = id.into();
        self
    }

    pub fn with_context_window_size(mut self, tokens: usize) -> Self {
        self.0.context_window_size = tokens;
        self
    }

    /// For models that think (Qwen3, DeepSeek-R1, gpt-oss, ...).
    pub fn with_reasoning(mut self, on: bool) -> Self {
        self.0.reasoning = on;
        self
    }
}

provider_profile!(GeneralProfile);

/// The six core tools under their usual names, in short words, with the arguments small models
/// use: `read_file` without `limit`, `grep` with only a pattern and a path. The executors read the
/// same names as ever.
fn lean_core_tools() -> ToolRegistry {
    let tools: [(&str, &str, &str, Rc<dyn ToolExecutor>); 6] = [
        (
            "read_file",
            "Read a text file. Lines come numbered `N | text`; the numbers are not part of the file.",
            r#"{"type": "object", "properties": {
                "file_path": {"type": "string", "description": "Path of the file."},
                "offset": {"type": "integer", "description": "First line to read (1-based)."}
            }, "required": ["file_path"], "additionalProperties": false}"#,
            Rc::new(ReadFileTool),
        ),
        (
            "write_file",
            "Create a file, or replace everything in it, with content. With append, add content at its end.",
            r#"{"type": "object", "properties": {
                "file_path": {"type": "string", "description": "Path of the file."},
                "content": {"type": "string", "description": "The whole new content, or the text to add."},
                "append": {"type": "boolean", "description": "Add content at the end of the file."}
            }, "required": ["file_path", "content"], "additionalProperties": false}"#,
            Rc::new(WriteFileTool),
        ),
        (
            "edit_file",
            "Replace old_string (exact text, found once) with new_string. To add code at the end, use write_file with append.",
            r#"{"type": "object", "properties": {
                "file_path": {"type": "string", "description": "Path of the file."},
                "old_string": {"type": "string", "description": "Exact text copied from the file."},
                "new_string": {"type": "string", "description": "The text to put there."},
                "replace_all": {"type": "boolean", "description": "Replace every occurrence."}
            }, "required": ["file_path", "old_string", "new_string"], "additionalProperties": false}"#,
            Rc::new(EditFileTool),
        ),
        (
            "shell",
            "Run a shell command in the working directory. Returns its output and exit code.",
            r#"{"type": "object", "properties": {
                "command": {"type": "string", "description": "The command line."},
                "timeout_ms": {"type": "integer", "description": "Stop it after this many milliseconds."}
            }, "required": ["command"], "additionalProperties": false}"#,
            Rc::new(ShellTool),
        ),
        (
            "grep",
            "Search file contents for a regular expression. Returns matching lines as `path:line:text`.",
            r#"{"type": "object", "properties": {
                "pattern": {"type": "string", "description": "The regular expression."},
                "path": {"type": "string", "description": "File or directory to search (default: all)."}
            }, "required": ["pattern"], "additionalProperties": false}"#,
            Rc::new(GrepTool),
        ),
        (
            "glob",
            "List the files whose path matches a glob pattern such as `**/*.py`.",
            r#"{"type": "object", "properties": {
                "pattern": {"type": "string", "description": "The glob pattern."},
                "path": {"type": "string", "description": "Directory to search in (default: the working one)."}
            }, "required": ["pattern"], "additionalProperties": false}"#,
            Rc::new(GlobTool),
        ),
    ];
    let definition = |name: &str, description: &str, parameters: &str| ToolDefinition {
        name: name.into(),
        description: description.into(),
        parameters: schema(parameters),
    };
    tools
        .into_iter()
        .map(|(name, description, parameters, executor)| bind(definition(name, description, parameters), executor))
        .collect()
}
