//! # openagent-runner
//!
//! What every native host needs to run a session: the options and limits a host fills, the agent
//! configs, MCP servers, hooks and model catalog of a directory (each checked against the trust
//! store), resuming a stored session, the driver that turns a session's events into wakes, and
//! the report they go to: the outputs (human text, `openagent.run_event.v1` JSONL), the run's
//! artifacts and the session store. `openagent run`, the interactive session, `openagent serve`
//! and `openagent sandbox run` are short files over it, in three steps (`plan`): resolve what can
//! refuse, start the session, drive each input to its explained end.
//!
//! It depends on the core, the host environment (`openagent-host`) and the store
//! (`openagent-store`); it must not depend on any front end (the TUI, serve, the wasmtime host,
//! the CLI), nor on their dependencies (a terminal library, an HTTP server, a WebAssembly runtime).

pub mod agents;
pub mod approval;
pub mod artifacts;
pub mod config_error;
pub mod config_file;
pub mod config_problems;
pub mod error;
pub mod hooks;
pub mod human;
pub mod launcher;
pub mod limits;
pub mod mcp;
pub mod mentions;
pub mod models;
pub mod plan;
pub mod projection;
pub mod report;
pub mod request;
pub mod resume;
pub mod run_id;
pub mod sandbox;
pub mod server_models;
pub mod stdout;
pub mod tally;
pub mod terminal;
pub mod trust;
pub mod wake;
pub mod wording;

pub use artifacts::RunConfig;
pub use error::RunError;
pub use launcher::{AgentOptions, Launcher};
pub use limits::LimitFlags;
pub use openagent_store::ExitReason;
pub use plan::{drive, signal_wakes, until_abandoned, Plan, Running, Wake, COMMANDS_END_WITHIN};
pub use projection::{Projector, RunEnd, RunInfo};
pub use report::{refuse, refuse_now, OutputMode, Report};
pub use request::{Request, RunArgs};
pub use run_id::{fixed_run_id, new_run_id, pinned_runtime};
pub use sandbox::SandboxOptions;
