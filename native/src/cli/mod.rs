//! The commands of `openagent`: `run` and the interactive session, `serve`, `sessions`,
//! `agents`, `trust`, `web`, and what they share (agent configs, resuming a stored session). They drive
//! the core through the host's plumbing (`crate::host`) and record into `crate::store`; nothing
//! below them imports them.

pub mod agents;
pub mod config_file;
pub mod config_problems;
pub mod hooks;
pub mod mcp;
pub mod models;
pub mod resume;
pub mod run;
pub mod serve;
pub mod sessions;
pub mod stdout;
pub mod terminal;
pub mod trust;
pub mod tui;
pub mod web;
