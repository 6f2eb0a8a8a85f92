// The modules scripts/build-wasm splits out of the package's main one (wasm/src/split.rs), against
// the built package (wasm/pkg) in Node: each test loads its own copy of the glue and the main
// module, beside only the split modules it names, so it sees what a page without the others gets.

import assert from "node:assert/strict";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const PKG = fileURLToPath(new URL("../../wasm/pkg/", import.meta.url));
const SPLIT = existsSync(PKG) ? readdirSync(PKG).filter((name) => /^openagent_wasm_(?!bg\.)\w+\.wasm$/.test(name)) : [];
const skip = SPLIT.length ? false : "wasm/pkg has no split modules: build it with scripts/build-wasm, with wasm-split-cli on PATH";
if (skip) console.log(`# skipped: ${skip}`);

const dirs = [];
after(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A fresh copy of the package with the split modules `names` (as `chat`), and its glue, initialised. */
async function packageWith(...names) {
  const dir = mkdtempSync(join(tmpdir(), "openagent-split-"));
  dirs.push(dir);
  for (const file of ["openagent_wasm.js", "openagent_wasm_bg.wasm", ...names.map((name) => `openagent_wasm_${name}.wasm`)]) {
    copyFileSync(join(PKG, file), join(dir, file));
  }
  const glue = await import(join(dir, "openagent_wasm.js"));
  glue.initSync({ module: (await import("node:fs")).readFileSync(join(dir, "openagent_wasm_bg.wasm")) });
  return { glue, add: (name) => copyFileSync(join(PKG, `openagent_wasm_${name}.wasm`), join(dir, `openagent_wasm_${name}.wasm`)) };
}

const sse = (events) =>
  new Response(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join("") + "data: [DONE]\n\n", { headers: { "content-type": "text/event-stream" } });

/** A chat-completions server that answers with `shell` running `command`, then with "done". */
function shellOnce(command) {
  let calls = 0;
  return async () =>
    ++calls === 1
      ? sse([
          { id: "1", choices: [{ index: 0, delta: { role: "assistant", tool_calls: [{ index: 0, id: "c1", type: "function", function: { name: "shell", arguments: JSON.stringify({ command }) } }] } }] },
          { id: "1", choices: [{ index: 0, delta: {}, finish_reason: "tool_calls" }] },
        ])
      : sse([{ id: "2", choices: [{ index: 0, delta: { content: "done" }, finish_reason: "stop" }] }]);
}

const options = { model: "m", apiKey: "sk-test-key-0123", baseUrl: "http://127.0.0.1:9/v1", maxRetries: 0 };
const codecs = { "openai-compatible": "chat", anthropic: "anthropic", gemini: "gemini", openai: "openai" };

test("each provider's first call needs only its own codec's module", { skip }, async () => {
  for (const [provider, codec] of Object.entries(codecs)) {
    const { glue } = await packageWith(codec);
    // A 401 is read by the codec (its error parser), so it can only be answered from the module.
    const fetch = async () => new Response(JSON.stringify({ error: { message: "bad key from the server" } }), { status: 401 });
    const agent = new glue.Agent({ ...options, provider, fetch });
    await assert.rejects(agent.submit("hi"), (error) => {
      assert.equal(error.kind, "authentication", `${provider}: ${error.message}`);
      assert.match(error.message, /bad key from the server/, provider);
      return true;
    });
  }
});

test("a codec's module that cannot be loaded is a network error naming it; the next call loads it", { skip }, async () => {
  const { glue, add } = await packageWith();
  const agent = new glue.Agent({ ...options, provider: "openai-compatible", fetch: shellOnce("echo unused") });
  await assert.rejects(agent.submit("hi"), (error) => {
    assert.equal(error.kind, "network");
    assert.match(error.message, /the package's chat module \(openagent_wasm_chat\.wasm\) could not be loaded: .*ENOENT/);
    return true;
  });
  assert.equal(agent.state, "idle");
  add("chat");
  // The shell's module is missing too: the model's command fails as a tool result, and the run goes on.
  const outcome = await agent.submit("again");
  assert.equal(outcome.resultText, "done");
  const results = agent.snapshot().state.history.flatMap((turn) => (turn.type === "tool_results" ? turn.results : []));
  assert.match(JSON.stringify(results), /openagent_wasm_shell\.wasm\) could not be loaded/);
  add("shell");
  const agent2 = new glue.Agent({ ...options, provider: "openai-compatible", fetch: shellOnce("mkdir -p d && echo split | tr a-z A-Z > d/out.txt") });
  assert.equal((await agent2.submit("go")).resultText, "done");
  assert.equal(agent2.fs.readText("d/out.txt"), "SPLIT\n");
});
