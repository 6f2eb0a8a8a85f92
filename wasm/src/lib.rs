//! # openagent-wasm
//!
//! OpenAgent in a browser tab (or in Node): the JavaScript API of the core, built with
//! wasm-bindgen. [`Agent`] is one session of `openagent-core` on an in-memory
//! filesystem ([`MemoryFs`]); it reaches the model with `fetch`
//! ([`FetchClient`](fetch::FetchClient), the body streamed), keeps time with `setTimeout`
//! ([`BrowserRuntime`](runtime::BrowserRuntime)) and reports every event to an async iterator
//! and an `onEvent` callback. Tools can be written in JS, and so can shell commands (`commands`:
//! `node` in a Web Worker is one, shipped beside the bindings as `node.js`). A session outlives the page:
//! `agent.snapshot()` saves the conversation and the files as JSON data, and
//! `new Agent({ snapshot })` goes on from it (see `snapshot`). A crash rejects the pending
//! promises and logs to the console instead of leaving the page hanging (see `crash`).
//!
//! It builds on the core crates and the browser's APIs only: it must not depend on the native
//! host (threads, tokio, files), and every byte it pulls in counts against the bundle budget.
//!
//! ```js
//! import init, { Agent } from "./pkg/openagent_wasm.js";
//! await init();
//! const agent = new Agent({ provider: "anthropic", apiKey, files: { "README.md": "# Hello\n" } });
//! for await (const event of agent.events()) { ... }   // elsewhere
//! const outcome = await agent.submit("Add a CONTRIBUTING.md");
//! console.log(outcome.text, agent.fs.readText("CONTRIBUTING.md"));
//! localStorage.setItem("session", JSON.stringify(agent.snapshot()));   // after a reload:
//! const again = new Agent({ provider: "anthropic", apiKey, snapshot: localStorage.getItem("session") });
//! ```
//!
//! The TypeScript types of options, events and outcomes are in `typings`, emitted with the
//! bindings into `openagent_wasm.d.ts`: generated from the Rust types at test time (ts-rs, a
//! dev-dependency) and checked against what serde emits. After changing a type that crosses to
//! JS, `UPDATE_TYPINGS=1 cargo test -p openagent-wasm --lib typings` regenerates them.

pub mod agent;
pub mod approval;
mod blobs;
mod client;
pub mod commands;
pub mod convert;
pub mod crash;
pub mod events;
pub mod fetch;
pub mod fs;
pub mod hooks;
pub mod input;
pub mod mcp;
pub mod options;
pub mod runtime;
pub mod sandbox;
pub mod snapshot;
mod split;
pub mod tools;
mod typings;

pub use agent::Agent;
pub use fs::MemoryFs;

/// Talc in place of Rust's default wasm allocator (dlmalloc): the module is smaller and an
/// allocation is faster. The page's thread is the module's only one (no `atomics`).
#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
