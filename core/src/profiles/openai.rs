//! `OpenAiProfile` (spec 3.4): GPT-5 and later OpenAI models with codex-rs's conventions:
//! apply_patch for edits (write_file stays for new files), its argument names (`workdir`, grep_files' `include` and `limit`), grep that lists files, a 10 s
//! shell default, `.codex/instructions.md` beside AGENTS.md. Reasoning effort needs no provider
//! options: the Responses codec maps the request's `reasoning_effort`.

use std::rc::Rc;

use serde_json::{json, Value};

use super::prompt::Layers;
use super::{Family, Parts};
use crate::llm::ToolDefinition;
use crate::tools::{
    apply_patch, bind, glob, read_file, schema, write_file, ApplyPatchTool, ArgsAdapter, GlobTool, GrepTool, ReadFileTool,
    ShellTool, WriteFileTool,
};

const FAMILY: Family = Family {
    id: "openai",
    layers: Layers { base: include_str!("base/openai.md"), doc_files: &["AGENTS.md", ".codex/instructions.md"] },
    // Newer models reason; the smallest current window makes the context warning come early
    // rather than too late.
    unknown_models: (128_000, true),
    command_timeout_ms: Some(10_000),
};

pub struct OpenAiProfile(Parts);

impl OpenAiProfile {
    pub fn new(model: impl Into<String>) -> Self {
        let grep = ArgsAdapter {
            inner: Rc::new(GrepTool),
            renames: &[("include", "glob_filter"), ("limit", "max_results")],
            defaults: &[("output_mode", "files_with_matches")],
        };
        let registry = [
            bind(read_file::definition(), Rc::new(ReadFileTool)),
            bind(apply_patch::definition(), Rc::new(ApplyPatchTool)),
            bind(write_file::definition(), Rc::new(WriteFileTool)),
            bind(shell(), Rc::new(ShellTool)),
            bind(grep_files(), Rc::new(grep)),
            bind(glob::definition(), Rc::new(GlobTool)),
        ]
        .into_iter()
        .collect();
        Self(Parts::new(&FAMILY, model.into(), registry))
    }

    /// Sent as `provider_options.openai`, which the Responses codec merges into the request body:
    /// `{"chain": true}`, say, to send each round only what is new (the server keeps the
    /// conversation), or `{"service_tier": "flex"}`. None by default.
    pub fn with_provider_options(mut self, openai: Value) -> Self {
        self.0.provider_options = Some(json!({ "openai": openai }));
        self
    }
}

provider_profile!(OpenAiProfile);

/// codex's shell: a command line, `workdir` instead of `cd`, `timeout_ms`.
fn shell() -> ToolDefinition {
    ToolDefinition {
        name: "shell".into(),
        description: "Runs a shell command and returns its stdout, stderr, exit code and duration. Set workdir \
            rather than starting the command with `cd`. Commands are stopped after 10 seconds unless you set \
            timeout_ms; give builds and test runs more."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command line to run, e.g. `cargo test --lib`."},
                "workdir": {"type": "string", "description": "The directory to run the command in (default: the working directory)."},
                "timeout_ms": {"type": "integer", "minimum": 1, "description": "The timeout for the command in milliseconds (default 10000)."}
            },
            "required": ["command"],
            "additionalProperties": false
        }"#,
        ),
    }
}

/// codex's grep_files: the files that match, `include` and `limit`.
fn grep_files() -> ToolDefinition {
    ToolDefinition {
        name: "grep".into(),
        description: "Finds files whose contents match a regular expression and returns their paths, one per \
            line. Read a file to see the matching lines in context."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Regular expression to search for."},
                "include": {"type": "string", "description": "Optional glob limiting the files searched, e.g. `*.rs` or `src/**/*.ts`."},
                "path": {"type": "string", "description": "Directory or file to search (default: the working directory)."},
                "limit": {"type": "integer", "minimum": 1, "description": "Maximum number of file paths to return (default 100)."}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }"#,
        ),
    }
}
