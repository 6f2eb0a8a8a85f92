//! # openagent-core
//!
//! The runtime-agnostic heart of OpenAgent: the agentic loop (`Session`), the tool registry and
//! the shared coding tools, the provider-aligned profiles (OpenAI, Anthropic, Gemini, and a
//! general one for OpenAI-compatible servers) with their layered system prompts, and the
//! `ExecutionEnvironment` seam.
//!
//! The core does no I/O of its own. A host gives it three seams: an [`env::ExecutionEnvironment`]
//! (where tools run), an [`llm::LlmClient`] (how the model is reached) and a [`runtime::Runtime`]
//! (clock, timers, spawning). So the same code runs in a browser tab, in a native CLI and inside a
//! WASI sandbox; it builds and passes its tests on `wasm32-unknown-unknown`, and nothing in it
//! needs `Send`.
//!
//! Three jobs live in crates of their own, which must not depend on this one: the LLM layer
//! (`openagent-llm`, re-exported as [`llm`], with the [`runtime`] seam its retries share), the
//! JSON Schema validator (`openagent-jsonschema`, re-exported as [`schema`]) and the v4a patch
//! format that the `apply_patch` tool applies (`openagent-apply-patch`). The in-memory
//! environment and its shell go the other way: `openagent-memenv`, whose `MemoryEnvironment` the
//! browser and the tests run on, is built on this crate, so the core must not depend on it. Nor
//! may the core depend on a host: no I/O, no tokio, no browser API.
//!
//! The `typings` feature derives ts-rs's `TS` on the types a host hands to JavaScript (events,
//! turns, outcomes, snapshots), from which openagent-wasm's tests generate its TypeScript
//! declarations. Only those tests turn it on: no build of the core depends on ts-rs.

pub mod abort;
pub mod approval;
pub mod env;
pub mod glob;
pub mod hooks;
mod join;
pub mod profiles;
pub mod run_event;
pub mod sandbox;
pub mod session;
pub mod setup;
pub mod tools;

/// The JSON Schema validator that checks tool arguments and structured results, a crate of its own.
pub use openagent_jsonschema as schema;
/// The map kept as a sorted vector that the core's small maps use (from the schema crate, the lowest).
pub use openagent_jsonschema::sorted_map;
/// The LLM layer, a crate of its own.
pub use openagent_llm as llm;
/// The host seam for time and tasks, from the LLM layer (its retries wait on it).
pub use openagent_llm::{id, runtime};

pub use abort::AbortSignal;
pub use env::ExecutionEnvironment;
pub use llm::LlmClient;
pub use profiles::{AnthropicProfile, GeminiProfile, GeneralProfile, OpenAiProfile};
pub use profiles::{CoreProfile, ProviderProfile};
pub use runtime::Runtime;
pub use session::{Session, SessionConfig, SessionError, SessionEvent, SessionStatus};
