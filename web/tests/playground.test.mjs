// The playground end to end in headless Chromium: served by `openagent web`, talking to the
// mock LLM server as an OpenAI-compatible provider. Screenshots of each state are written to
// web/tests/screenshots/.

import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, before, test } from "node:test";
import { idle, runScenario, screenshot, send, startPlayground, timelineKinds } from "./harness.mjs";

let playground;
before(async () => {
  playground = await startPlayground();
});
after(() => playground?.stop());

const scenario = (script, body, baseUrl) => runScenario(playground.url, script, body, baseUrl);

test("a scripted task streams text, shows its tool events and creates a file in the tree", async () => {
  const content = "print('Hello from OpenAgent')\n";
  const script = [
    { reply: { text: "I will write the file now.", tool_calls: [{ name: "write_file", arguments: { file_path: "hello.py", content } }] } },
    { reply: { text: "Created hello.py, which prints a friendly greeting when you run it." } },
  ];
  await scenario(script, async (page) => {
    await screenshot(page, "1-ready");
    await send(page, "Write hello.py that prints a greeting");
    await page.waitForSelector("text=Created hello.py");
    await idle(page);
    // Streamed: the answer came as several deltas, merged into one counted timeline row.
    const deltas = await page.$$eval("#timeline li[data-kind=assistant_text_delta] .kind", (rows) => rows.map((r) => r.textContent));
    assert.ok(deltas.some((label) => /×([2-9]|\d\d)/.test(label)), `deltas: ${deltas}`);
    const kinds = await timelineKinds(page);
    for (const kind of ["session_start", "user_input", "tool_call_start", "tool_call_end", "assistant_text_end", "processing_end"]) {
      assert.ok(kinds.includes(kind), `${kind} in the timeline: ${kinds}`);
    }
    // Expanding a timeline row shows the event's JSON.
    await page.click("#timeline li[data-kind=tool_call_start] button");
    assert.match(await page.textContent("#timeline li[data-kind=tool_call_start] pre"), /"tool_name": "write_file"/);
    // The tool card holds the full output.
    await page.click(".tool[data-tool=write_file] summary");
    assert.match(await page.textContent(".tool[data-tool=write_file] .tool-output"), /hello\.py/);
    // The file is in the tree, with the right content.
    await page.click("#file-tree .file[data-path='/workspace/hello.py']");
    assert.equal(await page.textContent("#viewer-content"), content);
    assert.match(await page.textContent("#usage"), /\d+ tokens/);
    await screenshot(page, "2-task-done");
  });
});

test("a steer typed while the agent runs is injected after the tool round", async () => {
  const script = [
    { fault: { slow_first_byte_ms: 1500 }, reply: { tool_calls: [{ name: "read_file", arguments: { file_path: "README.md" } }] } },
    { reply: { text: "Understood, I will keep it short." } },
  ];
  await scenario(script, async (page) => {
    await send(page, "Summarise the README");
    await page.waitForSelector("#status[data-state=running]");
    await send(page, "Keep it to one sentence");
    await screenshot(page, "3-steering");
    await page.waitForSelector("#timeline li[data-kind=steering_injected]");
    await idle(page);
    assert.match(await page.textContent("#timeline li[data-kind=steering_injected]"), /Keep it to one sentence/);
    assert.match(await page.textContent("#transcript"), /Steered: Keep it to one sentence/);
    const kinds = await timelineKinds(page);
    assert.ok(kinds.indexOf("tool_call_end") < kinds.indexOf("steering_injected"), `steering after the tool round: ${kinds}`);
    await screenshot(page, "4-steered");
  });
});

test("stop ends a long run at once", async () => {
  const script = [{ fault: { slow_first_byte_ms: 30_000 }, reply: { text: "far too late" } }];
  await scenario(script, async (page) => {
    await send(page, "Think for a very long time");
    await page.waitForSelector("#status[data-state=running]");
    await screenshot(page, "5-running");
    const started = Date.now();
    await page.click("#stop");
    await idle(page);
    assert.ok(Date.now() - started < 5_000, "stopped within 5 s");
    assert.match(await page.textContent("#transcript"), /Stopped \(interrupted\)/);
    assert.match(await page.textContent("#timeline li[data-kind=processing_end]"), /interrupted/);
    await screenshot(page, "6-stopped");
  });
});

test("a refused key shows a clear authentication error", async () => {
  await scenario([{ fault: { status: 401, message: "Incorrect API key provided" } }], async (page) => {
    await send(page, "Hello");
    await page.waitForSelector("#error:not([hidden])");
    const error = await page.textContent("#error");
    assert.match(error, /Authentication failed/);
    assert.match(error, /Incorrect API key provided/);
    assert.ok(!error.includes("sk-test-key"), "the key is not shown");
    assert.equal(await page.getAttribute("#status", "data-state"), "error");
    await screenshot(page, "7-auth-error");
  });
});

