//! Starting a session on a provider: the provider is resolved by the LLM layer
//! ([`ProviderSettings`], re-exported here, the one resolution path `Client::from_env` shares),
//! and its models get the profile [`profile`] names, which is the agent's business. The CLI, the
//! browser bindings and the sandbox all start a session from here, so they agree on every default.
//!
//! ```
//! use openagent_core::llm::catalog::Catalog;
//! use openagent_core::setup::{profile, ProviderKind, ProviderSettings};
//!
//! let vars = |name: &str| (name == "ANTHROPIC_API_KEY").then(|| "sk-ant-…".to_owned());
//! let settings = ProviderSettings::resolve(None, None, None, vars).unwrap();
//! assert_eq!(settings.kind, ProviderKind::Anthropic);
//! assert_eq!(settings.model.as_deref(), Some("claude-sonnet-4-5"));
//! let profile = profile(settings.kind, "claude-sonnet-4-5", Catalog::builtin());
//! assert_eq!((profile.id(), profile.context_window_size()), ("anthropic", 200_000));
//! ```

use std::rc::Rc;

use crate::llm::catalog::Catalog;
use crate::profiles::ProviderProfile;
use crate::profiles::{AnthropicProfile, GeminiProfile, GeneralProfile, OpenAiProfile};

pub use crate::llm::providers::{ProviderKind, UnknownProvider};
pub use crate::llm::settings::{discover_model, server_models, KeySource, ProviderSettings, ServerModel, SetupError};

/// The profile of `kind`'s model family for `model`, the general one for an OpenAI-compatible
/// server, with the model's window, capabilities and prices from `catalog`.
pub fn profile(kind: ProviderKind, model: &str, catalog: &Catalog) -> Rc<dyn ProviderProfile> {
    match kind {
        ProviderKind::OpenAi => Rc::new(OpenAiProfile::new(model).with_catalog(catalog)),
        ProviderKind::Anthropic => Rc::new(AnthropicProfile::new(model).with_catalog(catalog)),
        ProviderKind::Gemini => Rc::new(GeminiProfile::new(model).with_catalog(catalog)),
        ProviderKind::OpenAiCompatible => Rc::new(GeneralProfile::new(model).with_catalog(catalog)),
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::*;

    #[test]
    fn each_provider_gets_its_family_profile() {
        let ids = ProviderKind::ALL.map(|kind| profile(kind, "m", Catalog::builtin()).id().to_owned());
        assert_eq!(ids, ["openai", "anthropic", "gemini", "openai-compatible"]);
    }
}
