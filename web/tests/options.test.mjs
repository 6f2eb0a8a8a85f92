// Agent options a page may get wrong in ways JSON cannot say, against the built package (wasm/pkg)
// in Node: each is refused with an error that names it, and the module goes on working.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { Agent, initSync, MemoryFs } from "../../wasm/pkg/openagent_wasm.js";

initSync({ module: readFileSync(new URL("../../wasm/pkg/openagent_wasm_bg.wasm", import.meta.url)) });

const base = { provider: "openai-compatible", model: "m", baseUrl: "http://127.0.0.1:9/v1", fetch: () => new Promise(() => {}) };

test("options that hold themselves, or whose getter throws, are refused, and the module goes on", () => {
  const circular = { ...base, limits: {} };
  circular.limits.self = circular.limits;
  assert.throws(() => new Agent(circular), (error) => /`limits`: .*nested more than 128 deep/.test(error.message) && error.kind !== "crashed");
  const getter = Object.defineProperty({ ...base }, "instructions", { get: () => { throw new Error("nope"); }, enumerable: true });
  assert.throws(() => new Agent(getter), (error) => /`instructions`: reading it threw: nope/.test(error.message) && error.kind !== "crashed");
  const fs = new MemoryFs();
  fs.write("a.txt", "still working");
  assert.equal(fs.readText("a.txt"), "still working");
  assert.equal(new Agent(base).state, "idle");
});
