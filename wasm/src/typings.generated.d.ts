// Generated from the Rust types by wasm/src/typings_tests.rs (ts-rs); do not edit.
// Regenerate: UPDATE_TYPINGS=1 cargo test -p openagent-wasm --lib typings

export type Provider = "openai" | "anthropic" | "gemini" | "openai-compatible";

export type ReasoningEffort = "minimal" | "low" | "medium" | "high";

/**
 * One event with its envelope: `kind` and `data` are the `EventData`, beside the time and the
 * session it happened in.
 */
export type AgentEvent =
  & {
      /** RFC 3339 UTC. */
      timestamp: string;
      session_id: string;
    }
  & (
      | {
          "kind": "session_start";
          "data": { provider: string; model: string; working_directory: string };
        }
      | { "kind": "session_end"; "data": { state: SessionState; reason: string } }
      | {
          "kind": "user_input";
          "data": {
            content: string;
            /** The attached images' names (a path, a URL, or what the host called them). */
            images?: Array<string>;
          };
        }
      | { "kind": "processing_end"; "data": { state: SessionState; reason: StopReason } }
      | { "kind": "turn_start"; "data": { turn: number } }
      | {
          "kind": "provider_retry";
          "data": { attempt: number; delay_ms: number; error_kind: ErrorKind; message: string };
        }
      | { "kind": "assistant_text_start"; "data": { response_id: string | null } }
      | { "kind": "assistant_text_delta"; "data": { delta: string } }
      | { "kind": "assistant_reasoning_delta"; "data": { delta: string } }
      | {
          "kind": "assistant_text_end";
          "data": {
            text: string;
            reasoning: string | null;
            tool_call_count: number;
            usage: Usage;
            total_usage: Usage;
          };
        }
      | {
          "kind": "tool_call_start";
          "data": { call_id: string; tool_name: string; arguments: JsonValue };
        }
      | {
          "kind": "approval_requested";
          "data": { call_id: string; tool_name: string; reason: string; always: string };
        }
      | {
          "kind": "tool_decision";
          "data": {
            call_id: string;
            tool_name: string;
            decision: Decision;
            reason: string | null;
            source: string;
          };
        }
      | { "kind": "tool_call_output_delta"; "data": { call_id: string; delta: string } }
      | {
          "kind": "tool_call_end";
          "data": {
            call_id: string;
            tool_name: string;
            output: string | null;
            error: string | null;
            duration_ms: number;
          };
        }
      | { "kind": "steering_injected"; "data": { content: string } }
      | {
          "kind": "compaction_start";
          "data": { reason: CompactionReason; tokens_before: number; context_window: number };
        }
      | {
          "kind": "compaction_end";
          "data": {
            reason: CompactionReason;
            tokens_before: number;
            tokens_after: number;
            summarized_turns: number;
            kept_turns: number;
            error: string | null;
          };
        }
      | {
          "kind": "result";
          "data": { result_text: string; result_data: JsonValue | null; outcome: AgentOutcome };
        }
      | { "kind": "turn_limit"; "data": { limit: string; count: number } }
      | { "kind": "loop_detection"; "data": { message: string } }
      | { "kind": "warning"; "data": { message: string } }
      | { "kind": "error"; "data": { message: string; error_kind: ErrorKind | null } }
    );

/**
 * The outcome of one input. Deserialising is tolerant of caller-built shapes: `summary`,
 * `evidence`, `metrics` and `timestamp` may be missing and unknown fields are ignored;
 * serialising always writes every field.
 */
export type AgentOutcome = {
  status: OutcomeStatus;
  summary: string;
  evidence: Array<Evidence>;
  metrics: OutcomeMetrics;
  /**
   * RFC 3339 UTC. The core reads no clock of its own: an outcome read without one has an
   * empty timestamp until `AgentOutcome::parse` (or the host) stamps it.
   */
  timestamp: string;
};

export type Evidence = { kind: EvidenceKind; description: string; data: JsonValue | null };

