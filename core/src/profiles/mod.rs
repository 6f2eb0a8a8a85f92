//! The provider-aligned profiles of spec 3.4 to 3.6, and a general one for OpenAI-compatible
//! servers and local models.
//!
//! Each profile offers the tools its model family was trained on, under that family's names and
//! argument conventions, and builds its system prompt in the layers of spec 6.1 (`prompt.rs`): its
//! own base instructions (`base/*.md`), the environment, a git snapshot, the project instruction
//! files for its family, and the user's instructions last. Custom tools go on top through
//! `tool_registry_mut` (or `Session::register_tool`); a tool of the same name replaces the
//! profile's (spec 3.7).
//!
//! ```
//! use openagent_core::profiles::AnthropicProfile;
//! use openagent_core::ProviderProfile;
//!
//! let profile = AnthropicProfile::new("claude-sonnet-4-5").with_beta_headers(&["context-1m-2025-08-07"]);
//! assert_eq!(profile.tool_registry().names(), ["read_file", "write_file", "edit_file", "shell", "grep", "glob"]);
//! assert_eq!(profile.default_command_timeout_ms(), Some(120_000));
//! assert_eq!(profile.context_window_size(), 1_000_000);
//! ```

use serde_json::Value;

use crate::llm::catalog::{Catalog, ModelInfo};
use crate::tools::ToolRegistry;

/// A model family's constants; each profile file has one.
struct Family {
    /// The provider name requests carry, for routing (`Request::provider`).
    id: &'static str,
    layers: prompt::Layers,
    /// `(context window in tokens, reasons)` for a model the catalog does not know.
    unknown_models: (usize, bool),
    command_timeout_ms: Option<u64>,
}

/// What every profile here is made of: its family, and what a constructor or builder set.
struct Parts {
    id: String,
    model: String,
    registry: ToolRegistry,
    family: &'static Family,
    /// The catalog's entry for the model, if it has one.
    info: Option<ModelInfo>,
    context_window_size: usize,
    reasoning: bool,
    provider_options: Option<Value>,
    /// Whether the session adds the subagent tools (spec 7.2).
    subagents: bool,
    /// Whether the session reads garbled tool calls as meant (`session/repair.rs`).
    repairs_tool_calls: bool,
    /// Whether edits need a read of the file first (`tools/seen.rs`).
    read_before_write: bool,
    /// Whether the session reads the files a task names (`session/named_files.rs`).
    reads_named_files: bool,
}

impl Parts {
    fn new(family: &'static Family, model: String, registry: ToolRegistry) -> Self {
        let info = Catalog::builtin().get(&model).cloned();
        let (context_window_size, reasoning) = family.unknown_models;
        let mut parts = Self {
            id: family.id.into(),
            model,
            registry,
            family,
            info: None,
            context_window_size,
            reasoning,
            provider_options: None,
            subagents: true,
            repairs_tool_calls: false,
            read_before_write: false,
            reads_named_files: false,
        };
        parts.set_info(info);
        parts
    }

    /// Takes the window and capabilities from `info`, or the family's guesses without one.
    fn set_info(&mut self, info: Option<ModelInfo>) {
        (self.context_window_size, self.reasoning) = match &info {
            Some(info) => (usize::try_from(info.context_window).unwrap_or(usize::MAX), info.supports_reasoning),
            None => self.family.unknown_models,
        };
        self.info = info;
    }
}

/// Implements `ProviderProfile` for a newtype over [`Parts`], and gives it `tool_registry_mut`.
/// A macro rather than a generic impl: four small monomorphic impls, nothing more in the bundle.
macro_rules! provider_profile {
    ($profile:ident) => {
        impl $profile {
            /// The profile's tools, to register custom tools on top: a tool of the same name
            /// replaces the profile's (spec 3.7).
            pub fn tool_registry_mut(&mut self) -> &mut crate::tools::ToolRegistry {
                &mut self.0.registry
            }

            /// The model's entry from `catalog` (one with a host's overrides) rather than the
            /// built-in one: its window, capabilities and prices. It resets what the builders
            /// set from the catalog (a window, reasoning), so it comes before them.
            pub fn with_catalog(mut self, catalog: &crate::llm::catalog::Catalog) -> Self {
                self.0.set_info(catalog.get(&self.0.model).cloned());
                self
            }
        }

        #[async_trait::async_trait(?Send)]
        impl crate::profiles::ProviderProfile for $profile {
            fn id(&self) -> &str {
                &self.0.id
            }

            fn model(&self) -> &str {
                &self.0.model
            }

            fn tool_registry(&self) -> &crate::tools::ToolRegistry {
                &self.0.registry
            }

            async fn build_system_prompt(&self, ctx: &crate::profiles::PromptContext<'_>) -> String {
                super::prompt::build(ctx, &self.0.model, &self.0.family.layers).await
            }

            fn provider_options(&self) -> Option<serde_json::Value> {
                self.0.provider_options.clone()
            }

            fn supports_reasoning(&self) -> bool {
                self.0.reasoning
            }

            fn supports_streaming(&self) -> bool {
                true
            }

            fn supports_parallel_tool_calls(&self) -> bool {
                true
            }

            fn context_window_size(&self) -> usize {
                self.0.context_window_size
            }

            fn model_info(&self) -> Option<&crate::llm::catalog::ModelInfo> {
                self.0.info.as_ref()
            }

            fn default_command_timeout_ms(&self) -> Option<u64> {
                self.0.family.command_timeout_ms
            }

            fn offers_subagents(&self) -> bool {
                self.0.subagents
            }

            fn repairs_tool_calls(&self) -> bool {
                self.0.repairs_tool_calls
            }

            fn requires_read_before_write(&self) -> bool {
                self.0.read_before_write
            }

            fn reads_named_files(&self) -> bool {
                self.0.reads_named_files
            }
        }
    };
}

mod anthropic;
mod docs;
mod gemini;
mod general;
mod git;
mod openai;
mod profile;
mod prompt;

pub use anthropic::AnthropicProfile;
pub use gemini::GeminiProfile;
pub use general::GeneralProfile;
pub use openai::OpenAiProfile;
pub use profile::{CoreProfile, PromptContext, ProviderProfile};
