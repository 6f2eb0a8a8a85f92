//! How a config shapes a session: its profile and tools, its instructions and output schema, and
//! its limits.

use std::rc::Rc;

use openagent_core::llm::catalog::Catalog;
use openagent_core::profiles::ProviderProfile;
use openagent_core::session::{SessionBuilder, SUBAGENT_TOOLS};
use openagent_core::setup::ProviderKind;
use openagent_core::{Session, SessionConfig};

use super::config::AgentConfig;
use super::profile::{profile_kind, AgentProfile};

impl AgentConfig {
    /// The profile for `model` on `provider`: the config's family (the provider's when it names
    /// none), cut down to its tools.
    pub fn profile(&self, provider: ProviderKind, model: &str, catalog: &Catalog) -> Rc<dyn ProviderProfile> {
        let family = self.profile.as_deref().and_then(profile_kind).unwrap_or(provider);
        let base = openagent_core::setup::profile(family, model, catalog);
        Rc::new(AgentProfile::new(base, provider, self.tools.as_deref(), self.limits.command_timeout_ms))
    }

    /// The session `builder` makes, with the config's instructions and output schema, and only
    /// the subagent tools its `tools` lists.
    pub fn build(&self, builder: SessionBuilder) -> Session {
        let session = self.configure(builder).build();
        self.restrict(&session);
        session
    }

    /// The instructions and output schema on `builder`.
    pub fn configure(&self, mut builder: SessionBuilder) -> SessionBuilder {
        if let Some(instructions) = &self.instructions {
            builder = builder.user_instructions(instructions.clone());
        }
        if let Some(schema) = self.output_schema() {
            // Loading ran the same check (validate.rs), so a loaded config cannot fail it.
            builder = builder.output_schema(schema.clone()).expect("the output schema was checked when the config was loaded");
        }
        builder
    }

    /// Takes away the subagent tools the session added that the config's `tools` does not list
    /// (the profile's tools were already cut down).
    pub fn restrict(&self, session: &Session) {
        let Some(allowed) = &self.tools else { return };
        for name in SUBAGENT_TOOLS.iter().filter(|name| !allowed.iter().any(|a| a == *name)) {
            session.unregister_tool(name);
        }
    }

    /// `base` with the config's limits (the command line's flags go on top of these).
    pub fn apply_limits(&self, mut base: SessionConfig) -> SessionConfig {
        let limits = &self.limits;
        base.max_turns = limits.max_turns.unwrap_or(base.max_turns);
        base.max_tool_rounds_per_input = limits.max_tool_rounds.unwrap_or(base.max_tool_rounds_per_input);
        base.max_result_attempts = limits.max_result_attempts.unwrap_or(base.max_result_attempts);
        base.max_output_tokens = limits.max_output_tokens.or(base.max_output_tokens);
        if let Some(timeout) = limits.command_timeout_ms {
            base.default_command_timeout_ms = Some(timeout);
            // The session caps every command at its maximum: a longer default must raise it.
            base.max_command_timeout_ms = base.max_command_timeout_ms.max(timeout);
        }
        base
    }
}