export type EvidenceKind =
  | "self_assessment"
  | "tool_result"
  | "state_change"
  | "external_verification"
  | "stop_reason"
  | "evaluator";

/** Counts for one input. Every field defaults to zero when missing. */
export type OutcomeMetrics = {
  /** Model responses. */
  turns: number;
  tool_calls: number;
  duration_ms: number;
  /** Model calls retried after transient errors, plus corrections of the result. */
  retries: number;
  /** Tool calls that succeeded and failed. */
  actions_succeeded: number;
  actions_failed: number;
};

export type OutcomeStatus =
  | "success"
  | "partial_success"
  | "give_up"
  | "timeout"
  | "failure"
  | "done";

/** Why a compaction ran. */
export type CompactionReason = "threshold" | "overflow" | "manual";

/** What became of a tool call before it ran. */
export type Decision = "allow" | "deny";

/** The error taxonomy of spec 6.1, flattened into kinds. */
export type ErrorKind =
  | "authentication"
  | "access_denied"
  | "not_found"
  | "invalid_request"
  | "rate_limit"
  | "server"
  | "content_filter"
  | "context_length"
  | "quota_exceeded"
  | "request_timeout"
  | "abort"
  | "network"
  | "stream"
  | "invalid_tool_call"
  | "unsupported_tool_choice"
  | "no_object_generated"
  | "configuration";

/** Where a session is in its life (spec 2.3). */
export type SessionState = "idle" | "processing" | "awaiting_input" | "closed";

/** Why processing of an input stopped (spec 2.8). */
export type StopReason =
  | "completed"
  | "round_limit"
  | "turn_limit"
  | "output_limit"
  | "aborted"
  | "interrupted"
  | "gave_up"
  | "no_result"
  | "blocked"
  | "error";

/**
 * Token counts; adding two sums every field, treating a missing optional count as 0 unless both
 * sides miss it (spec 3.9).
 */
export type Usage = {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  reasoning_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  /**
   * What the tokens cost in US dollars, by the [catalog](crate::catalog)'s prices for the model
   * that answered; `null` (JSON `null`) when it has none. No codec sets it: the session and
   * `generate` price each response, and a sum counts the responses that were priced.
   */
  cost_usd: number | null;
  raw?: JsonValue | null;
};

/** What `submit()` resolves to. */
export type Outcome = {
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
  /** How the task ended, typed: see the outcome table in native/README.md. */
  outcome: AgentOutcome | null;
};

/** A session saved at its last complete turn. */
export type SessionSnapshot = {
  /** Always `SessionSnapshot::SCHEMA` when written by this build. */
  schema: "openagent.session/1";
  session_id: string;
  /**
   * The profile (provider family) and model the history was made with: reasoning signatures
   * only go back to the family that made them.
   */
  provider: string;
  model: string;
  state: SavedState;
  /**
   * What the session was built with: the structure its results must have, and the host's
   * instructions. A restore keeps them unless its builder is given its own.
   */
  output_schema: JsonValue | null;
  user_instructions: string | null;
  /**
   * The host's slot for its environment: the browser keeps its in-memory files here; the
   * native host leaves it empty (the files are on disk).
   */
  environment: Snapshot | null;
};

/** The loop's state: plain data, serialisable, everything a saved session needs to go on. */
export type SavedState = {
  history: Array<Turn>;
  /** Token usage summed over every model call, compaction's included. */
  total_usage: Usage;
  /** Model responses over the whole session (what `max_turns` limits). */
  turns: number;
  /** Steering not injected yet, and inputs queued after the current one. */
  steering: Array<string>;
  followups: Array<string>;
  /** The reasoning effort and limits in force. */
  config: SessionConfig;
  /** How the last input ended. */
  last_result: RunResult | null;
  /** Signatures of the most recent tool calls, oldest first, at most the detection window. */
  recent_calls: Array<number>;
  /** How many times older history was replaced by a summary. */
  compactions: number;
  subagents: Array<SubAgentRecord>;
};

