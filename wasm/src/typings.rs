//! The TypeScript types of the API, emitted by wasm-bindgen into `openagent_wasm.d.ts`. They
//! mirror the Rust types they describe: `AgentOptions` (`options.rs`), the events
//! (`openagent_core::session::EventData`), `Outcome` (`agent.rs`), the files' snapshot format
//! (`MemoryEnvironment::snapshot`) and the saved session (`SessionSnapshot`, `SessionState` and
//! `Turn` in `openagent_core::session`). `web/tests/typings.ts` is compiled against them in CI.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type Provider = "anthropic" | "openai" | "openai-compatible" | "gemini";
export type ProfileName = "openai" | "anthropic" | "gemini" | "general";
export type ReasoningEffort = "minimal" | "low" | "medium" | "high";
export type SessionState = "idle" | "processing" | "awaiting_input" | "closed";
export type StopReason =
  | "completed" | "round_limit" | "turn_limit" | "output_limit" | "aborted" | "interrupted" | "gave_up" | "no_result" | "error";
export type OutcomeStatus = "success" | "partial_success" | "give_up" | "timeout" | "failure" | "done";

/** How a task ended, typed: see the outcome table in native/README.md. */
export interface AgentOutcome {
  status: OutcomeStatus;
  summary: string;
  evidence: {
    kind: "self_assessment" | "tool_result" | "state_change" | "external_verification" | "stop_reason" | "evaluator";
    description: string;
    data: JsonValue | null;
  }[];
  metrics: {
    turns: number; tool_calls: number; duration_ms: number; retries: number;
    actions_succeeded: number; actions_failed: number;
  };
  /** RFC 3339, UTC. */
  timestamp: string;
}
export type ErrorKind =
  | "authentication" | "access_denied" | "not_found" | "invalid_request" | "rate_limit" | "server"
  | "content_filter" | "context_length" | "quota_exceeded" | "request_timeout" | "abort" | "network"
  | "stream" | "invalid_tool_call" | "unsupported_tool_choice" | "no_object_generated" | "configuration";

/** A snapshot of the in-memory filesystem (`fs.snapshot()`), also accepted as `files`. */
export interface Snapshot {
  format?: "openagent-memory-environment";
  version: 1;
  working_directory?: string;
  files?: { path: string; text?: string; base64?: string; modified_ms?: number }[];
  directories?: string[];
}

/** A saved session (`agent.snapshot()`): JSON data to keep anywhere; `new Agent({ snapshot })` goes on from it. */
export interface SessionSnapshot {
  schema: "openagent.session/1";
  session_id: string;
  /** The provider family and the model the history was made with. */
  provider: string;
  model: string;
  /** The conversation, usage, counters, queues, settings and subagents. */
  state: SavedState;
  /** The in-memory files. */
  environment: Snapshot | null;
}

/** What a saved session holds; fields not listed here are kept for the agent, not for pages. */
export interface SavedState {
  history: Turn[];
  /** Tokens used by every model call, compaction's included. */
  total_usage: Usage;
  /** Model responses so far. */
  turns: number;
  /** How many times older turns were replaced by a summary. */
  compactions: number;
  [field: string]: unknown;
}

/** One entry of a saved history. `timestamp`: milliseconds since 1970. */
export type Turn =
  | { type: "user" | "steering" | "system"; content: string; timestamp: number }
  | { type: "summary"; content: string; summarized_turns: number; timestamp: number }
  | {
      type: "assistant";
      message: { role: "assistant"; content: ContentPart[] };
      usage: Usage;
      response_id: string | null;
      timestamp: number;
    }
  | {
      type: "tool_results";
      /** What the model was sent: outputs after truncation. */
      results: { tool_call_id: string; content: string; is_error: boolean }[];
      timestamp: number;
    };

export type ContentPart =
  | { kind: "text"; text: string }
  | { kind: "tool_call"; tool_call: { id: string; name: string; arguments: JsonValue } }
  | { kind: "thinking" | "redacted_thinking"; thinking: { text: string } };

export interface Compaction {
  /**
   * Compact once the next request is estimated past this share of the context window, in
   * percent: 80 by default; 0 switches automatic compaction off (`compact()` still works).
   */
  thresholdPercent?: number;
  /** Recent history kept whole, in tokens; a quarter of the window by default. */
  keepRecentTokens?: number;
}

export type CompactionReason = "threshold" | "overflow" | "manual";

export interface Limits {
  /** Model responses over the whole session; 0 = unlimited. */
  maxTurns?: number;
  /** Tool rounds per submitted task; 0 = unlimited. */
  maxToolRoundsPerInput?: number;
  defaultCommandTimeoutMs?: number;
  maxCommandTimeoutMs?: number;
  maxSubagentDepth?: number;
  /** With `outputSchema`: refused results (or answers without one) allowed per task; 3 by default. */
  maxResultAttempts?: number;
}

