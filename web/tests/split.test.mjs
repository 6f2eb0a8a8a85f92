// The modules scripts/build-wasm splits out of the package's main one (wasm/src/split.rs), against
// the built package (wasm/pkg) in Node: each test loads its own copy of the glue and the main
// module, beside only the split modules it names, so it sees what a page without the others gets.

import assert from "node:assert/strict";
import { copyFileSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { fileURLToPath } from "node:url";

const PKG = fileURLToPath(new URL("../../wasm/pkg/", import.meta.url));
const SPLIT = existsSync(PKG) ? readdirSync(PKG).filter((name) => /^openagent_wasm_\w+-[0-9a-f]{10}\.wasm$/.test(name)) : [];
/** The file of the split module `name` (as `chat`), which is named for its build. */
const fileOf = (name) => SPLIT.find((file) => file.startsWith(`openagent_wasm_${name}-`));
const skip = SPLIT.length ? false : "wasm/pkg has no split modules: build it with scripts/build-wasm, with wasm-split-cli on PATH";
if (skip) console.log(`# skipped: ${skip}`);

const dirs = [];
const servers = [];
after(() => {
  dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
  servers.forEach((server) => server.closeAllConnections() || server.close());
});

/** A fresh copy of the package with the split modules `names` (as `chat`), and its glue, initialised. */
async function packageWith(...names) {
  const dir = mkdtempSync(join(tmpdir(), "openagent-split-"));
  dirs.push(dir);
  for (const file of ["openagent_wasm.js", "openagent_wasm_bg.wasm", ...names.map(fileOf)]) {
    copyFileSync(join(PKG, file), join(dir, file));
  }
  // Built without esbuild, the glue's snippets (split.js among them) are files of their own.
  if (existsSync(join(PKG, "snippets"))) cpSync(join(PKG, "snippets"), join(dir, "snippets"), { recursive: true });
  const glue = await import(join(dir, "openagent_wasm.js"));
  glue.initSync({ module: readFileSync(join(dir, "openagent_wasm_bg.wasm")) });
  return { dir, glue, add: (name) => copyFileSync(join(PKG, fileOf(name)), join(dir, fileOf(name))) };
}

/**
 * Serves the chat and shell modules from a folder of their own on 127.0.0.1, holding back the
 * body of any file `stall` matches; it stops after the tests. `asked` lists the files requested.
 */
async function serveModules(stall = () => false) {
  const dir = mkdtempSync(join(tmpdir(), "openagent-split-cdn-"));
  dirs.push(dir);
  for (const name of ["chat", "shell"]) copyFileSync(join(PKG, fileOf(name)), join(dir, fileOf(name)));
  const asked = [];
  const server = createServer((request, response) => {
    const path = new URL(request.url, "http://x").pathname;
    asked.push(path.slice(1));
    const file = join(dir, decodeURIComponent(path));
    if (!existsSync(file)) return response.writeHead(404).end();
    response.writeHead(200, { "content-type": "application/wasm" });
    if (stall(file)) return response.write(readFileSync(file).subarray(0, 100));
    response.end(readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return { url: `http://127.0.0.1:${server.address().port}/`, asked };
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

test("the shell's module is fetched by the first command, not before", { skip }, async () => {
  const { glue } = await packageWith();
  const { url, asked } = await serveModules();
  glue.modulesFrom(url);
  const answer = async () => sse([{ id: "1", choices: [{ index: 0, delta: { content: "done" }, finish_reason: "stop" }] }]);
  const agent = new glue.Agent({ ...options, provider: "openai-compatible", fetch: answer });
  assert.equal((await agent.submit("hi")).resultText, "done");
  assert.deepEqual(asked, [fileOf("chat")]);
  const runs = new glue.Agent({ ...options, provider: "openai-compatible", fetch: shellOnce("echo ran > r.txt") });
  assert.equal((await runs.submit("go")).resultText, "done");
  assert.equal(runs.fs.readText("r.txt"), "ran\n");
  assert.deepEqual(asked, [fileOf("chat"), fileOf("shell")]);
});

test("a codec's module that cannot be loaded is a network error naming it; the next call loads it", { skip }, async () => {
  const { dir, glue, add } = await packageWith();
  // Another build's module, as a server holds after a new release: a page asks for its own build's.
  copyFileSync(join(PKG, fileOf("chat")), join(dir, "openagent_wasm_chat-0123456789.wasm"));
  const agent = new glue.Agent({ ...options, provider: "openai-compatible", fetch: shellOnce("echo unused") });
  await assert.rejects(agent.submit("hi"), (error) => {
    assert.equal(error.kind, "network");
    assert.match(error.message, /the package's chat module could not be loaded: ENOENT.*openagent_wasm_chat-(?!0123456789)[0-9a-f]{10}\.wasm/);
    return true;
  });
  assert.equal(agent.state, "idle");
  add("chat");
  // The shell's module is missing too: the model's command fails as a tool result, and the run goes on.
  const outcome = await agent.submit("again");
  assert.equal(outcome.resultText, "done");
  const results = agent.snapshot().state.history.flatMap((turn) => (turn.type === "tool_results" ? turn.results : []));
  assert.match(JSON.stringify(results), /the package's shell module could not be loaded: ENOENT.*openagent_wasm_shell-[0-9a-f]{10}\.wasm/);
  add("shell");
  const agent2 = new glue.Agent({ ...options, provider: "openai-compatible", fetch: shellOnce("mkdir -p d && echo split | tr a-z A-Z > d/out.txt") });
  assert.equal((await agent2.submit("go")).resultText, "done");
  assert.equal(agent2.fs.readText("d/out.txt"), "SPLIT\n");
});

test("modulesFrom fetches the modules from elsewhere; one silent for 30 s fails and is fetched again", { skip, timeout: 60_000 }, async () => {
  const { dir, glue } = await packageWith();
  let stalling = true;
  const { url } = await serveModules((file) => stalling && file.includes("openagent_wasm_chat-"));
  assert.throws(() => glue.modulesFrom("http://[::1"), TypeError);
  assert.throws(() => glue.modulesFrom(42), /modulesFrom: a URL or a string, not number/);
  glue.modulesFrom(new URL(url.slice(0, -1))); // the folder, with or without its slash, as a URL or a string
  const agent = new glue.Agent({ ...options, provider: "openai-compatible", fetch: shellOnce("echo from elsewhere > e.txt") });
  const started = Date.now();
  await assert.rejects(agent.submit("hi"), (error) => {
    assert.equal(error.kind, "network");
    assert.match(error.message, /chat module could not be loaded: http:\/\/127\.0\.0\.1:\d+\/openagent_wasm_chat-[0-9a-f]{10}\.wasm sent nothing for 30 s/);
    return true;
  });
  assert.ok(Date.now() - started >= 29_000);
  stalling = false;
  assert.equal((await agent.submit("again")).resultText, "done");
  assert.equal(agent.fs.readText("e.txt"), "from elsewhere\n");
  assert.ok(!existsSync(join(dir, fileOf("chat"))), "nothing was read from beside the glue");
});