/** The end of an input, as the `result` event carries it. */
export type RunResult = {
  /** Human-readable: the model's last answer, or why there is none. */
  result_text: string;
  /** The accepted submission; `null` without an output schema or without a valid submission. */
  result_data: JsonValue | null;
  outcome: AgentOutcome;
};

/** Limits, timeouts and settings of one session. Every field has the spec's default. */
export type SessionConfig = {
  /** Model responses allowed over the whole session; 0 = unlimited. */
  max_turns: number;
  /** Tool rounds allowed per user input; 0 = unlimited. */
  max_tool_rounds_per_input: number;
  /**
   * The shell timeout when a call gives none; `null`: the profile's default (spec 3.5: 120 s
   * for Anthropic), else `DEFAULT_COMMAND_TIMEOUT_MS`. Set, it wins over the profile's.
   */
  default_command_timeout_ms: number | null;
  max_command_timeout_ms: number;
  /** `low`, `medium`, `high` (or a provider's own value); `null` = provider default. */
  reasoning_effort: string | null;
  /**
   * The most tokens one model response may have; `null` = the provider's default. Small local
   * models can otherwise ramble until their context is full.
   */
  max_output_tokens: number | null;
  /** Per-tool character limits, overriding the defaults of spec 5.2. */
  tool_output_limits: { [key in string]: number };
  /** Per-tool line limits, overriding the defaults of spec 5.3. */
  tool_line_limits: { [key in string]: number };
  enable_loop_detection: boolean;
  /** How many recent tool calls are checked for a repeating pattern. */
  loop_detection_window: number;
  /**
   * Within an input, a call repeated with the same result gets a note saying so, and a third
   * one is refused with a request for the answer (see `repeats.rs`); sooner than loop
   * detection, for small models that never stop on their own.
   */
  enable_repeat_guard: boolean;
  max_subagent_depth: number;
  /**
   * With an output schema: refused submissions and answers without one allowed per input
   * before it fails.
   */
  max_result_attempts: number;
  /**
   * The model's context window in tokens, instead of the profile's (a local server's own
   * `n_ctx`, say).
   */
  context_window: number | null;
  /**
   * Compact once the next request is estimated past this share of the window, in percent;
   * 0 turns compaction off.
   */
  compaction_threshold_percent: number;
  /**
   * How much recent history compaction keeps whole, in tokens; `null` = a quarter of the window.
   */
  compaction_keep_recent_tokens: number | null;
};

/**
 * A subagent as a snapshot keeps it: how it was started, its own state, and its last run's
 * result (`null` while it ran).
 */
export type SubAgentRecord = {
  agent_id: string;
  working_dir: string | null;
  model: string | null;
  output_schema: JsonValue | null;
  state: SavedState;
  result: SubAgentResult | null;
};

/** What `wait` reports (spec 7.3). */
export type SubAgentResult = {
  agent_id: string;
  status: SubAgentStatus;
  /** The child's last answer (or why it failed). */
  output: string;
  success: boolean;
  /** Model responses the child used in this run. */
  turns_used: number;
  /**
   * The child's `result` event (seed 003): its result text, and its accepted structured
   * result when it had an output schema (`null` otherwise).
   */
  result_text: string;
  result_data: JsonValue | null;
};

export type SubAgentStatus = "running" | "completed" | "failed";

/** One entry of a session's history. */
export type Turn =
  | {
      "type": "user";
      content: string;
      /** Attached images, checked and inline (a URL stays a URL). */
      images?: Array<MediaData>;
      timestamp: number;
    }
  | {
      "type": "assistant";
      message: Message;
      usage: Usage;
      response_id: string | null;
      timestamp: number;
    }
  | { "type": "tool_results"; results: Array<ToolResult>; timestamp: number }
  | { "type": "system"; content: string; timestamp: number }
  | { "type": "steering"; content: string; timestamp: number }
  | { "type": "summary"; content: string; summarized_turns: number; timestamp: number };

