//! `GeneralProfile`: any model behind an OpenAI-compatible Chat Completions server (llama.cpp,
//! vLLM, Ollama, LM Studio, hosted gateways). The shared core tools with edit_file, a short prompt
//! that small local models can afford, AGENTS.md only, and the session's command timeout.

use super::prompt::Layers;
use super::{Family, Parts};
use crate::llm::openai_chat;
use crate::tools::core_tools;

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
        Self(Parts::new(&FAMILY, model.into(), core_tools().into_iter().collect()))
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
