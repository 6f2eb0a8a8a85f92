//! # openagent-runner
//!
//! What every native host needs to run a session: the options and limits a host fills, the agent
//! configs, MCP servers, hooks and model catalog of a directory (each checked against the trust
//! store), resuming a stored session, the driver that turns a session's events into wakes, and
//! the report they go to: the outputs (human text, `openagent.run_event.v1` JSONL), the run's
//! artifacts and the session store. `openagent run`, the interactive session, `openagent serve`
//! and `openagent sandbox run` are short files over it.
//!
//! It depends on the core, the host environment (`openagent-host`) and the store
//! (`openagent-store`); it must not depend on any front end (the TUI, serve, the wasmtime host,
//! the CLI), nor on their dependencies (a terminal library, an HTTP server, a WebAssembly runtime).

pub mod agent;
pub mod agents;
pub mod approval;
pub mod artifacts;
pub mod config_error;
pub mod config_file;
pub mod config_problems;
pub mod hooks;
pub mod human;
pub mod mcp;
pub mod mentions;
pub mod models;
pub mod projection;
pub mod resume;
pub mod run;
pub mod stdout;
pub mod terminal;
pub mod trust;
