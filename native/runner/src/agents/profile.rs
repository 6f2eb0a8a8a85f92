//! The profile an agent config makes: a model family's prompt and tools, cut down to the tools
//! the config allows and with its command timeout. Subagents start from their parent's profile,
//! so a subagent of a restricted agent is just as restricted.

use std::rc::Rc;

use async_trait::async_trait;
use openagent_core::llm::catalog::ModelInfo;
use openagent_core::profiles::{PromptContext, ProviderProfile};
use openagent_core::setup::ProviderKind;
use openagent_core::tools::ToolRegistry;
use serde_json::Value;

/// The `profile` names, as error messages list them.
pub const PROFILE_NAMES: &str = "openai, anthropic, gemini and general";

/// The family a `profile` name stands for: the provider of that name, and `general` for the
/// profile of OpenAI-compatible servers.
pub fn profile_kind(name: &str) -> Option<ProviderKind> {
    match name {
        "general" => Some(ProviderKind::OpenAiCompatible),
        "openai-compatible" => None,
        other => ProviderKind::parse(other).ok(),
    }
}

pub struct AgentProfile {
    base: Rc<dyn ProviderProfile>,
    /// The provider's name: requests and `session_start` name the provider they go to, whichever
    /// family's prompt and tools the agent uses.
    id: String,
    registry: ToolRegistry,
    command_timeout_ms: Option<u64>,
}

impl AgentProfile {
    /// `base` with only the tools named in `allowed` (all when `None`) and, when given, its own
    /// command timeout.
    pub fn new(
        base: Rc<dyn ProviderProfile>,
        provider: ProviderKind,
        allowed: Option<&[String]>,
        command_timeout_ms: Option<u64>,
    ) -> Self {
        let registry = match allowed {
            None => base.tool_registry().clone(),
            Some(allowed) => {
                let all = base.tool_registry();
                all.names().iter().filter(|name| allowed.contains(name)).filter_map(|name| all.get(name).cloned()).collect()
            }
        };
        Self { base, id: provider.name().to_owned(), registry, command_timeout_ms }
    }
}

#[async_trait(?Send)]
impl ProviderProfile for AgentProfile {
    fn id(&self) -> &str {
        &self.id
    }

    fn model(&self) -> &str {
        self.base.model()
    }

    fn tool_registry(&self) -> &ToolRegistry {
        &self.registry
    }

    async fn build_system_prompt(&self, ctx: &PromptContext<'_>) -> String {
        self.base.build_system_prompt(ctx).await
    }

    fn provider_options(&self) -> Option<Value> {
        self.base.provider_options()
    }

    fn supports_reasoning(&self) -> bool {
        self.base.supports_reasoning()
    }

    fn supports_streaming(&self) -> bool {
        self.base.supports_streaming()
    }

    fn supports_parallel_tool_calls(&self) -> bool {
        self.base.supports_parallel_tool_calls()
    }

    fn context_window_size(&self) -> usize {
        self.base.context_window_size()
    }

    fn model_info(&self) -> Option<&ModelInfo> {
        self.base.model_info()
    }

    fn default_command_timeout_ms(&self) -> Option<u64> {
        self.command_timeout_ms.or_else(|| self.base.default_command_timeout_ms())
    }

    fn supports_images(&self) -> bool {
        self.base.supports_images()
    }
}