/** An image, audio clip or document: by URL or inline bytes (spec 3.5). */
export type MediaData = {
  url?: string | null;
  /** Inline bytes, serialised as standard base64. */
  data?: string;
  media_type?: string | null;
  /** Image fidelity hint: `auto`, `low`, `high`. */
  detail?: string | null;
  file_name?: string | null;
};

/** One message of a conversation (spec 3.1). */
export type Message = {
  role: Role;
  content: Array<ContentPart>;
  name?: string | null;
  tool_call_id?: string | null;
};

/** A tagged part of a message's content (spec 3.3, 3.4). */
export type ContentPart =
  | { "kind": "text"; text: string }
  | { "kind": "image"; image: MediaData }
  | { "kind": "audio"; audio: MediaData }
  | { "kind": "document"; document: MediaData }
  | { "kind": "tool_call"; tool_call: ToolCall }
  | { "kind": "tool_result"; tool_result: ToolResult }
  | { "kind": "thinking"; thinking: ThinkingData }
  | { "kind": "redacted_thinking"; thinking: ThinkingData };

/** Model reasoning (spec 3.5 ThinkingData). */
export type ThinkingData = {
  text: string;
  /** Provider signature (Anthropic `signature`, OpenAI `encrypted_content`), echoed verbatim. */
  signature?: string | null;
  redacted: boolean;
  /** Provider item id, for APIs that replay reasoning items by id (OpenAI Responses). */
  id?: string | null;
};

/** A tool invocation requested by the model (spec 3.5 ToolCallData, 5.4). */
export type ToolCall = {
  id: string;
  name: string;
  /** Parsed arguments; `null` when the model's argument text was not valid JSON. */
  arguments: JsonValue;
  /** The argument text exactly as the provider sent it, kept for replay and error reports. */
  raw_arguments?: string | null;
  /** `function` (default) or `custom`. */
  type: string;
  /** An opaque provider signature to echo back with this call (Gemini `thoughtSignature`). */
  signature?: string | null;
};

/** The outcome of one tool call, sent back to the model (spec 3.5 ToolResultData). */
export type ToolResult = {
  tool_call_id: string;
  content: string;
  is_error: boolean;
  /** An image the tool returned, as standard base64. */
  image_data?: string;
  image_media_type?: string | null;
};

/** Who produced a message (spec 3.2). */
export type Role = "system" | "user" | "assistant" | "tool" | "developer";

/**
 * The files as JSON data, in the format `MemoryEnvironment::snapshot` describes. When it is
 * read back, only `version` is required.
 */
export type Snapshot = {
  format?: "openagent-memory-environment";
  version: 1;
  working_directory?: string;
  files?: Array<SnapshotFile>;
  directories?: Array<string>;
};

/** A file: exactly one of `text` (UTF-8 content) and `base64` (any other content). */
export type SnapshotFile = {
  path: string;
  text?: string;
  base64?: string;
  /** Milliseconds since 1970; the time of the restore when left out. */
  modified_ms?: number;
};

/**
 * One model (spec 2.9's `ModelInfo`, with cache prices): prices are US dollars per million tokens.
 */
export type ModelInfo = {
  /** The API's name for it. */
  id: string;
  provider: string;
  display_name: string;
  /** Other names that find it: short ones (`sonnet`) and dated snapshots. */
  aliases: Array<string>;
  /** Input and output together, in tokens. */
  context_window: number;
  max_output: number | null;
  supports_tools: boolean;
  /** Whether it takes images in. */
  supports_vision: boolean;
  supports_reasoning: boolean;
  input_cost_per_million: number | null;
  output_cost_per_million: number | null;
  /** Prompt tokens read from the provider's cache; the input price when absent. */
  cache_read_cost_per_million: number | null;
  /**
   * Prompt tokens written to the cache (Anthropic bills them above input); the input price when
   * absent.
   */
  cache_write_cost_per_million: number | null;
};
