// `python` for the agent's shell (the package's python.js): Pyodide, from the npm package that
// scripts/test-all installs (PYODIDE_DIR), served here with CORS as a CDN would, in a Web Worker per
// run. The runs are driven from the page itself, as the shell tool would call the command.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { extname, join } from "node:path";
import { after, before, test } from "node:test";
import { allStarted, idle, openBrowser, runScenario, send, startPlayground } from "./harness.mjs";

const PYODIDE_DIR = process.env.PYODIDE_DIR;
const TYPES = { ".mjs": "text/javascript", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

/** Serves `dir` on 127.0.0.1 to any origin; resolves to { url, stop }. */
function serve(dir) {
  const server = createServer((request, response) => {
    const file = join(dir, decodeURIComponent(new URL(request.url, "http://host").pathname));
    const found = file.startsWith(dir) && existsSync(file);
    response.writeHead(found ? 200 : 404, { "content-type": TYPES[extname(file)] ?? "application/octet-stream", "access-control-allow-origin": "*" });
    response.end(found ? readFileSync(file) : undefined);
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${server.address().port}/`, stop: () => server.close() })),
  );
}

let playground;
let pyodide;
let browser;
before(async () => {
  if (!PYODIDE_DIR) return;
  await allStarted([
    startPlayground().then((p) => (playground = p)),
    serve(PYODIDE_DIR).then((s) => (pyodide = s)),
    openBrowser().then((b) => (browser = b)),
  ]);
  await browser.page.goto(playground.url);
  await browser.page.waitForSelector("body[data-ready=true]");
});
after(async () => {
  await browser?.close();
  pyodide?.stop();
  playground?.stop();
});

/** Runs `python3 ARGS` in the page on `files` and `dirs`, aborted after `abortAfterMs` if given; the answer as text, and the files after. */
function python(args, { files = {}, dirs = [], stdin = "", timeoutMs = 30_000, abortAfterMs } = {}) {
  return browser.page.evaluate(
    async ({ args, files, dirs, stdin, timeoutMs, abortAfterMs, indexURL }) => {
      const { MemoryFs } = await import("/pkg/openagent_wasm.js");
      const { pythonCommand } = await import("/pkg/python.js");
      const fs = new MemoryFs();
      for (const [file, text] of Object.entries(files)) fs.write(file, text);
      for (const dir of dirs) fs.mkdir(dir);
      const controller = new AbortController();
      if (abortAfterMs) setTimeout(() => controller.abort(), abortAfterMs);
      const call = { argv: ["python3", ...args], stdin: new TextEncoder().encode(stdin), cwd: "/workspace", env: { HOME: "/workspace", GREETING: "hi" }, timeoutMs, signal: controller.signal, fs };
      const answer = await pythonCommand({ indexURL })(call);
      const text = (bytes) => (typeof bytes === "string" ? bytes : new TextDecoder().decode(bytes ?? new Uint8Array()));
      const after = Object.fromEntries(fs.list().map((file) => [file, fs.readText(file)]));
      const { liveWorkers } = await import("/pkg/node.js");
      return { stdout: text(answer.stdout), stderr: text(answer.stderr), exitCode: answer.exitCode ?? 0, files: after, live: liveWorkers() };
    },
    { args, files, dirs, stdin, timeoutMs, abortAfterMs, indexURL: pyodide.url },
  );
}

const skip = PYODIDE_DIR ? false : "PYODIDE_DIR is not set (scripts/test-all installs Pyodide and sets it)";

test("python runs code and files over the agent's files, with argv, environment and exit codes", { skip }, async () => {
  const code = await python(["-c", "import os, sys; print(6 * 7, sys.argv, os.getcwd(), os.environ['GREETING'])"]);
  assert.deepEqual(code, { stdout: "42 ['-c'] /workspace hi\n", stderr: "", exitCode: 0, files: {}, live: 0 });
  const script = "import sys\nwords = open('in.txt').read().split()\nopen('out/count.txt', 'w').write(str(len(words)))\nprint(sys.stdin.read().strip(), sys.argv[1:])\nsys.exit(3)\n";
  const ran = await python(["count.py", "--all"], { files: { "count.py": script, "in.txt": "a b c", "out/keep": "" }, stdin: "piped" });
  assert.equal(ran.stdout, "piped ['--all']\n");
  assert.equal(ran.exitCode, 3);
  assert.equal(ran.files["/workspace/out/count.txt"], "3", "the file the script wrote is in the agent's files");
  assert.equal(await python(["--version"]).then((answer) => answer.stdout), "Python 3.14.2\n");
  const empty = await python(["-c", "import os; print(os.path.isdir('dist'))"], { dirs: ["/workspace/dist"] });
  assert.equal(empty.stdout, "True\n", "an empty directory of the agent's is there");
});

test("an exception prints its traceback with exit code 1; a bad option is exit code 2", { skip }, async () => {
  const failed = await python(["-c", "def f():\n    return 1 / 0\nf()"]);
  assert.equal(failed.exitCode, 1);
  assert.equal(failed.stderr, 'Traceback (most recent call last):\n  File "<string>", line 3, in <module>\n  File "<string>", line 2, in f\nZeroDivisionError: division by zero\n');
  const refused = await python(["-X"]);
  assert.equal(refused.exitCode, 2);
  assert.match(refused.stderr, /^python3: unknown option -X\nusage: python/);
});

test("an endless loop is killed at its timeout, an abort kills it at once, and no file changes", { skip }, async () => {
  const files = { "loop.py": "open('partial.txt', 'w').write('x')\nwhile True:\n    pass\n" };
  const timedOut = await python(["loop.py"], { files, timeoutMs: 8_000 });
  assert.equal(timedOut.exitCode, 124);
  assert.equal(timedOut.stderr, "python3: timed out after 8000 ms; the script was stopped\n");
  assert.deepEqual(Object.keys(timedOut.files), ["/workspace/loop.py"], "a stopped script's writes are not applied");
  assert.equal(timedOut.live, 0);
  const started = Date.now();
  const aborted = await python(["loop.py"], { files, abortAfterMs: 6_000 });
  assert.equal(aborted.exitCode, 130);
  assert.ok(Date.now() - started < 7_500, "stopped at the abort");
  assert.equal(aborted.live, 0);
});

test("the playground's python loads Pyodide from openagent web, with no network, in the agent's worker", { skip }, async () => {
  // `openagent web` serves npm's Pyodide from the tools directory, the one PYODIDE_DIR names.
  const head = await fetch(new URL("pyodide/pyodide.mjs", playground.url), { method: "HEAD" });
  assert.equal(head.status, 200, "openagent web serves /pyodide/ from the tools directory test-all installs into");
  const steps = [
    { reply: { tool_calls: [{ name: "shell", arguments: { command: "python3 -c 'print(6 * 7)'", timeout_ms: 60_000 } }] } },
    { reply: { text: "Forty-two." } },
  ];
  await runScenario(playground.url, steps, async (page) => {
    const fetched = [];
    page.on("request", (request) => fetched.push(new URL(request.url()).host));
    await send(page, "Multiply in Python");
    await page.waitForSelector("text=Forty-two.", { timeout: 60_000 });
    await idle(page);
    assert.match(await page.textContent(".tool[data-tool=shell] .tool-output"), /^42\n/);
    const elsewhere = fetched.filter((host) => !host.startsWith("127.0.0.1"));
    assert.deepEqual(elsewhere, [], "nothing was fetched from outside this machine");
  });
});