export interface AgentOptions {
  provider: Provider;
  /** The provider's default when absent; required for an openai-compatible server. */
  model?: string;
  /** Kept in the agent's memory only. */
  apiKey?: string;
  /** Asked before each model call instead of `apiKey`. */
  getApiKey?: () => string | Promise<string>;
  /** Another server for the provider's API, e.g. `http://127.0.0.1:8080/v1` for a local one. */
  baseUrl?: string;
  /** The tool set and prompt family; the provider's own by default. */
  profile?: ProfileName;
  reasoningEffort?: ReasoningEffort;
  limits?: Limits;
  /** Appended last to the system prompt. */
  instructions?: string;
  /** The files to start with: a snapshot, or `{ path: text }`. */
  files?: Snapshot | { [path: string]: string };
  /** `/workspace` by default. */
  workingDirectory?: string;
  /** Retries of a failed model call (rate limits, server errors); 2 by default. */
  maxRetries?: number;
  sessionId?: string;
  /**
   * A saved session to go on with (`agent.snapshot()`, or its JSON text): its conversation and,
   * when it has them, its files (then leave `files` out). Its id is kept unless `sessionId` is set.
   * The provider, model and key are these options'; limits, `reasoningEffort` and `compaction`
   * left unset keep the snapshot's. A snapshot made with another provider family goes on without
   * its reasoning signatures (a `warning` event says so).
   */
  snapshot?: SessionSnapshot | string;
  /** The model's context window in tokens, for a model the catalog does not know (a local server's n_ctx). */
  contextWindow?: number;
  /** When older turns are summarised to make room in the context window. */
  compaction?: Compaction;
  /**
   * A JSON Schema (`"type": "object"` at the root) each task's result must follow. The agent then
   * offers `submit_result` (these are its parameters) and `give_up`, corrects refused results, and
   * `submit()` resolves with the validated `resultData`.
   */
  outputSchema?: { [key: string]: JsonValue };
  /** Every event, in order; all of a task's events have been delivered when `submit()` settles. */
  onEvent?: (event: AgentEvent) => void;
  /** Aborts the agent, as `abort()` does. */
  signal?: AbortSignal;
  /** Used instead of the global `fetch` (a proxy, a test double). */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  reasoning_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  raw?: JsonValue;
}

/** What `submit()` resolves to. */
export interface Outcome {
  reason: StopReason;
  state: SessionState;
  /** The model's last answer. */
  text: string;
  /** Tokens used by the session so far. */
  usage: Usage;
  /** The task's result: the model's answer, or why there is none. */
  resultText: string;
  /** The validated structured result with `outputSchema`; `null` otherwise. */
  resultData: JsonValue | null;
  outcome: AgentOutcome | null;
}

/** What `submit()` rejects with. */
export interface AgentError extends Error {
  kind: ErrorKind | "closed" | "busy" | "crashed";
  status?: number;
}

export interface ToolSpec {
  name: string;
  description?: string;
  /** A JSON Schema with `"type": "object"` at the root; arguments are checked against it. */
  parameters?: { [key: string]: JsonValue };
  /** Its return value (a string, or data sent as JSON) is the tool's output; a throw is an error the model sees. */
  execute: (args: { [key: string]: JsonValue }) => unknown;
}

interface EventOf<K extends string, D> {
  kind: K;
  /** RFC 3339, UTC. */
  timestamp: string;
  session_id: string;
  data: D;
}

export type AgentEvent =
  | EventOf<"session_start", { provider: string; model: string; working_directory: string }>
  | EventOf<"session_end", { state: SessionState; reason: string }>
  | EventOf<"user_input", { content: string }>
  | EventOf<"processing_end", { state: SessionState; reason: StopReason }>
  | EventOf<"turn_start", { turn: number }>
  | EventOf<"provider_retry", { attempt: number; delay_ms: number; error_kind: ErrorKind; message: string }>
  | EventOf<"assistant_text_start", { response_id: string | null }>
  | EventOf<"assistant_text_delta", { delta: string }>
  | EventOf<"assistant_text_end", {
      text: string; reasoning: string | null; tool_call_count: number; usage: Usage; total_usage: Usage;
    }>
  | EventOf<"tool_call_start", { call_id: string; tool_name: string; arguments: JsonValue }>
  | EventOf<"tool_decision", {
      call_id: string; tool_name: string; decision: "allow" | "deny"; reason: string | null; source: string;
    }>
  | EventOf<"tool_call_output_delta", { call_id: string; delta: string }>
  | EventOf<"tool_call_end", {
      call_id: string; tool_name: string; output: string | null; error: string | null; duration_ms: number;
    }>
  | EventOf<"steering_injected", { content: string }>
  | EventOf<"compaction_start", { reason: CompactionReason; tokens_before: number; context_window: number }>
  | EventOf<"compaction_end", {
      reason: CompactionReason; tokens_before: number; tokens_after: number; summarized_turns: number; kept_turns: number;
      error: string | null;
    }>
  | EventOf<"result", { result_text: string; result_data: JsonValue | null; outcome: AgentOutcome }>
  | EventOf<"turn_limit", { limit: string; count: number }>
  | EventOf<"loop_detection", { message: string }>
  | EventOf<"warning", { message: string }>
  | EventOf<"error", { message: string; error_kind: ErrorKind | null }>;

export type AgentEventKind = AgentEvent["kind"];
"#;
