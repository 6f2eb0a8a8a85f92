// The agent in a Web Worker (`WorkerAgent`, wasm/js/worker-agent.js), in headless Chromium against
// the mock LLM: the whole API through the proxy (a task with tools, the page's callbacks, events,
// steer, interrupt, abort, errors, snapshots, terminate), and the reason for it: a long tool
// leaves the page's frames running, where the same tool on the page's thread stops them.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { holding, idle, openBrowser, runScenario, send, startEverything, startMock, startPlayground } from "./harness.mjs";

let playground;
before(async () => {
  playground = await startPlayground();
});
after(() => playground?.stop());

/**
 * Runs `body(baseUrl, extra)` in a page of the playground's origin, with a mock LLM playing
 * `script`; resolves to what it returns, after checking that the page threw nothing.
 */
function inPage(script, body, extra) {
  return holding(async (hold) => {
    const mock = hold(await startMock(script), (mock) => mock.stop());
    const browser = hold(await openBrowser(), (browser) => browser.close());
    const { page } = browser;
    await page.goto(new URL("worker-test", playground.url).href);
    const result = await page.evaluate(`(${body})(${JSON.stringify(`${mock.url}/v1`)}, ${JSON.stringify(extra)})`);
    assert.deepEqual(browser.errors, [], "no uncaught errors in the page");
    return result;
  });
}

const call = (name, args) => ({ name, arguments: args });

test("a task in the worker: tools, the page's tool, approvals, hooks, fetch and events cross the proxy", async () => {
  const script = [
    { reply: { tool_calls: [call("page_tool", { city: "Oslo" })] } },
    { reply: { tool_calls: [call("write_file", { file_path: "secret.txt", content: "no\n" })] } },
    { reply: { tool_calls: [call("write_file", { file_path: "hello.txt", content: "hello\n" })] } },
    { reply: { text: "Wrote hello.txt." } },
  ];
  const seen = await inPage(script, async (baseUrl) => {
    const { WorkerAgent } = await import("/pkg/worker-agent.js");
    const seen = { kinds: [], iterated: [], asked: [], hooks: [], fetched: [], toolThread: null };
    const agent = await WorkerAgent.create({
      provider: "openai-compatible",
      model: "mock-model",
      apiKey: "sk-test",
      baseUrl,
      approval: "read-only",
      files: { "README.md": "# Hi\n" },
      onEvent: (event) => seen.kinds.push(event.kind),
      onApproval: async (request) => {
        seen.asked.push(request.arguments.file_path);
        return request.arguments.file_path === "secret.txt" ? { decision: "deny", reason: "not that one" } : "allow";
      },
      hooks: {
        userPromptSubmit: (input) => {
          seen.hooks.push(input.prompt);
          return { context: "The user is in Oslo." };
        },
      },
      fetch: (url, init) => {
        seen.fetched.push([url, init.headers instanceof Headers, init.signal instanceof AbortSignal]);
        return fetch(url, init);
      },
    });
    await agent.registerTool({
      name: "page_tool",
      parameters: { type: "object", properties: { city: { type: "string" } } },
      execute: async ({ city }) => {
        seen.toolThread = typeof document;
        return `sunny in ${city}`;
      },
    });
    const iterating = (async () => {
      for await (const event of agent.events()) {
        seen.iterated.push(event.kind);
        if (event.kind === "processing_end") break;
      }
    })();
    const outcome = await agent.submit("Write hello.txt");
    await iterating;
    seen.outcome = { reason: outcome.reason, text: outcome.text };
    seen.getters = { state: agent.state, tokens: agent.usage.total_tokens, model: agent.model, provider: agent.provider, id: typeof agent.sessionId };
    seen.files = await agent.fs.list();
    seen.hello = await agent.fs.readText("hello.txt");
    seen.cwd = agent.fs.workingDirectory;
    seen.tools = await agent.tools();
    agent.terminate();
    return seen;
  });
  assert.deepEqual(seen.outcome, { reason: "completed", text: "Wrote hello.txt." });
  assert.equal(seen.toolThread, "object", "the page's tool ran on the page");
  assert.deepEqual(seen.asked, ["secret.txt", "hello.txt"]);
  assert.deepEqual(seen.hooks, ["Write hello.txt"]);
  assert.equal(seen.fetched.length, 4, "each model call went through the page's fetch");
  assert.match(seen.fetched[0][0], /\/v1\/chat\/completions$/);
  assert.deepEqual(seen.fetched[0].slice(1), [true, true], "its headers and signal crossed as such");
  assert.deepEqual(seen.files, ["/workspace/README.md", "/workspace/hello.txt"], "the denied write did not happen");
  assert.equal(seen.hello, "hello\n");
  assert.equal(seen.cwd, "/workspace");
  assert.ok(seen.tools.includes("page_tool") && seen.tools.includes("shell"), seen.tools.join());
  assert.deepEqual(seen.getters, { state: "idle", tokens: 60, model: "mock-model", provider: "openai-compatible", id: "string" });
  for (const kind of ["session_start", "user_input", "tool_call_start", "approval_requested", "tool_decision", "tool_call_end", "result", "processing_end"]) {
    assert.ok(seen.kinds.includes(kind), `onEvent saw ${kind}: ${seen.kinds}`);
  }
  assert.deepEqual(seen.iterated, seen.kinds.slice(seen.kinds.indexOf(seen.iterated[0]), seen.kinds.indexOf("processing_end") + 1), "events() saw them in the same order");
  assert.equal(seen.kinds.at(-1), "processing_end", "every event of the task came before submit() settled");
});

