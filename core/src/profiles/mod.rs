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

use crate::tools::ToolRegistry;

/// A model family's constants; each profile file has one.
struct Family {
    /// The provider name requests carry, for routing (`Request::provider`).
    id: &'static str,
    layers: prompt::Layers,
    /// `(model name prefix, context window in tokens, reasons)`; the first match wins.
    models: &'static [(&'static str, usize, bool)],
    /// For the models the table does not know.
    other_models: (usize, bool),
    command_timeout_ms: Option<u64>,
}

impl Family {
    /// Context window and reasoning for a model name.
    fn model_info(&self, model: &str) -> (usize, bool) {
        // Model names may come as `provider/model` (gateways) or `models/model` (Gemini).
        let name = model.rsplit('/').next().unwrap_or(model).to_ascii_lowercase();
        let row = self.models.iter().find(|(prefix, ..)| name.starts_with(prefix));
        row.map_or(self.other_models, |&(_, window, reasons)| (window, reasons))
    }
}

/// What every profile here is made of: its family, and what a constructor or builder set.
struct Parts {
    id: String,
    model: String,
    registry: ToolRegistry,
    family: &'static Family,
    context_window_size: usize,
    reasoning: bool,
    provider_options: Option<Value>,
}

impl Parts {
    fn new(family: &'static Family, model: String, registry: ToolRegistry) -> Self {
        let (context_window_size, reasoning) = family.model_info(&model);
        Self { id: family.id.into(), model, registry, family, context_window_size, reasoning, provider_options: None }
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

            fn default_command_timeout_ms(&self) -> Option<u64> {
                self.0.family.command_timeout_ms
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
