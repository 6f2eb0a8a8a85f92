// Opt in: the playground against a real model, with the page's fetch going straight to a local
// llama.cpp server (shared/tools/offline-llm/, which answers CORS preflights) and no server of
// ours in between. Set OPENAGENT_E2E_LLM_URL (e.g. http://127.0.0.1:8093) to run it.
//
// It asserts on the protocol and the files, not on the answer's quality: the model's tool calls
// are parsed and run, their results go back in the next request, the file is in the in-memory
// workspace, and the run ends within its round limit.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { holding, openBrowser, recordingProxy, screenshot, send, startPlayground, timelineKinds } from "./harness.mjs";

const SERVER = process.env.OPENAGENT_E2E_LLM_URL?.replace(/\/+$/, "");
const skip = SERVER ? false : "OPENAGENT_E2E_LLM_URL is not set: start shared/tools/offline-llm/serve.py and point it there";
/** A 0.5B model on two CPU threads takes its time. */
const RUN_TIMEOUT_MS = 15 * 60_000;
const ROUNDS = 4;

let playground;
before(async () => {
  if (SERVER) playground = await startPlayground();
});
after(() => playground?.stop());

test("a real model creates and edits a file in the tab's workspace", { skip, timeout: RUN_TIMEOUT_MS + 60_000 }, async () => {
  await holding(async (hold) => {
    // The page's request events do not carry a body sent as a Blob: a proxy keeps them.
    const proxy = hold(await recordingProxy(SERVER), (proxy) => proxy.stop());
    const browser = hold(await openBrowser(), (browser) => browser.close());
    const started = Date.now();
    const { page } = browser;
    const { bodies } = proxy;
    await page.goto(playground.url);
    await page.waitForSelector("body[data-ready=true]");
    await page.click("#local-preset");
    assert.equal(await page.inputValue("#provider"), "openai-compatible");
    await page.fill("#base-url", `${proxy.url}/v1`);
    await page.fill("#max-rounds", String(ROUNDS));
    await page.dispatchEvent("#settings", "change");

    const run = async (task) => {
      await send(page, task);
      await page.waitForSelector("#status[data-state=running]");
      await page.waitForSelector("#status[data-state=idle], #status[data-state=error]", { timeout: RUN_TIMEOUT_MS });
    };
    await run("Use the write_file tool to create notes.txt containing the single line: hello");
    const created = await page.locator("#file-tree .file[data-path='/workspace/notes.txt']").count();
    const firstTask = bodies.length;
    const firstCalls = await page.locator(".tool").count();
    await run("Use the edit_file tool on notes.txt to replace hello with goodbye.");
    await screenshot(page, "real-model-done");
    const seconds = ((Date.now() - started) / 1000).toFixed(1);

    const error = (await page.isVisible("#error")) ? await page.textContent("#error") : "";
    assert.equal(error, "", "the run ended without an error");
    const kinds = await timelineKinds(page);
    const calls = await page.$$eval(".tool", (cards) => cards.map((card) => card.dataset.tool));
    await page.click("#file-tree .file[data-path='/workspace/notes.txt']");
    const text = await page.textContent("#viewer-content");
    console.log(`real model: ${seconds} s, ${bodies.length} requests, tool calls ${JSON.stringify(calls)}, notes.txt ${JSON.stringify(text)}`);

    assert.ok(kinds.includes("tool_call_end"), `a tool call was parsed and run: ${kinds}`);
    // Each result went back to the model: the request after a call carries its tool message.
    const answered = bodies.slice(1).some((body) => body.messages.some((m) => m.role === "tool"));
    assert.ok(answered, "a later request carries the tool result");
    for (const requests of [firstTask, bodies.length - firstTask]) {
      assert.ok(requests >= 1 && requests <= ROUNDS + 1, `each task kept its round limit of ${ROUNDS}: ${requests} requests`);
    }
    assert.ok(calls.includes("write_file"), `the model called write_file: ${calls}`);
    assert.equal(created, 1, "notes.txt was created by the first task");
    const edits = calls.slice(firstCalls);
    assert.ok(edits.some((tool) => tool === "edit_file" || tool === "write_file"), `the second task edited the file: ${edits}`);
    assert.match(text, /goodbye/, "the edit is in the file");
    assert.deepEqual(browser.errors, [], "no uncaught errors in the page");
  });
});
