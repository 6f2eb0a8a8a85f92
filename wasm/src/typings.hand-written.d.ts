// Written by hand (wasm/src/typings.rs says why): what JS hands to the API (options, tools) and
// its errors. The types it names are in typings.generated.d.ts.

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export type ProfileName = "openai" | "anthropic" | "gemini" | "general";

export type AgentEventKind = AgentEvent["kind"];

export interface Compaction {
  /**
   * Compact once the next request is estimated past this share of the context window, in
   * percent: 80 by default; 0 switches automatic compaction off (`compact()` still works).
   */
  thresholdPercent?: number;
  /** Recent history kept whole, in tokens; a quarter of the window by default. */
  keepRecentTokens?: number;
}

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
  /**
   * Offer the subagent tools (`spawn_agent`, `send_input`, `wait`, `close_agent`) or not. By default
   * every profile does but the general one (an OpenAI-compatible server), whose lean first request
   * for small local models leaves them out.
   */
  subagents?: boolean;
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
  /**
   * How long the model server may stay silent, in ms: no answer, or a streamed answer that stops.
   * The call then fails with a timeout instead of hanging (fetch itself waits forever). 60000 by default.
   */
  readTimeoutMs?: number;
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
  /**
   * Entries laid over the built-in model catalog: each changes the fields it gives of the model
   * its `id` names (a price, a window), or adds a model (then `provider` and `context_window` are
   * needed). The catalog gives the session its window, whether the model takes images, and the
   * prices `cost_usd` is figured from.
   */
  models?: Array<{ id: string } & Partial<ModelInfo>>;
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
  /** Used instead of the global `fetch` (a proxy, a test double). A request body comes as a `Blob` (read it with `await init.body.text()`): the history a session sends again each round is kept in `Blob`s, not copied. */
  fetch?: (url: string, init: RequestInit) => Promise<Response>;
  /**
   * Which tool calls run without asking: `"read-only"` (file edits and commands ask),
   * `"auto-edit"` (commands ask) or `"full-auto"` (the default: none ask). A call that asks goes
   * to `onApproval`; without it, it is denied.
   */
  approval?: ApprovalMode;
  /**
   * Asked when the approval policy says `ask`, one call at a time: `"allow"`, `"deny"` (or
   * `{ decision: "deny", reason }`: the model reads the reason), or `"always"` (allow calls like
   * this one, `request.always`, for the rest of the session). Anything else, a throw or a
   * rejection denies the call.
   */
  onApproval?: (request: ApprovalRequest) => ApprovalAnswer | Promise<ApprovalAnswer>;
  /**
   * What the agent's commands may write once they run, in agent.yml's words: `"read-only"`
   * (nothing), `"workspace-write"` (the default: the working directory, `/tmp` and
   * `writable_roots`, but never `.git/config`, `.git/hooks`, `.openagent` and shell start-up
   * files), `"full-access"`, or `{ mode, writable_roots, network }`. A write it refuses fails as
   * on a read-only disk, and the model reads what was refused. The built-in shell has no command
   * of its own that reaches the network; a command from `commands` is told the policy.
   */
  sandbox?: SandboxPolicy;
  /**
   * The page's own code before and after each tool call, on each task, and when the agent closes.
   * A throw, a rejection or an answer of the wrong shape is a `warning` event and changes nothing.
   */
  hooks?: AgentHooks;
  /**
   * Shell commands written in JS, by name (`{ node: nodeCommand() }` from the package's `node.js`):
   * the agent's built-in shell runs them like its builtins, in pipes, with redirections, `&&` and
   * its timeout. A name the shell has already (`cat`) is refused.
   */
  commands?: { [name: string]: HostCommand };
}

/**
 * A shell command written in JS. A throw or a rejection is reported on stderr with exit code 1; an
 * answer of another shape, with exit code 126.
 */
export type HostCommand = (call: HostCommandCall) => HostCommandAnswer | Promise<HostCommandAnswer>;

export interface HostCommandCall {
  /** The words after the shell's expansion; `argv[0]` is the command's name. */
  argv: string[];
  /** A pipe's or a redirection's bytes; empty otherwise. */
  stdin: Uint8Array;
  /** The shell's working directory, absolute. */
  cwd: string;
  /** The shell's variables (`PWD`, `HOME`, `NAME=value` given before the command, ...). */
  env: { [name: string]: string };
  /**
   * Milliseconds left before the shell's timeout (`null`: none). Stop by then and answer with
   * exit code 124; the shell gives up on the call 250 ms later and aborts `signal`.
   */
  timeoutMs: number | null;
  /** Aborted when the shell gives up on the call: the agent was stopped, or the timeout passed. */
  signal: AbortSignal;
  /** The agent's files, to read and write while the command runs (relative paths resolve against the agent's working directory, not `cwd`). */
  fs: MemoryFs;
  /**
   * The agent's sandbox, as the `sandbox` option writes it in full (`null`: unconfined,
   * full-access). Writes through `fs` are held to it (a refused one throws, `a.txt: Read-only
   * file system`); the network the command reaches is its own to hold to it (`nodeCommand` and
   * `pythonCommand` narrow their `allowNetwork` to its `network`).
   */
  sandbox: { mode: SandboxMode; writable_roots?: string[]; network: "off" | "on" | string[] } | null;
}

