// A stand-in for `fetch` that answers like an OpenAI-compatible server (Chat Completions,
// streamed), from a script, and records what it was sent. Used by the binding tests and the
// Node benchmark; nothing here touches the network.

const chunk = (delta, finishReason = null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", model: "fake", choices: [{ index: 0, delta, finish_reason: finishReason }] })}\n\n`;

const usage = (input, output) =>
  `data: ${JSON.stringify({ id: "chatcmpl-1", object: "chat.completion.chunk", model: "fake", choices: [], usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } })}\n\n`;

/** A streamed answer: text in pieces (split on spaces), then tool calls `{name, arguments}`. */
export function chatStream(text, toolCalls = [], index = 0) {
  let body = chunk({ role: "assistant", content: "" });
  for (const piece of text.split(/(?<= )/).filter(Boolean)) body += chunk({ content: piece });
  toolCalls.forEach((call, i) => {
    const args = JSON.stringify(call.arguments);
    const half = Math.floor(args.length / 2);
    const id = `call_${index}_${i}`;
    body += chunk({ tool_calls: [{ index: i, id, type: "function", function: { name: call.name, arguments: args.slice(0, half) } }] });
    body += chunk({ tool_calls: [{ index: i, function: { arguments: args.slice(half) } }] });
  });
  body += chunk({}, toolCalls.length ? "tool_calls" : "stop");
  return body + usage(10, 5) + "data: [DONE]\n\n";
}

/** The same answer unstreamed, for a request without `"stream": true` (a compaction's summary). */
export function chatCompletion(text, toolCalls = [], index = 0) {
  const tool_calls = toolCalls.map((call, i) => ({ id: `call_${index}_${i}`, type: "function", function: { name: call.name, arguments: JSON.stringify(call.arguments) } }));
  const message = { role: "assistant", content: text, ...(tool_calls.length ? { tool_calls } : {}) };
  const choice = { index: 0, message, finish_reason: tool_calls.length ? "tool_calls" : "stop" };
  return { id: "chatcmpl-1", object: "chat.completion", model: "fake", choices: [choice], usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } };
}

/**
 * A fetch that plays `replies` in order. A reply is `{text, toolCalls}` (a streamed answer),
 * `{status, message, retryAfter}` (an error in OpenAI's shape), `{json}` (a JSON body) or
 * `{hang: true}` (never answers; rejects when aborted), `{stall: text}` (streams `text`, then
 * sends nothing more and never ends; errors when aborted), `{drip: text, everyMs}` (streams the
 * answer's events `everyMs` apart); `delayMs` delays any of them. A
 * request without `"stream": true` gets the answer as one JSON body. `fetch.requests` holds `{url, headers, body}` of each call,
 * and `fetch.signals` the `AbortSignal` each call was given.
 */
export function scriptedFetch(replies) {
  const queue = [...replies];
  const requests = [];
  const signals = [];
  const fetch = async (url, init) => {
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const request = { url, headers, body: null };
    requests.push(request);
    signals.push(init.signal);
    const reply = queue.shift();
    // The agent sends a body as a Blob of its pieces.
    if (init.body) request.body = JSON.parse(await new Response(init.body).text());
    if (reply?.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (!reply) return new Response(JSON.stringify({ error: { message: "the script is exhausted" } }), { status: 500 });
    if (reply.hang) {
      return new Promise((_, reject) => init.signal.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError"))));
    }
    if (reply.stall !== undefined) {
      const bytes = new TextEncoder().encode(chunk({ role: "assistant", content: reply.stall }));
      const body = new ReadableStream({
        start(controller) {
          controller.enqueue(bytes);
          init.signal.addEventListener("abort", () => controller.error(new DOMException("aborted", "AbortError")));
        },
      });
      fetch.stalled = (fetch.stalled ?? 0) + 1;
      init.signal.addEventListener("abort", () => (fetch.aborted = (fetch.aborted ?? 0) + 1));
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    }
    if (reply.drip !== undefined) {
      // The answer's events one at a time, `everyMs` apart: slow, never silent for long.
      const events = chatStream(reply.drip).split(/(?<=\n\n)/).map((event) => new TextEncoder().encode(event));
      const body = new ReadableStream({
        async pull(controller) {
          await new Promise((resolve) => setTimeout(resolve, reply.everyMs));
          const next = events.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    }
    if (reply.json) return new Response(JSON.stringify(reply.json), { headers: { "content-type": "application/json" } });
    if (reply.status) {
      const headers = reply.retryAfter ? { "retry-after": String(reply.retryAfter) } : {};
      return new Response(JSON.stringify({ error: { message: reply.message ?? "error", type: "error" } }), { status: reply.status, headers });
    }
    const [text, toolCalls, index] = [reply.text ?? "", reply.toolCalls ?? [], requests.length];
    if (!requests.at(-1).body?.stream) return Response.json(chatCompletion(text, toolCalls, index));
    return new Response(chatStream(text, toolCalls, index), { headers: { "content-type": "text/event-stream" } });
  };
  fetch.requests = requests;
  fetch.signals = signals;
  return fetch;
}

/** How many timers are pending in Node (`process.getActiveResourcesInfo`); -1 elsewhere. */
export function pendingTimers() {
  return globalThis.process?.getActiveResourcesInfo?.().filter((kind) => kind === "Timeout").length ?? -1;
}

/** An `onEvent` callback that keeps what it is given in `callback.events`. */
export function recorder() {
  const events = [];
  const callback = (event) => events.push(event);
  callback.events = events;
  return callback;
}

/** Drains `agent.events()` with `for await` until it ends; resolves to the events seen. */
export async function collectEvents(iterator) {
  const events = [];
  for await (const event of iterator) events.push(event);
  return events;
}

/** Drains `agent.events()` with `for await` until it ends; resolves to the kinds seen. */
export async function collectKinds(iterator) {
  const kinds = [];
  for await (const event of iterator) kinds.push(event.kind);
  return kinds;
}

/**
 * `fetch` in front of a small MCP server at `http://mcp.test/mcp` (Streamable HTTP, JSON
 * answers, a session id) with one tool, `echo`; any other URL goes to `fetch`. The server's
 * requests are kept in `mcpRequests` of the returned function.
 */
export function withMcpServer(fetch) {
  const mcpRequests = [];
  const routed = async (url, init) => {
    if (!String(url).startsWith("http://mcp.test/")) return fetch(url, init);
    const message = JSON.parse(await new Response(init.body).text());
    mcpRequests.push({ headers: Object.fromEntries(new Headers(init.headers).entries()), message });
    if (message.id === undefined) return new Response(null, { status: 202 });
    const result = {
      initialize: { protocolVersion: message.params?.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: "fake", version: "1" } },
      "tools/list": { tools: [{ name: "echo", description: "Echoes", inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] } }] },
      "tools/call": { content: [{ type: "text", text: `echo: ${message.params?.arguments?.text}` }] },
    }[message.method];
    const answer = result ? { jsonrpc: "2.0", id: message.id, result } : { jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "no such method" } };
    return new Response(JSON.stringify(answer), { headers: { "content-type": "application/json", "mcp-session-id": "s-1" } });
  };
  routed.requests = fetch.requests;
  routed.mcpRequests = mcpRequests;
  return routed;
}
