//! The names of the `openagent.run_event.v1` contract (seed 000): its schema version and the
//! external types its records carry.
//!
//! The projection that writes the records is the native CLI's (`openagent run --output json`),
//! but the names are data that its tests, the workspace's suites and the docs all list: they live
//! here, in the lowest crate, so that there is one list to read and to check the others against.
//! Seed 000 freezes the list for v1; a new type belongs to a v2.
//!
//! ```
//! use openagent_core::run_event::{RUN_FINISHED, TYPES};
//!
//! assert_eq!(TYPES.first(), Some(&"run_started"));
//! assert_eq!(TYPES.last(), Some(&RUN_FINISHED));
//! ```

/// The `schema_version` of every record.
pub const SCHEMA_VERSION: &str = "openagent.run_event.v1";

/// The type that ends every run, exactly once.
pub const RUN_FINISHED: &str = "run_finished";

/// The eleven types of v1, in the seed's order.
pub const TYPES: [&str; 11] = [
    "run_started",
    "step_started",
    "tool_call_detected",
    "tool_decision",
    "tool_exec_started",
    "tool_exec_finished",
    "tool_retry",
    "step_blocked",
    "provider_retry",
    "provider_error",
    RUN_FINISHED,
];

/// The model's text as it arrives: an addition to the seed's list, written only with `--stream`,
/// so a consumer that did not ask for it never sees a type outside [`TYPES`].
pub const TEXT_DELTA: &str = "text_delta";