/** `exitCode` is 0 when absent; output may be text or bytes. */
export interface HostCommandAnswer {
  stdout?: string | Uint8Array;
  stderr?: string | Uint8Array;
  exitCode?: number;
}

export interface AgentHooks {
  /** After a call's arguments are valid, before the approval policy: `{ block }` refuses it (the model reads the reason), `{ toolInput }` runs it with these arguments instead. */
  preToolUse?: (input: HookInput & { hook_event_name: "pre_tool_use"; call_id: string; tool_name: string; tool_input: { [key: string]: JsonValue } }) => HookAnswer | Promise<HookAnswer>;
  /** After the tool ran: `{ block }` turns the result into an error the model reads. */
  postToolUse?: (input: HookInput & { hook_event_name: "post_tool_use"; call_id: string; tool_name: string; tool_input: { [key: string]: JsonValue }; tool_output: string; is_error: boolean }) => HookAnswer | Promise<HookAnswer>;
  /** Before a task reaches the history: `{ block }` drops it (`submit()` resolves with reason `"blocked"`), `{ context }` is text the model reads after it. */
  userPromptSubmit?: (input: HookInput & { hook_event_name: "user_prompt_submit"; prompt: string }) => HookAnswer | Promise<HookAnswer>;
  /** Once the agent is closed (`abort()`, or an error that closes it); its answer is not read. */
  sessionEnd?: (input: HookInput & { hook_event_name: "session_end"; reason: string }) => void | Promise<void>;
}

/** What every hook is given, with its own fields. */
export interface HookInput {
  hook_event_name: "pre_tool_use" | "post_tool_use" | "user_prompt_submit" | "session_end";
  session_id: string;
  /** The agent's working directory. */
  cwd: string;
}

export type HookAnswer = void | undefined | null | { block?: string; toolInput?: { [key: string]: JsonValue }; context?: string };

/** `addMcpServer`'s argument: an MCP server over Streamable HTTP, allowing this page's origin (CORS). */
export interface McpServerOptions {
  /** Letters, digits, `_` and `-`: its tools are offered as `mcp__<name>__<tool>`. */
  name: string;
  url: string;
  /** Sent with every request (an `Authorization` header, say). */
  headers?: { [key: string]: string };
  /** Each request's timeout, in milliseconds (60000 when absent). */
  timeoutMs?: number;
}

/** What `addMcpServer` resolves to. */
export interface McpServerAdded {
  name: string;
  /** The tools registered, by the names the model sees. */
  tools: string[];
  /** A tool left out, and why. */
  warnings: string[];
}

export type ApprovalMode = "read-only" | "auto-edit" | "full-auto";

export type SandboxMode = "read-only" | "workspace-write" | "full-access";

/** A sandbox mode, or the full form. */
export type SandboxPolicy =
  | SandboxMode
  | {
      mode: SandboxMode;
      /** Absolute directories writable beside the working directory and `/tmp` (workspace-write only). */
      writable_roots?: string[];
      /** `"off"` (the default), `"on"`, or the host names (`example.com`, `*.example.com`) commands may reach. */
      network?: "off" | "on" | string[];
    };

/** The `approval_requested` event's data. */
export interface ApprovalRequest {
  call_id: string;
  tool_name: string;
  arguments: { [key: string]: JsonValue };
  /** Why it asks (`the auto-edit approval mode asks before commands`). */
  reason: string;
  /** The rule `"always"` adds: ``shell `cargo test` ``. */
  always: string;
}

export type ApprovalAnswer = "allow" | "deny" | "always" | { decision: "allow" | "deny" | "always"; reason?: string };

/** A task with images: `agent.submit({ text: "fix the layout", images: [file] })`. */
export interface SubmitInput {
  text: string;
  images?: ImageSource[];
}

/**
 * An image for the model: a `Blob` or `File` (pasted, dropped), bytes (a `Uint8Array`, base64 or a
 * `data:` URL; the type is told from the bytes, `mediaType` is not needed), a URL the provider
 * fetches, or a file of `agent.fs`. PNG, JPEG, GIF and WebP (Gemini also HEIC/HEIF), within the
 * provider's size limit, else `submit()` rejects with kind `"input"` before any request.
 */
export type ImageSource =
  | Blob
  | { data: Uint8Array | string; mediaType?: string; name?: string }
  | { url: string }
  | { path: string };

/** What `submit()` rejects with; `input`: an image that cannot be sent (nothing was). */
export interface AgentError extends Error {
  kind: ErrorKind | "closed" | "busy" | "crashed" | "input";
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
