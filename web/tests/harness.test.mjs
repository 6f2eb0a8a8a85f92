// The harness itself: a test whose set-up fails part way releases what it had started, so the
// file ends with its failure instead of hanging on a server or child left running.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { test } from "node:test";
import { holding } from "./harness.mjs";

test("holding releases what it held, the last first, when a later step throws", async () => {
  const server = createServer();
  const released = [];
  await assert.rejects(
    holding(async (hold) => {
      hold(server, (server) => new Promise((resolve) => server.close(resolve)));
      await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
      hold("first", (name) => released.push(name));
      hold("second", (name) => released.push(name));
      throw new Error("no Chromium here");
    }),
    /no Chromium here/,
  );
  assert.deepEqual(released, ["second", "first"]);
  assert.equal(server.listening, false, "the server was closed");
});

test("holding gives the body's value, and a failed release is reported after the others ran", async () => {
  assert.equal(await holding(async (hold) => hold(7, () => {}) * 6), 42);
  const released = [];
  await assert.rejects(
    holding(async (hold) => {
      hold("kept", (name) => released.push(name));
      hold("broken", () => {
        throw new Error("close failed");
      });
    }),
    /close failed/,
  );
  assert.deepEqual(released, ["kept"]);
  const failure = holding(async (hold) => {
    hold("broken", () => {
      throw new Error("close failed");
    });
    throw new Error("the step's own error");
  });
  await assert.rejects(failure, /the step's own error/, "the body's error is the one reported");
});

test("a browser test file without the mock's binary fails and ends, instead of hanging", () => {
  // The example page's test serves its files, then starts the mock: without MOCK_LLM_BIN that
  // start throws, and the file server it had opened kept the file running for good.
  const env = { ...process.env };
  delete env.MOCK_LLM_BIN;
  delete env.NODE_TEST_CONTEXT; // set for this file by the runner: the inner run would report to it, not print
  const file = new URL("./package.test.mjs", import.meta.url).pathname;
  const run = spawnSync(process.execPath, ["--test", "--test-reporter=spec", file], { env, encoding: "utf8", timeout: 180_000 });
  // At the timeout spawnSync stops the run (which still reports, and exits 1) and says ETIMEDOUT.
  assert.equal(run.error?.code, undefined, `the file ended by itself, not stopped after 180 s:\n${run.stdout}`);
  assert.equal(run.status, 1, run.stdout);
  assert.match(run.stdout, /MOCK_LLM_BIN is not set/);
});
