// Compiled (not run) against the generated wasm/pkg/openagent_wasm.d.ts by `tsc --strict`:
// the API is typed for real. Each @ts-expect-error fails the build if its line ever type-checks,
// which it would if a type decayed to `any`.

import init, { Agent, MemoryFs } from "../../wasm/pkg/openagent_wasm.js";
import { WorkerAgent } from "../../wasm/pkg/worker-agent.js";
import type { WorkerMemoryFs } from "../../wasm/pkg/worker-agent.js";
import type {
  AgentError, AgentEvent, AgentOptions, HostCommandCall, ImageSource, Outcome, SessionSnapshot, Snapshot, SubmitInput, Turn, Usage,
} from "../../wasm/pkg/openagent_wasm.js";
import { liveWorkers, NODE_VERSION, nodeCommand } from "../../wasm/pkg/node.js";
import { PYTHON_VERSION, pythonCommand } from "../../wasm/pkg/python.js";

export async function example(apiKey: string): Promise<string> {
  await init();
  const options: AgentOptions = {
    provider: "anthropic",
    apiKey,
    reasoningEffort: "high",
    sandbox: { mode: "workspace-write", writable_roots: ["/data"], network: ["crates.io"] },
    limits: { maxTurns: 20 },
    files: { "README.md": "# Hi\n" },
    onEvent: (event: AgentEvent) => console.log(event.kind),
  };
  const agent = new Agent(options);
  agent.registerTool({
    name: "weather",
    parameters: { type: "object", properties: { city: { type: "string" } } },
    execute: async (args) => `sunny in ${String(args.city)}`,
  });
  for await (const event of agent.events()) {
    if (event.kind === "tool_call_end") {
      const output: string | null = event.data.output;
      const ms: number = event.data.duration_ms;
      console.log(output, ms);
    }
    if (event.kind === "compaction_end") {
      const summarized: number = event.data.summarized_turns;
      const failed: string | null = event.data.error;
      console.log(summarized, failed, event.data.reason === "manual");
    }
    if (event.kind === "compaction_start") {
      // @ts-expect-error: a compaction is started for one of three reasons
      const why: typeof event.data.reason = "bored";
      console.log(event.data.tokens_before, event.data.context_window, why);
    }
    if (event.kind === "assistant_text_delta") {
      // @ts-expect-error: a delta event has no `output`
      console.log(event.data.output);
    }
  }
  const outcome: Outcome = await agent.submit("hello").catch((error: AgentError) => {
    const kind: string = error.kind;
    throw new Error(kind);
  });
  const images: ImageSource[] = [new Blob([]), { data: new Uint8Array([137]), mediaType: "image/png" }, { data: "iVBORw==" }, { url: "https://example.com/a.png" }, { path: "shot.png" }];
  const input: SubmitInput = { text: "fix the layout", images };
  await agent.submit(input);
  // @ts-expect-error: an image is a Blob, bytes, a URL or a path, not a number
  await agent.submit({ text: "x", images: [1] });
  const usage: Usage = outcome.usage;
  // @ts-expect-error: tokens are numbers
  const wrong: string = usage.total_tokens;
  const snapshot: Snapshot = agent.fs.snapshot();
  const fs = new MemoryFs();
  fs.restore(snapshot);
  fs.write("a.bin", new Uint8Array([1, 2]));
  await agent.compact();
  const saved: SessionSnapshot = agent.snapshot();
  const files: Snapshot | null = saved.environment;
  const first: Turn | undefined = saved.state.history[0];
  if (first?.type === "assistant") {
    for (const part of first.message.content) if (part.kind === "tool_call") console.log(part.tool_call.name);
  }
  Agent.checkSnapshot(JSON.stringify(saved));
  const again = new Agent({
    provider: "anthropic", apiKey, snapshot: saved, contextWindow: 200_000, compaction: { thresholdPercent: 70, keepRecentTokens: 20_000 },
  });
  new Agent({ provider: "anthropic", apiKey, snapshot: JSON.stringify(saved) });
  // @ts-expect-error: a snapshot is an object or its JSON text
  new Agent({ provider: "anthropic", snapshot: 42 });
  if (first?.type === "user") {
    // @ts-expect-error: a user turn's content is text
    const content: number = first.content;
    console.log(content);
  }
  console.log(files, again.sessionId, saved.state.total_usage.total_tokens);
  const hello = async (call: HostCommandCall) => {
    call.fs.write("hello.txt", call.stdin);
    return { stdout: `hello ${call.argv[1]} in ${call.cwd} (${call.timeoutMs ?? "no"} ms left)`, exitCode: call.signal.aborted ? 130 : 0 };
  };
  const python = pythonCommand({ indexURL: "/pyodide/", timeoutMs: 30_000 });
  new Agent({ provider: "anthropic", apiKey, commands: { node: nodeCommand({ timeoutMs: 5_000, allowNetwork: false }), python, hello } });
  // @ts-expect-error: indexURL is a URL's text
  pythonCommand({ indexURL: 3 });
  // @ts-expect-error: a command answers { stdout, stderr, exitCode }
  new Agent({ provider: "anthropic", commands: { bad: () => 42 } });
  const workers: number = liveWorkers() + NODE_VERSION.length + PYTHON_VERSION.length;
  console.log(workers);
  new Agent({ provider: "anthropic", sandbox: "read-only" });
  // @ts-expect-error: the sandbox modes are read-only, workspace-write and full-access
  new Agent({ provider: "anthropic", sandbox: "sandboxed" });
  // @ts-expect-error: the provider is one of four
  new Agent({ provider: "openia" });
  // @ts-expect-error: the reasoning effort is a known level
  agent.setReasoningEffort("extreme");
  // @ts-expect-error: a stop reason is a known word
  const reason: typeof outcome.reason = "finished";
  return outcome.text + fs.list().join() + fs.listDirectories().join() + wrong + reason;
}

