//! The TypeScript types of the API, emitted by wasm-bindgen into `openagent_wasm.d.ts`.
//!
//! What the API hands to JS is generated from the Rust types, at test time, into
//! `typings.generated.d.ts`: the events (`SessionEvent`, as `AgentEvent`), `Outcome`
//! (`agent.rs`), the files' snapshot (`MemoryEnvironment::snapshot`), the saved session
//! (`SessionSnapshot`) and every type they name, with ts-rs derives that only openagent-wasm's
//! tests turn on; and the `Provider` and `ReasoningEffort` names, from the lists the code reads.
//! The file is checked in and included here, so neither ts-rs nor the generator is in the bundle.
//! `typings_tests.rs` fails when the file is stale, and writes what serde emits for samples of
//! each type into `web/tests/serde_samples.ts`, which `tsc --strict` checks against the package,
//! and the provider table's base URLs into `web/js/providers.generated.js` for the playground.
//!
//! What JS hands to the API is written by hand, in `typings.hand-written.d.ts`: the options are
//! read field by field (`options.rs`), not by serde, and half of them are functions or DOM types
//! that no Rust type describes; `ToolSpec` and `AgentError` likewise. The tests hold the option
//! names to the lists `options.rs` reads. Beside them: `JsonValue` (ts-rs's lets an object's
//! values be `undefined`), `ProfileName` and `AgentEventKind`. `web/tests/typings.ts` is compiled
//! against all of it in CI.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const GENERATED: &'static str = include_str!("typings.generated.d.ts");

#[wasm_bindgen(typescript_custom_section)]
const HAND_WRITTEN: &'static str = include_str!("typings.hand-written.d.ts");

#[cfg(all(test, not(target_arch = "wasm32")))]
#[path = "typings_tests.rs"]
mod tests;
