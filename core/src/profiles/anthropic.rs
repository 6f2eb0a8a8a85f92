//! `AnthropicProfile` (spec 3.5): Claude models with Claude Code's conventions: edit_file with
//! old_string/new_string, grep with output modes (`glob`, `-i`, `head_limit`), a shell whose
//! `timeout` defaults to 120 s, CLAUDE.md beside AGENTS.md, and beta headers as provider options.

use std::rc::Rc;

use serde_json::json;

use super::prompt::Layers;
use super::{Family, Parts};
use crate::llm::ToolDefinition;
use crate::tools::{
    bind, edit_file, glob, read_file, schema, write_file, ArgsAdapter, EditFileTool, GlobTool, GrepTool, ReadFileTool, ShellTool,
    WriteFileTool,
};

const FAMILY: Family = Family {
    id: "anthropic",
    layers: Layers { base: include_str!("base/anthropic.md"), doc_files: &["AGENTS.md", "CLAUDE.md"] },
    // Every Claude since 3.7 thinks, and none has a smaller window.
    unknown_models: (200_000, true),
    // Claude Code's shell default (spec 3.5).
    command_timeout_ms: Some(120_000),
};

/// The beta (`context-1m-2025-08-07`) that gives Sonnet 4 and 4.5 a million tokens of context.
const CONTEXT_1M: &str = "context-1m";

pub struct AnthropicProfile(Parts);

impl AnthropicProfile {
    pub fn new(model: impl Into<String>) -> Self {
        let shell = ArgsAdapter { inner: Rc::new(ShellTool), renames: &[("timeout", "timeout_ms")], defaults: &[] };
        let grep = ArgsAdapter {
            inner: Rc::new(GrepTool),
            renames: &[("glob", "glob_filter"), ("-i", "case_insensitive"), ("head_limit", "max_results")],
            defaults: &[("output_mode", "files_with_matches")],
        };
        let registry = [
            bind(read_file::definition(), Rc::new(ReadFileTool)),
            bind(write_file::definition(), Rc::new(WriteFileTool)),
            bind(edit_file::definition(), Rc::new(EditFileTool)),
            bind(bash(), Rc::new(shell)),
            bind(grep_modes(), Rc::new(grep)),
            bind(glob::definition(), Rc::new(GlobTool)),
        ]
        .into_iter()
        .collect();
        Self(Parts::new(&FAMILY, model.into(), registry))
    }

    /// Sent as `provider_options.anthropic.beta_headers` (the `anthropic-beta` header): extended
    /// thinking variants, the 1M context window (which this profile then reports), and so on.
    /// None by default; each call replaces the headers of the one before.
    pub fn with_beta_headers(mut self, headers: &[&str]) -> Self {
        self.0.provider_options = (!headers.is_empty()).then(|| json!({"anthropic": {"beta_headers": headers}}));
        self.0.context_window_size = match headers.iter().any(|header| header.starts_with(CONTEXT_1M)) {
            true => 1_000_000,
            false => self.0.info.as_ref().map_or(FAMILY.unknown_models.0, |info| info.context_window as usize),
        };
        self
    }
}

provider_profile!(AnthropicProfile);

/// Claude Code's Bash: `timeout` in milliseconds, a description for the user.
fn bash() -> ToolDefinition {
    ToolDefinition {
        name: "shell".into(),
        description: "Run a bash command in the working directory and return its stdout, stderr, exit code and \
            duration. The command is stopped after 120000 ms (2 minutes) unless you set timeout, up to 600000 ms. \
            Use read_file, grep and glob rather than cat, grep or find to read and search files. Quote paths that \
            contain spaces, and chain dependent commands with &&."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "command": {"type": "string", "description": "The command to run."},
                "timeout": {"type": "integer", "minimum": 1, "description": "Timeout in milliseconds (default 120000, at most 600000)."},
                "description": {"type": "string", "description": "What the command does in 5 to 10 words, shown to the user."}
            },
            "required": ["command"],
            "additionalProperties": false
        }"#,
        ),
    }
}

/// Claude Code's Grep: output modes, `glob`, `-i`, `head_limit`.
fn grep_modes() -> ToolDefinition {
    ToolDefinition {
        name: "grep".into(),
        description: "Search file contents with a regular expression. output_mode `files_with_matches` (the \
            default) lists the files that match, `content` shows matching lines as `path:line:text`, `count` \
            gives the number of matching lines per file. Narrow the files with glob (e.g. `*.ts`, `src/**/*.rs`). \
            Use this rather than grep or rg in the shell."
            .into(),
        parameters: schema(
            r#"{
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "The regular expression to search for."},
                "path": {"type": "string", "description": "File or directory to search (default: the working directory)."},
                "glob": {"type": "string", "description": "Only search files matching this glob, e.g. `*.js` or `src/**/*.tsx`."},
                "output_mode": {"type": "string", "enum": ["content", "files_with_matches", "count"], "description": "What to return (default files_with_matches)."},
                "-i": {"type": "boolean", "description": "Case-insensitive search."},
                "head_limit": {"type": "integer", "minimum": 1, "description": "Return at most this many lines, files or counts (default 100)."}
            },
            "required": ["pattern"],
            "additionalProperties": false
        }"#,
        ),
    }
}
