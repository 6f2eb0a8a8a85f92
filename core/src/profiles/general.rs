//! `GeneralProfile`: any model behind an OpenAI-compatible Chat Completions server (llama.cpp,
//! vLLM, Ollama, LM Studio, hosted gateways). The shared core tools with edit_file, a short prompt
//! that small local models can afford, AGENTS.md only, and the session's command timeout.

use super::prompt::Layers;
use super::Parts;
use crate::llm::openai_chat;
use crate::tools::core_tools;

const LAYERS: Layers = Layers { base: include_str!("base/general.md"), doc_files: &["AGENTS.md"] };

/// Common for local models; [`GeneralProfile::with_context_window_size`] sets the real one.
const CONTEXT_WINDOW: usize = 32_768;

pub struct GeneralProfile(Parts);

impl GeneralProfile {
    /// Routed to the `openai-compatible` provider unless [`Self::with_id`] names another.
    pub fn new(model: impl Into<String>) -> Self {
        Self(Parts {
            id: openai_chat::DEFAULT_PROVIDER.into(),
            model: model.into(),
            registry: core_tools().into_iter().collect(),
            layers: &LAYERS,
            context_window_size: CONTEXT_WINDOW,
            reasoning: false,
            command_timeout_ms: None,
            provider_options: None,
        })
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
