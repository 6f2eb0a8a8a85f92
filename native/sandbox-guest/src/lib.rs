//! # openagent-sandbox-guest
//!
//! The OpenAgent core as a WASI preview-1 guest: `openagent sandbox run` (the `sandbox` feature of
//! openagent-sandbox-host) runs this crate's binary inside wasmtime, with one preopened directory and
//! nothing else. The guest reaches the world only three ways:
//!
//! - **files**: [`WasiEnvironment`], the core's `ExecutionEnvironment` over the preopened
//!   directory, seen as [`WORKSPACE`]. Commands run in openagent-memenv's built-in shell (WASI has
//!   no processes);
//! - **the model**: the host imports of [`abi`] (`openagent.model_request` / `model_read`): the
//!   guest hands over method, URL, headers and body, the host checks the origin, adds the API
//!   key (the guest never holds it) and streams the response back;
//! - **events**: every `SessionEvent` goes to the host as JSON through `openagent.event`, and the
//!   run's end through `openagent.finish` ([`GuestEnd`]).
//!
//! The types the host and the guest exchange ([`GuestConfig`], [`GuestEnd`], [`ModelRequest`],
//! [`ModelHead`]) live here so that both sides compile against one definition. Everything but the
//! imports builds natively too, so the environment is unit-tested on the host.
//!
//! It must not depend on the native crates: the guest is the core and memenv compiled for WASI,
//! and the host depends on it (for these types), not the other way round.

pub mod abi;
mod env;
mod protocol;
mod runtime;

pub use env::{WasiEnvironment, WORKSPACE};
pub use protocol::{GuestConfig, GuestEnd, ModelErrorKind, ModelHead, ModelRequest};
pub use runtime::GuestRuntime;
