//! The mock LLM server driven over real HTTP through `openagent-host`'s client: each API's
//! replies in its provider's shape, the faults, CORS, recording, and the `mock-llm` binary.

mod binary;
mod faults;
mod server;
mod support;
mod wire_anthropic;
mod wire_gemini;
mod wire_openai;
