//! # openagent-tests
//!
//! Test support shared by the workspace: [`MockServer`], a mock LLM server that speaks the four
//! wire APIs OpenAgent's codecs target (Anthropic Messages, OpenAI Responses, OpenAI Chat
//! Completions, Gemini), streamed or not, plays a scripted conversation, injects faults, and
//! records what the client sent. CI and the browser tests use it instead of the internet; the
//! `mock-llm` binary serves a script file for tests outside Rust.
//!
//! Test support only: it may depend on every crate of the workspace (the mock runs on the native
//! host's HTTP server), and only tests and benches may depend on it.
//!
//! Routes on `http://127.0.0.1:PORT`: `POST /v1/messages`, `/v1/responses`,
//! `/v1/chat/completions` (streamed when the body says `"stream": true`), and
//! `/v1beta/models/{model}:generateContent` / `:streamGenerateContent` (SSE with `?alt=sse`, else a
//! JSON array). Every response carries CORS headers and `OPTIONS` preflights get a 204.
//!
//! ## Scripts
//!
//! A script is a JSON array of steps (or [`Script::new`] in Rust). Each request takes the first
//! remaining step whose `expect` matches its API (steps without `expect` match any):
//!
//! ```json
//! [
//!   {"reply": {"text": "Let me look.", "reasoning": "The user wants…",
//!              "tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}],
//!              "usage": {"input_tokens": 10, "output_tokens": 5}},
//!    "expect": {"api": "anthropic"}},
//!   {"fault": {"status": 429, "retry_after": 1}},
//!   {"fault": {"status": 500, "message": "boom"}},
//!   {"fault": "drop_mid_stream", "reply": {"text": "cut short"}},
//!   {"fault": {"slow_first_byte_ms": 1500}, "reply": {"text": "late"}}
//! ]
//! ```
//!
//! - `reply`: every field optional. `tool_calls[].id` overrides the generated call id;
//!   `usage` also takes `reasoning_tokens` and `cache_read_tokens` (default 10 in, 5 out).
//! - `fault` with `status` (400-599): that provider's error body, with `message` or a default one,
//!   and a `Retry-After` header when `retry_after` (seconds) is given.
//! - `"drop_mid_stream"`: sends the head and about half the body, then closes the connection.
//! - `slow_first_byte_ms`: waits that long before sending anything.
//!   These two play the step's `reply`, or a short default one.
//! - `expect`: `{"api": "anthropic" | "openai_responses" | "openai_chat" | "gemini"}`.
//!
//! A request with no step left gets a 500 in its provider's error shape, naming the request.
//!
//! The encoders live in one module per API ([`anthropic`], [`openai_responses`], [`openai_chat`],
//! [`gemini`]), so codec tests can also call them directly.
//!
//! ## What the suites share
//!
//! - [`over_http`]: each API's codec pointed at a [`MockServer`] through the native HTTP client,
//!   and readers for what each API's requests carry.
//! - [`parity`]: the three provider families and a harness running a profile's session over HTTP
//!   (spec 9.12 and 9.13).
//! - [`cli`]: the real `openagent` binary in a sandbox of its own, its output read back as
//!   `openagent.run_event.v1` records.
//! - [`processes`]: temporary directories for `LocalEnvironment`, and checks that processes are
//!   gone (openagent-host's own integration tests use it too, as a dev-dependency).

pub mod anthropic;
mod api;
pub mod cli;
pub mod gemini;
mod ids;
pub mod local_bench;
pub mod mcp;
pub mod openai_chat;
pub mod openai_responses;
pub mod over_http;
pub mod parity;
pub mod processes;
mod script;
mod server;
mod wire;

pub use api::Api;
pub use ids::Ids;
pub use script::{Action, Reply, Script, ScriptError, Step, ToolCall, Usage, DEFAULT_TEXT};
pub use server::{MockServer, RecordedRequest};
pub use wire::{Call, Framing, WireBody};
