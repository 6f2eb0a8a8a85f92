//! Agent configs: named agents kept with a project, at `.openagent/agents/<id>/agent.yml`
//! (relative to the working directory), each a provider and model, a family's profile, extra
//! instructions, the tools it may use, its limits and the structured result it must return
//! (`output.schema`, a JSON Schema the session's `submit_result` enforces). `openagent agents
//! list` shows and checks them; `openagent run --agent <id>` (and the interactive session's
//! `--agent`) runs one. A config is checked whole when it is loaded, and every problem names the
//! file, the field, its line when known, and what to change.
//!
//! ```yaml
//! schema: openagent.agent/1
//! id: reviewer
//! name: Code reviewer
//! provider: openai-compatible
//! model: qwen2.5-coder
//! instructions: Review the change in the working directory; be terse.
//! tools: [read_file, grep, glob]
//! limits: { max_turns: 8, max_result_attempts: 3 }
//! output:
//!   schema:
//!     type: object
//!     required: [summary, approved]
//!     properties:
//!       summary: { type: string, minLength: 10 }
//!       approved: { type: boolean }
//! ```

mod config;
mod error;
mod load;
mod profile;
mod session;
mod validate;

pub use config::{AgentConfig, Limits, Output, SCHEMA_VERSION};
pub use error::{AgentError, Problem};
pub use load::{config_path, discover, load, parse, Found, AGENTS_DIR, CONFIG_FILE};
pub use profile::{profile_kind, AgentProfile, PROFILE_NAMES};

#[cfg(test)]
mod tests;