// Options for the mock, as the page writes them.
const OPTIONS = `{ provider: "openai-compatible", model: "mock-model", apiKey: "sk-test", baseUrl }`;

test("errors keep their shape: bad options, a provider's refusal, a tool's throw, a static's failure", async () => {
  const script = [
    { fault: { status: 401, message: "bad key" } },
    { reply: { tool_calls: [call("page_tool", {})] } },
    { reply: { text: "It failed." } },
  ];
  const seen = await inPage(script, `async (baseUrl) => {
    const { WorkerAgent } = await import("/pkg/worker-agent.js");
    const { default: init, Agent } = await import("/pkg/openagent_wasm.js");
    await init();
    const caught = async (work) => { try { await work(); } catch (e) { return { name: e.name, message: e.message, kind: e.kind, status: e.status }; } };
    const bad = { provider: "openai-compatible", baseUrl, model: "m", limits: { maxTurnz: 3 } };
    const seen = {
      options: await caught(() => WorkerAgent.create(bad)),
      onPage: await caught(() => new Agent(bad)),
      snapshot: await caught(() => WorkerAgent.checkSnapshot("{ not json")),
      snapshotOnPage: await caught(() => Agent.checkSnapshot("{ not json")),
    };
    const agent = await WorkerAgent.create(${OPTIONS});
    seen.refused = await caught(() => agent.submit("hello"));
    seen.state = agent.state;
    seen.closed = await caught(() => agent.submit("again"));
    agent.terminate();
    const next = await WorkerAgent.create(${OPTIONS});
    await next.registerTool({ name: "page_tool", execute: () => { throw new TypeError("no weather today"); } });
    const ends = [];
    const events = next.events();
    await next.submit("the weather");
    for await (const event of events) {
      if (event.kind === "tool_call_end") ends.push(event.data.error);
      if (event.kind === "processing_end") break;
    }
    seen.toolError = ends;
    seen.effort = await caught(() => next.setReasoningEffort("extreme"));
    next.terminate();
    return seen;
  }`);
  assert.match(seen.options.message, /invalid Agent options: .*maxTurnz/);
  assert.deepEqual(seen.options, seen.onPage, "the same error as the Agent's on the page");
  assert.deepEqual(seen.snapshot, seen.snapshotOnPage);
  assert.equal(seen.refused.kind, "authentication");
  assert.equal(seen.refused.status, 401);
  assert.match(seen.refused.message, /bad key/);
  assert.equal(seen.state, "closed", "an authentication error closes the session");
  assert.equal(seen.closed.kind, "closed");
  assert.match(seen.toolError[0], /no weather today/);
  assert.match(seen.effort.message, /reasoning effort "extreme" is not one of/);
});

