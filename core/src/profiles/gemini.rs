//! `GeminiProfile` (spec 3.6): Gemini models with gemini-cli's tool set: the shared tools plus
//! `read_many_files` and `list_dir`, a 10 s shell default, GEMINI.md beside AGENTS.md.
//! Web search and fetch are left to the host (custom tools, or grounding through provider
//! options): the core does no network I/O of its own.

use std::rc::Rc;

use serde_json::{json, Value};

use super::prompt::Layers;
use super::{Family, Parts};
use crate::tools::{
    bind, edit_file, glob, grep, list_dir, read_file, read_many_files, shell, write_file, EditFileTool, GlobTool, GrepTool,
    ListDirTool, ReadFileTool, ReadManyFilesTool, ShellTool, WriteFileTool,
};

const FAMILY: Family = Family {
    id: "gemini",
    layers: Layers { base: include_str!("base/gemini.md"), doc_files: &["AGENTS.md", "GEMINI.md"] },
    // Every Gemini since 2.5 thinks in a window of a million tokens.
    unknown_models: (1_048_576, true),
    command_timeout_ms: Some(10_000),
};

pub struct GeminiProfile(Parts);

impl GeminiProfile {
    pub fn new(model: impl Into<String>) -> Self {
        let registry = [
            bind(read_file::definition(), Rc::new(ReadFileTool)),
            bind(read_many_files::definition(), Rc::new(ReadManyFilesTool)),
            bind(write_file::definition(), Rc::new(WriteFileTool)),
            bind(edit_file::definition(), Rc::new(EditFileTool)),
            bind(shell::definition(), Rc::new(ShellTool)),
            bind(grep::definition(), Rc::new(GrepTool)),
            bind(glob::definition(), Rc::new(GlobTool)),
            bind(list_dir::definition(), Rc::new(ListDirTool)),
        ]
        .into_iter()
        .collect();
        Self(Parts::new(&FAMILY, model.into(), registry))
    }

    /// Sent as `provider_options.gemini`, whose fields the Gemini codec deep-merges into the
    /// generateContent body: `safetySettings`, say, or a `googleSearch` grounding tool. None by
    /// default.
    pub fn with_provider_options(mut self, gemini: Value) -> Self {
        self.0.provider_options = Some(json!({ "gemini": gemini }));
        self
    }
}

provider_profile!(GeminiProfile);
