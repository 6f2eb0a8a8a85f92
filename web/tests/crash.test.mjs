// A crash of the built package (wasm/pkg) in Node: a trap out of the module must not leave the page
// waiting. Running out of memory is a real trap (no panic hook ever runs for it); the browser
// build's panics trap the same way. In a file of its own: the crash is for good in this process.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Agent, initSync, MemoryFs } from "../../wasm/pkg/openagent_wasm.js";

initSync({ module: readFileSync(new URL("../../wasm/pkg/openagent_wasm_bg.wasm", import.meta.url)) });

const options = {
  provider: "openai-compatible",
  model: "m",
  baseUrl: "http://model.invalid/v1",
  fetch: () => new Promise(() => {}), // a server that never answers: the task stays pending
  readTimeoutMs: 1000, // its timer, still set at the crash, fires into the crashed module
};

const isCrashed = (error) => error?.kind === "crashed" && /OpenAgent crashed .*Reload/.test(error.message);

test("a module that runs out of memory crashes cleanly: the pending task rejects, every later call throws", async () => {
  const logged = [];
  const consoleError = console.error;
  console.error = (message) => logged.push(String(message));
  try {
    const agent = new Agent(options);
    const task = agent.submit("wait");
    const settled = task.then(
      () => "resolved",
      (error) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));

    // Each write holds 1 GiB in the module's memory (and copies it on the way in): the fourth
    // GiB of a 32-bit memory cannot be had.
    const chunk = new Uint8Array(1 << 30);
    let thrown;
    for (let i = 0; i < 8 && !thrown; i++) {
      try {
        agent.fs.write(`/workspace/big-${i}.bin`, chunk);
      } catch (error) {
        thrown = error;
      }
    }
    assert.ok(isCrashed(thrown), `the write that ran out of memory: ${thrown?.stack ?? thrown}`);
    assert.ok(thrown.cause instanceof WebAssembly.RuntimeError, `the trap is its cause: ${thrown.cause}`);

    const outcome = await Promise.race([settled, new Promise((resolve) => setTimeout(() => resolve("still pending"), 2000))]);
    assert.ok(isCrashed(outcome), `the pending task: ${outcome?.message ?? outcome}`);

    assert.throws(() => agent.steer("more"), isCrashed);
    assert.throws(() => agent.fs.list(), isCrashed);
    assert.throws(() => new Agent(options), isCrashed);
    assert.throws(() => new MemoryFs(), isCrashed);
    assert.throws(() => Agent.discoverModel(options), isCrashed);
    // The read timeout's timer calls into the crashed module: nothing is thrown where no one can catch it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(logged.filter((line) => line.startsWith("OpenAgent crashed")).length, 1, logged.join("\n"));
  } finally {
    console.error = consoleError;
  }
});