// The same agent in a Web Worker: each method returns a Promise, the getters stay synchronous.
export async function inWorker(apiKey: string): Promise<string> {
  const agent: WorkerAgent = await WorkerAgent.create({
    provider: "anthropic",
    apiKey,
    onEvent: (event: AgentEvent) => console.log(event.kind),
    onApproval: async (request) => (request.tool_name === "shell" ? "deny" : "allow"),
    hooks: { preToolUse: async (input) => (input.tool_name === "shell" ? { block: "no commands" } : undefined) },
  });
  await agent.registerTool({ name: "clock", execute: () => new Date().toISOString() });
  const outcome: Outcome = await agent.submit({ text: "fix the layout", images: [{ path: "shot.png" }] });
  const tools: string[] = await agent.tools();
  // @ts-expect-error: a proxied method returns a Promise, not its value
  const sync: string[] = agent.tools();
  const saved: SessionSnapshot = await agent.snapshot();
  await agent.steer("also the footer");
  await agent.setReasoningEffort(null);
  const fs: WorkerMemoryFs = agent.fs;
  await fs.write("a.bin", new Uint8Array([1, 2]));
  const bytes: Uint8Array = await fs.read("a.bin");
  const text: string = await fs.readText("a.txt");
  // @ts-expect-error: the files are read through a Promise
  const now: string = fs.readText("a.txt");
  for await (const event of agent.events()) if (event.kind === "session_end") break;
  const model: string = await WorkerAgent.discoverModel({ provider: "openai-compatible", baseUrl: "http://127.0.0.1:8080/v1" });
  await WorkerAgent.checkSnapshot(JSON.stringify(saved));
  // @ts-expect-error: a WorkerAgent is made with create(), which starts its worker
  new WorkerAgent();
  agent.terminate();
  return [outcome.text, tools, sync, bytes.length, text, now, model, agent.state, agent.usage.total_tokens, fs.workingDirectory].join();
}