test("a rate limit is retried and the page says so", async () => {
  const script = [{ fault: { status: 429, retry_after: 1, message: "Rate limit reached" } }, { reply: { text: "Made it after the wait." } }];
  await scenario(script, async (page) => {
    await send(page, "Hello");
    await page.waitForSelector("#error.retry:not([hidden])");
    assert.match(await page.textContent("#error"), /Rate limited: retrying in 1\.0 s/);
    await screenshot(page, "8-rate-limited");
    await page.waitForSelector("text=Made it after the wait.");
    await idle(page);
    assert.ok(await page.isHidden("#error"), "the notice goes once the retry succeeds");
  });
});

test("an unreachable server is explained as one", async () => {
  await scenario(null, async (page) => {
    await send(page, "Hello");
    // A connection failure is retried (twice, after about 1 s and 2 s) before it is reported.
    await page.waitForSelector("#error:not(.retry):not([hidden])", { timeout: 15_000 });
    const error = await page.textContent("#error");
    assert.match(error, /Could not reach the model/);
    assert.match(error, /could not reach http:\/\/127\.0\.0\.1:9\/v1/);
    assert.doesNotMatch(error, /CORS/, "nothing answered, so CORS is not the cause");
    await screenshot(page, "9-unreachable");
  }, "http://127.0.0.1:9/v1");
});

test("a server that answers without CORS headers is named as the cause", async () => {
  // Answers everything, the preflight included, but never with Access-Control-Allow-Origin.
  const server = createServer((request, response) => {
    request.resume();
    response.writeHead(request.method === "OPTIONS" ? 204 : 200, { "content-type": "application/json" });
    response.end(request.method === "OPTIONS" ? undefined : "{}");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  try {
    await scenario(null, async (page) => {
      await send(page, "Hello");
      await page.waitForSelector("#error:not(.retry):not([hidden])", { timeout: 15_000 });
      const error = await page.textContent("#error");
      assert.match(error, /Blocked by CORS/);
      assert.match(error, /answered, but without a CORS header allowing this page's origin \(Access-Control-Allow-Origin\)/);
      await screenshot(page, "9-no-cors");
    }, `http://127.0.0.1:${server.address().port}/v1`);
  } finally {
    server.close();
  }
});

test("the local-server preset points the page at an OpenAI-compatible server on this machine", async () => {
  await scenario(null, async (page) => {
    await page.selectOption("#provider", "anthropic");
    await page.fill("#base-url", "https://gateway.example.com/v1");
    await page.click("#local-preset");
    assert.equal(await page.inputValue("#provider"), "openai-compatible");
    assert.equal(await page.inputValue("#base-url"), "http://127.0.0.1:8080/v1", "a remote URL gives way to the local default");
    assert.equal(await page.inputValue("#model"), "", "the model is asked of the server");
    assert.match(await page.textContent("#settings-hint"), /llama-server .*OLLAMA_ORIGINS=\*/s);
    await page.fill("#base-url", "http://localhost:11434/v1");
    await page.click("#local-preset");
    assert.equal(await page.inputValue("#base-url"), "http://localhost:11434/v1", "a local URL is kept");
  }, "http://127.0.0.1:9/v1");
});

test("with an output schema the structured result and its outcome are shown", async () => {
  const schema = { type: "object", required: ["greeting"], properties: { greeting: { type: "string", minLength: 5 } } };
  const script = [
    { reply: { tool_calls: [{ name: "submit_result", arguments: { greeting: "hi" } }] } },
    { reply: { text: "Here it is.", tool_calls: [{ name: "submit_result", arguments: { greeting: "Hello there" } }] } },
  ];
  await scenario(script, async (page) => {
    await page.fill("#output-schema", JSON.stringify(schema));
    await page.dispatchEvent("#settings", "change");
    await send(page, "Greet me");
    await page.waitForSelector(".result.success");
    await idle(page);
    // The refused first attempt is a failed tool card naming the problem.
    await page.click(".tool.failed[data-tool=submit_result] summary");
    assert.match(await page.textContent(".tool.failed[data-tool=submit_result] .tool-output"), /\/greeting/);
    assert.match(await page.textContent(".result.success .badge"), /success/);
    assert.deepEqual(JSON.parse(await page.textContent(".result.success pre")), { greeting: "Hello there" });
    await screenshot(page, "7-structured-result");
  });
});

test("the header adds up what the agent and its subagents cost, by the catalog's prices", async () => {
  const script = [
    { reply: { tool_calls: [{ name: "spawn_agent", arguments: { task: "say hi" } }, { name: "wait", arguments: { agent_id: "agent_1" } }] } },
    { reply: { text: "hi from the child" } },
    { reply: { text: "The child said hi." } },
  ];
  await scenario(script, async (page) => {
    // gpt-5.2 is $1.75 in and $14 out per million tokens; each mock answer is 10 in and 5 out:
    // 87.5 millionths of a dollar. The parent's two answers alone would show $0.0002.
    await page.fill("#model", "gpt-5.2");
    // The general profile (an OpenAI-compatible server) offers subagents when asked.
    await page.check("#subagents");
    await send(page, "Delegate a greeting");
    await page.waitForSelector("text=The child said hi.");
    await idle(page);
    assert.equal(await page.textContent("#usage"), "45 tokens · 30 in · 15 out · $0.0003");
  });
});
