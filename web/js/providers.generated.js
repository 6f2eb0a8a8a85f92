// Generated from the provider table (openagent-llm's providers.rs) by wasm/src/typings_tests.rs; do not edit.
// Regenerate: UPDATE_TYPINGS=1 cargo test -p openagent-wasm --lib typings

/** Each provider's API root when none is given; for openai-compatible, a local server's usual one. */
export const DEFAULT_BASE_URLS = Object.freeze({
  "openai": "https://api.openai.com/v1",
  "anthropic": "https://api.anthropic.com",
  "gemini": "https://generativelanguage.googleapis.com",
  "openai-compatible": "http://127.0.0.1:8080/v1",
});
