//! The structured-result figure: a fixed set of small tasks with output schemas
//! (`tests/structured/`: one agent config per task under `.openagent/agents/`, and `tasks.json`
//! with each task's text and the mock's script), each run end to end through `openagent run
//! --agent`, and the share of runs that end with a valid result within three attempts, per task
//! and overall.
//!
//! `mock` runs them against the mock LLM server scripted with the mistakes models make (wrong
//! types, missing and extra fields, enum and pattern violations, strings too short, prose or
//! markdown JSON instead of a submission) and asserts the exact figure those scripts must give.
//! `real_model` is opt-in: the same tasks against a real small model (see its header).

mod figure;
mod mock;
mod real_model;