test("a worker that cannot start rejects create() with kind crashed instead of hanging", async () => {
  const browser = await openBrowser();
  try {
    const { page } = browser;
    await page.route("**/pkg/agent-worker.js", (route) => route.fulfill({ status: 404, body: "gone" }));
    await page.goto(new URL("worker-test", playground.url).href);
    const seen = await page.evaluate(async () => {
      const { WorkerAgent } = await import("/pkg/worker-agent.js");
      const failed = (work) => work.then(() => "resolved", (e) => [e.kind, e.message]);
      return [await failed(WorkerAgent.create({ provider: "openai" })), await failed(WorkerAgent.checkSnapshot("{}"))];
    });
    for (const [kind, message] of seen) {
      assert.equal(kind, "crashed");
      assert.match(message, /the agent's worker failed: .*agent-worker\.js could not be loaded/);
    }
  } finally {
    await browser.close();
  }
});

test("steer, interrupt and abort reach the running agent", async () => {
  const slow = (reply) => ({ fault: { slow_first_byte_ms: 1500 }, reply });
  const script = [
    slow({ tool_calls: [call("shell", { command: "echo one" })] }),
    { reply: { text: "Steered." } },
    slow({ text: "never seen" }),
    slow({ text: "never seen either" }),
  ];
  const seen = await inPage(script, `async (baseUrl) => {
    const { WorkerAgent } = await import("/pkg/worker-agent.js");
    const kinds = [];
    const steered = [];
    const agent = await WorkerAgent.create({ ...${OPTIONS}, onEvent: (e) => {
      kinds.push(e.kind);
      if (e.kind === "steering_injected") steered.push(e.data.content);
    } });
    const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    const running = agent.submit("one");
    await wait(300);
    await agent.steer("and say Steered");
    const first = await running;
    const interrupted = agent.submit("two");
    await wait(300);
    await agent.interrupt();
    const second = await interrupted;
    const events = agent.events();
    const aborted = agent.submit("three");
    await wait(300);
    await agent.abort();
    const third = await aborted.then((o) => o.reason, (e) => e.kind);
    const after = [];
    for await (const event of events) after.push(event.kind);
    return { steered, first: first.text, second: [second.reason, second.state], third, state: agent.state, last: after.at(-1), kinds: kinds.slice(-2) };
  }`);
  assert.deepEqual(seen.steered, ["and say Steered"]);
  assert.equal(seen.first, "Steered.");
  assert.deepEqual(seen.second, ["interrupted", "idle"]);
  assert.equal(seen.state, "closed");
  assert.equal(seen.last, "session_end", "events() ended with the session");
  assert.equal(seen.kinds.at(-1), "session_end");
  assert.equal(seen.third, "aborted");
});

test("getApiKey, followUp and an AbortSignal work through the proxy", async () => {
  const script = [{ fault: { slow_first_byte_ms: 800 }, reply: { text: "First." } }, { reply: { text: "Second." } }];
  const seen = await inPage(script, `async (baseUrl) => {
    const { WorkerAgent } = await import("/pkg/worker-agent.js");
    const controller = new AbortController();
    let asked = 0;
    const agent = await WorkerAgent.create({
      provider: "openai-compatible", model: "mock-model", baseUrl, signal: controller.signal,
      getApiKey: async () => { asked += 1; return "sk-from-the-page"; },
    });
    const running = agent.submit("first");
    await new Promise((resolve) => setTimeout(resolve, 200));
    await agent.followUp("second");
    const outcome = await running;
    const events = agent.events();
    controller.abort();
    const kinds = [];
    for await (const event of events) kinds.push(event.kind);
    return { text: outcome.text, asked, kinds, state: agent.state };
  }`);
  assert.equal(seen.text, "Second.", "the follow-up ran after the first task");
  assert.equal(seen.asked, 2, "the key was asked of the page before each model call");
  assert.deepEqual(seen.kinds, ["session_end"], "the page's signal aborted the agent in the worker");
  assert.equal(seen.state, "closed");
});

test("snapshot, restore, compaction, files and discoverModel through the proxy", async () => {
  const script = [
    { reply: { tool_calls: [call("write_file", { file_path: "notes.md", content: "first\n" })] } },
    { reply: { text: "Wrote notes.md." } },
    { reply: { text: "Summary: notes.md was written." } },
    { reply: { text: "Still here." } },
  ];
  const seen = await inPage(script, `async (baseUrl) => {
    const { WorkerAgent } = await import("/pkg/worker-agent.js");
    const kinds = [];
    const first = await WorkerAgent.create({ ...${OPTIONS}, compaction: { keepRecentTokens: 1 }, onEvent: (e) => kinds.push(e.kind) });
    await first.submit("Write notes");
    await first.compact();
    await first.fs.write("bytes.bin", new Uint8Array([0, 1, 2, 255]));
    await first.fs.mkdir("empty/dir");
    const snapshot = await first.snapshot();
    first.terminate();
    const again = await WorkerAgent.create({ ...${OPTIONS}, snapshot: JSON.stringify(snapshot) });
    const outcome = await again.submit("Are you there?");
    const listing = { data: [{ id: "served-model" }] };
    const discovered = await WorkerAgent.discoverModel({
      provider: "openai-compatible",
      baseUrl,
      fetch: async () => new Response(JSON.stringify(listing), { headers: { "content-type": "application/json" } }),
    });
    const bytes = await again.fs.read("bytes.bin");
    const seen = {
      kinds: kinds.filter((k) => k.startsWith("compaction")),
      sameId: again.sessionId === snapshot.session_id,
      history: (await again.snapshot()).state.history.map((turn) => turn.type),
      text: outcome.text,
      notes: await again.fs.readText("notes.md"),
      bytes: bytes instanceof Uint8Array ? [...bytes] : null,
      discovered,
    };
    await again.fs.remove("empty", true);
    seen.files = await again.fs.list();
    again.terminate();
    return seen;
  }`);
  assert.deepEqual(seen.kinds, ["compaction_start", "compaction_end"]);
  assert.equal(seen.sameId, true);
  assert.equal(seen.history[0], "summary", `the compacted history went on: ${seen.history}`);
  assert.equal(seen.history.at(-1), "assistant");
  assert.equal(seen.text, "Still here.");
  assert.equal(seen.notes, "first\n");
  assert.deepEqual(seen.bytes, [0, 1, 2, 255]);
  assert.equal(seen.discovered, "served-model", "the page's fetch answered the worker with a Response");
  assert.deepEqual(seen.files, ["/workspace/bytes.bin", "/workspace/notes.md"]);
});

test("terminate() ends the worker: waiting calls reject as closed, later ones too, events() ends", async () => {
  const script = [{ fault: { slow_first_byte_ms: 5000 }, reply: { text: "never seen" } }];
  const seen = await inPage(script, `async (baseUrl) => {
    const { WorkerAgent } = await import("/pkg/worker-agent.js");
    const agent = await WorkerAgent.create(${OPTIONS});
    const events = agent.events();
    const kinds = [];
    const iterating = (async () => { for await (const event of events) kinds.push(event.kind); })();
    const running = agent.submit("wait for it");
    await new Promise((resolve) => setTimeout(resolve, 300));
    agent.terminate();
    const reason = (work) => work.then(() => "resolved", (e) => [e.kind, e.message]);
    const seen = { running: await reason(running), later: await reason(agent.tools()), files: await reason(agent.fs.list()) };
    await iterating;
    return { ...seen, state: agent.state, kinds, fresh: await agent.events().next() };
  }`);
  assert.deepEqual(seen.running, ["closed", "the agent's worker was terminated"]);
  assert.deepEqual(seen.later, seen.running);
  assert.deepEqual(seen.files, seen.running);
  assert.equal(seen.state, "closed");
  assert.ok(seen.kinds.includes("user_input"), `events() saw the task start: ${seen.kinds}`);
  assert.deepEqual(seen.fresh, { done: true });
});

test("node given to a WorkerAgent runs beside the agent's files in its worker, and interrupt stops it", async () => {
  // The second script writes a heartbeat to the agent's files until it is stopped.
  const beat = "setInterval(() => require('fs').appendFileSync('beat.txt', '.'), 50)";
  const script = [
    { reply: { tool_calls: [call("shell", { command: "echo 21 > n.txt && node -e \"console.log(2 * require('fs').readFileSync('n.txt', 'utf8'))\"" })] } },
    { reply: { text: "Doubled." } },
    { reply: { tool_calls: [call("shell", { command: `node -e "${beat}"`, timeout_ms: 60_000 })] } },
    { reply: { text: "never seen" } },
  ];
  const seen = await inPage(script, `async (baseUrl) => {
    const { WorkerAgent } = await import("/pkg/worker-agent.js");
    const { nodeCommand, liveWorkers } = await import("/pkg/node.js");
    const outputs = [];
    const agent = await WorkerAgent.create({ ...${OPTIONS}, commands: { node: nodeCommand() },
      onEvent: (e) => e.kind === "tool_call_end" && outputs.push(e.data.output) });
    const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
    const beats = () => agent.fs.readText("beat.txt").then((text) => text.length, () => 0);
    const doubled = await agent.submit("double it");
    const running = agent.submit("beat");
    let before = 0;
    for (let i = 0; i < 100 && before < 5; i++) before = await wait(100).then(beats);
    const growing = (await wait(300).then(beats)) > before;
    await agent.interrupt();
    const stopped = await running;
    const settled = await wait(300).then(beats);
    const later = await wait(1000).then(beats);
    return { doubled: doubled.text, output: outputs[0], growing, reason: stopped.reason, settled, later, pageWorkers: liveWorkers() };
  }`);
  assert.equal(seen.doubled, "Doubled.");
  assert.match(seen.output, /^42\n/, "node read the file the shell wrote, in the agent's worker");
  assert.ok(seen.growing, "the heartbeat grew while the script ran");
  assert.equal(seen.reason, "interrupted");
  assert.equal(seen.later, seen.settled, `no beat after the interrupt: ${seen.settled} then ${seen.later}`);
  assert.equal(seen.pageWorkers, 0, "the node workers were the agent worker's, not the page's");
});

test("an MCP server added through the proxy serves the model's call from the worker", async (t) => {
  const everything = await startEverything();
  if (!everything) return t.skip("server-everything is not installed");
  const script = [{ reply: { tool_calls: [call("mcp__everything__echo", { message: "from the worker" })] } }, { reply: { text: "Echoed." } }];
  try {
    const seen = await inPage(
      script,
      `async (baseUrl, url) => {
        const { WorkerAgent } = await import("/pkg/worker-agent.js");
        const outputs = [];
        const agent = await WorkerAgent.create({ ...${OPTIONS}, onEvent: (e) => e.kind === "tool_call_end" && outputs.push(e.data.output) });
        const added = await agent.addMcpServer({ name: "everything", url });
        const duplicate = await agent.addMcpServer({ name: "everything", url }).catch((e) => e.message);
        await agent.submit("Echo");
        agent.terminate();
        return { tools: added.tools, duplicate, outputs };
      }`,
      everything.url,
    );
    assert.ok(seen.tools.includes("mcp__everything__echo"), seen.tools.join());
    assert.match(seen.duplicate, /was added already/);
    assert.match(seen.outputs[0], /Echo: from the worker/);
  } finally {
    everything.stop();
  }
});

test("a long tool in the worker leaves the page's frames running; on the page's thread it stops them", async () => {
  // A real tool at work, not a sleep: the built-in grep for lines with a digit, written as models
  // do (`.*\d`, which backtracks over each line from every position), over 30 MB of in-memory
  // files with none: about 2 s.
  const grep = { reply: { tool_calls: [call("grep", { pattern: ".*\\d", path: "/workspace" })] } };
  const script = [grep, { reply: { text: "Not found." } }, grep, { reply: { text: "Not found." } }];
  const seen = await inPage(script, `async (baseUrl) => {
    const { WorkerAgent } = await import("/pkg/worker-agent.js");
    const { default: init, Agent } = await import("/pkg/openagent_wasm.js");
    await init();
    const line = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor\\n";
    const files = {};
    for (let i = 0; i < 300; i++) files["src/file" + i + ".txt"] = line.repeat(1250);
    const seen = {};
    for (const [where, make] of [["worker", WorkerAgent.create], ["page", async (options) => new Agent(options)]]) {
      let toolMs = 0;
      const agent = await make({ ...${OPTIONS}, files, onEvent: (e) => { if (e.kind === "tool_call_end") toolMs = e.data.duration_ms; } });
      // The page's frames while the task runs: how many, and the longest wait between two.
      const gaps = [];
      let last = performance.now();
      let counting = true;
      const frame = (now) => {
        gaps.push(now - last);
        last = now;
        if (counting) requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
      const started = performance.now();
      await agent.submit("Find the needle");
      counting = false;
      seen[where] = { toolMs, ms: Math.round(performance.now() - started), frames: gaps.length, longestGap: Math.round(Math.max(...gaps)) };
      agent.terminate?.();
    }
    return seen;
  }`);
  const { worker, page } = seen;
  console.log("frames while the grep runs:", JSON.stringify(seen));
  assert.ok(worker.toolMs >= 500 && page.toolMs >= 500, `the grep took long enough to tell: ${JSON.stringify(seen)}`);
  assert.ok(worker.longestGap < Math.max(100, worker.toolMs / 5), `in the worker the page kept drawing: ${JSON.stringify(worker)}`);
  assert.ok(worker.frames >= (worker.toolMs / 1000) * 20, `at a healthy rate: ${JSON.stringify(worker)}`);
  assert.ok(page.longestGap >= page.toolMs * 0.8, `on the page's thread the grep froze it: ${JSON.stringify(page)}`);
});

test("the playground runs its agent in a worker (not with ?worker=off); a file uploaded meanwhile reaches it", async () => {
  const read = { reply: { tool_calls: [call("read_file", { file_path: "added.txt" })] } };
  const script = [{ reply: { text: "Ready." } }, read, { reply: { text: "Read it." } }, { reply: { text: "On the page." } }];
  await runScenario(playground.url, script, async (page) => {
    const workers = [];
    page.on("worker", (worker) => workers.push(new URL(worker.url()).pathname));
    await send(page, "Get ready");
    await page.waitForSelector("text=Ready.");
    await idle(page);
    assert.deepEqual(workers, ["/pkg/agent-worker.js"]);
    // The agent holds the files now: an upload goes to its copy as well as to the panel's.
    await page.setInputFiles("#upload", { name: "added.txt", mimeType: "text/plain", buffer: Buffer.from("uploaded after the agent started\n") });
    await page.waitForSelector("#file-tree .file[data-path='/workspace/added.txt']");
    await send(page, "Read added.txt");
    await page.waitForSelector("text=Read it.");
    await idle(page);
    await page.click(".tool[data-tool=read_file] summary");
    assert.match(await page.textContent(".tool[data-tool=read_file] .tool-output"), /uploaded after the agent started/);

    await page.goto(`${playground.url}?worker=off`);
    await page.waitForSelector("body[data-ready=true]");
    await send(page, "And now?");
    await page.waitForSelector("text=On the page.");
    await idle(page);
    assert.deepEqual(workers, ["/pkg/agent-worker.js"], "with ?worker=off no worker was started");
  });
});

test("a worker that crashes mid-task: the task rejects, the agent is closed, its events end, the page's fetch is aborted", async () => {
  await holding(async (hold) => {
    const browser = hold(await openBrowser(), (browser) => browser.close());
    const { page } = browser;
    // The real worker, which throws from a timer once it is sent "crash now" (an uncaught error
    // ends a worker): the page's fetch sends it, so the task is waiting on that fetch.
    const stub = `import "./agent-worker.js?real";
      const take = self.onmessage;
      self.onmessage = (message) => {
        take(message);
        if (JSON.stringify(message.data).includes("crash now")) setTimeout(() => { throw new Error("boom"); });
      };`;
    await page.route("**/pkg/agent-worker.js", (route) => route.fulfill({ contentType: "text/javascript", body: stub }));
    await page.goto(new URL("worker-test", playground.url).href);
    const seen = await page.evaluate(async () => {
      const { WorkerAgent } = await import("/pkg/worker-agent.js");
      let fetchSignal, agent;
      // A server that never answers, on the page: the task waits on it when the worker dies.
      const fetch = (url, init) => {
        fetchSignal = init.signal;
        agent.fs.write("/tmp/trigger", "crash now").catch(() => {});
        return new Promise(() => {});
      };
      agent = await WorkerAgent.create({ provider: "openai-compatible", model: "m", apiKey: "k", baseUrl: "http://127.0.0.1:9/v1", fetch, maxRetries: 0 });
      const events = agent.events();
      const submitted = agent.submit("wait").then(() => "resolved", (e) => e.kind);
      const first = await events.next();
      const task = await submitted;
      const rest = [];
      for (;;) {
        const step = await Promise.race([events.next(), new Promise((r) => setTimeout(() => r("pending"), 2000))]);
        if (step === "pending" || step.done) {
          rest.push(step === "pending" ? "still pending" : "ended");
          break;
        }
      }
      return { first: first.value.kind, task, state: agent.state, events: rest[0], fetchAborted: fetchSignal?.aborted };
    });
    assert.deepEqual(seen, { first: "session_start", task: "crashed", state: "closed", events: "ended", fetchAborted: true });
  });
});

test("through the proxy: a page command gets the agent's files, fs.workingDirectory follows a restore, one next() at a time", async () => {
  const script = [{ reply: { tool_calls: [call("shell", { command: "show notes.md" })] } }, { reply: { text: "Shown." } }];
  const seen = await inPage(
    script,
    `async (baseUrl) => {
      const { WorkerAgent } = await import("/pkg/worker-agent.js");
      const outputs = [];
      const commands = { show: async ({ argv, fs }) => ({ stdout: await fs.readText(argv[1]) + fs.workingDirectory }) };
      const agent = await WorkerAgent.create({ ...${OPTIONS}, files: { "notes.md": "# Hi\\n" }, commands, onEvent: (e) => e.kind === "tool_call_end" && outputs.push(e.data.output) });
      await agent.submit("Show the notes");
      const snapshot = await agent.fs.snapshot();
      await agent.fs.restore({ ...snapshot, working_directory: "/project" });
      const events = agent.events();
      events.next(); // waits for an event that comes only with a next task
      const twice = await events.next().then(() => "resolved", (e) => e.message);
      const answer = { output: outputs[0], workingDirectory: agent.fs.workingDirectory, twice };
      agent.terminate();
      return answer;
    }`,
  );
  assert.match(seen.output, /^# Hi\n\/workspace/);
  assert.equal(seen.workingDirectory, "/project");
  assert.match(seen.twice, /call next\(\) again only after the previous call settled/);
});
