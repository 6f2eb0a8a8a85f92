// How `node` (the package's node.js) runs scripts, driven from the page as the shell tool calls it:
// when a run ends (top-level await, timers, process.exit, uncaught errors), require, stdin, the
// output cap and Node's error shapes. The agent's side is in node.test.mjs.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { allStarted, openBrowser, startPlayground } from "./harness.mjs";

let playground;
let browser;
before(async () => {
  await allStarted([startPlayground().then((p) => (playground = p)), openBrowser().then((b) => (browser = b))]);
  await browser.page.goto(playground.url);
  await browser.page.waitForSelector("body[data-ready=true]");
});
after(async () => {
  await browser?.close();
  playground?.stop();
});

/** Runs `node ARGS` in the page on `files`; the answer as text, the files after, and the live workers. */
function node(args, { files = {}, dirs = [], stdin = "", timeoutMs = 10_000, options = {} } = {}) {
  return browser.page.evaluate(
    async ({ args, files, dirs, stdin, timeoutMs, options }) => {
      const { MemoryFs } = await import("/pkg/openagent_wasm.js");
      const { nodeCommand, liveWorkers } = await import("/pkg/node.js");
      const fs = new MemoryFs();
      for (const [file, text] of Object.entries(files)) fs.write(file, text);
      for (const dir of dirs) fs.mkdir(dir);
      const call = { argv: ["node", ...args], stdin: new TextEncoder().encode(stdin), cwd: "/workspace", env: { HOME: "/workspace" }, timeoutMs, signal: new AbortController().signal, fs };
      const answer = await nodeCommand(options)(call);
      const text = (bytes) => (typeof bytes === "string" ? bytes : new TextDecoder().decode(bytes ?? new Uint8Array()));
      const after = Object.fromEntries(fs.list().map((file) => [file, fs.readText(file)]));
      return { stdout: text(answer.stdout), stderr: text(answer.stderr), exitCode: answer.exitCode ?? 0, files: after, live: liveWorkers() };
    },
    { args, files, dirs, stdin, timeoutMs, options },
  );
}

test("a run ends once its promise has settled and no timer is left", async () => {
  const script = [
    "setTimeout(() => console.log('timer 2'), 40);",
    "await new Promise((resolve) => setTimeout(resolve, 10));",
    "console.log('awaited 1');",
    "const unref = setInterval(() => {}, 1000); unref.unref();",
    "process.on('exit', (code) => console.log('exit', code));",
  ].join("\n");
  const ran = await node(["-e", script]);
  assert.deepEqual([ran.stdout, ran.exitCode, ran.live], ["awaited 1\ntimer 2\nexit 0\n", 0, 0]);
  const unsettled = await node(["-e", "await new Promise(() => {})"]);
  assert.equal(unsettled.exitCode, 13, "nothing can settle the promise: Node's exit code 13");
  assert.match(unsettled.stderr, /unsettled top-level await/);
  assert.equal((await node(["-e", "process.exitCode = 4; setTimeout(() => {}, 5)"])).exitCode, 4);
  const exited = await node(["-e", "setTimeout(() => { console.log('a'); process.exit(7); console.log('b') }, 5)"]);
  assert.deepEqual([exited.stdout, exited.exitCode], ["a\n", 7]);
});

test("an uncaught error, in a timer or a rejected promise, prints where and exits 1", async () => {
  const files = { "app.js": "const a = 1;\nsetTimeout(() => {\n  a.b.c = 2;\n}, 5);\n" };
  const thrown = await node(["app.js"], { files });
  assert.equal(thrown.exitCode, 1);
  assert.match(thrown.stderr, /^\/workspace\/app\.js:3\n {2}a\.b\.c = 2;\n {8}\^\n\nTypeError: Cannot set properties of undefined \(setting 'c'\)\n {4}at .*\/workspace\/app\.js:3:9/);
  const rejected = await node(["-e", "Promise.reject(new RangeError('nope'))"]);
  assert.deepEqual([rejected.exitCode, /RangeError: nope/.test(rejected.stderr)], [1, true]);
  const syntax = await node(["-e", "import fs from 'fs'"]);
  assert.match(syntax.stderr, /SyntaxError: Cannot use import statement outside a module\n\(this node runs CommonJS only/);
  const missing = await node(["missing.js"]);
  assert.match(missing.stderr, /Error: Cannot find module '\/workspace\/missing\.js'/);
  assert.equal(missing.exitCode, 1);
});

test("require finds built-ins, relative files, JSON and packages; stdin reaches the script", async () => {
  const files = {
    "src/main.js": "const { greet } = require('./lib');\nconst data = require('../data.json');\nconst pad = require('left-pad');\nconsole.log(greet(data.name), pad('x', 3), require.main === module, require('node:path').basename(__filename));",
    "src/lib/index.js": "exports.greet = (name) => `hello ${name}`;",
    "data.json": '{"name": "json"}',
    "node_modules/left-pad/package.json": '{"main": "pad.js"}',
    "node_modules/left-pad/pad.js": "module.exports = (s, n) => s.padStart(n, '.');",
  };
  const ran = await node(["src/main.js"], { files });
  assert.deepEqual([ran.stdout, ran.stderr], ["hello json ..x true main.js\n", ""]);
  const piped = await node(["-e", "let all = ''; process.stdin.on('data', (d) => (all += d)); process.stdin.on('end', () => console.log(all.toUpperCase()))"], { stdin: "piped text" });
  assert.equal(piped.stdout, "PIPED TEXT\n");
  const unknown = await node(["-e", "require('child_process')"]);
  assert.match(unknown.stderr, /Cannot find module 'child_process'\. This node has the built-in modules fs, /);
});

test("output is cut at the cap, the worker writes files as it goes, and allowNetwork keeps fetch", async () => {
  const flood = await node(["-e", "for (let i = 0; i < 100000; i++) console.log('line', i)"], { options: { maxOutputBytes: 1000 } });
  assert.equal(flood.stdout.length, 1000);
  assert.match(flood.stderr, /node: output cut at 1000 bytes/);
  const partial = await node(["-e", "require('fs').writeFileSync('before.txt', 'kept'); while (true) {}"], { timeoutMs: 1_500 });
  assert.equal(partial.exitCode, 124);
  assert.equal(partial.files["/workspace/before.txt"], "kept", "a write made before the timeout is kept");
  const online = await node(["-e", "const answer = await fetch('/'); console.log(typeof fetch, answer.status)"], { options: { allowNetwork: true } });
  assert.deepEqual([online.stdout, online.exitCode], ["function 200\n", 0], "allowNetwork leaves fetch, and the run waits for it");
  const refused = await node([]);
  assert.deepEqual([refused.exitCode, /no interactive REPL/.test(refused.stderr)], [9, true]);
});

test("messages the script posts itself cannot hang the run; one long write is cut to the cap", async () => {
  const forged = await node(["-e", "postMessage({ type: 'out', fd: 1, data: {} }); postMessage({ type: 'out', fd: 7, data: 'x' }); console.log('bye')"]);
  assert.deepEqual([forged.stdout, forged.exitCode, forged.live], ["bye\n", 0, 0], "a malformed message is dropped");
  const long = await node(["-e", "console.log('x'.repeat(5e6))"], { options: { maxOutputBytes: 1000 } });
  assert.deepEqual([long.stdout, long.exitCode], ["x".repeat(1000), 0]);
  assert.match(long.stderr, /output cut at 1000 bytes/);
  const bytes = await node(["-e", "process.stdout.write(Buffer.alloc(5e6, 120))"], { options: { maxOutputBytes: 1000 } });
  assert.deepEqual([bytes.stdout, bytes.exitCode], ["x".repeat(1000), 0]);
  const exact = await node(["-e", "console.log('123456789'); console.log('123456789'); console.log('lost')"], { options: { maxOutputBytes: 20 } });
  assert.equal(exact.stdout, "123456789\n123456789\n");
  assert.match(exact.stderr, /output cut at 20 bytes/, "output dropped right at the cap is said too");
});

test("a file the page could not save fails the run; a path with a NUL byte is refused as Node does", async () => {
  const unsaved = await node(["-e", "postMessage({ type: 'fs', op: 'write', path: '/workspace/a\\0b', data: new Uint8Array(1) }); console.log('saved')"]);
  assert.equal(unsaved.exitCode, 1, "the script said it succeeded, but its file was not saved");
  assert.match(unsaved.stderr, /could not be saved to the agent's files/);
  const nul = await node(["-e", "require('fs').writeFileSync('report\\0.txt', 'data'); console.log('saved')"]);
  assert.equal(nul.exitCode, 1);
  assert.match(nul.stderr, /ERR_INVALID_ARG_VALUE|without null bytes/);
  assert.equal(nul.stdout, "");
});

test("platform work keeps the run going until it is done; a promise the code ends with is not waited on", async () => {
  const script = [
    "crypto.subtle.digest('SHA-256', new Uint8Array(1 << 20)).then((hash) => console.log('hash', new Uint8Array(hash).length));",
    "new Blob(['blob text']).text().then((text) => console.log(text));",
  ].join("\n");
  const ran = await node(["-e", script]);
  assert.deepEqual([ran.stdout.split("\n").sort().join("\n"), ran.exitCode], ["\nblob text\nhash 32", 0]);
  const network = { options: { allowNetwork: true } };
  const body = await node(["-e", "const answer = await fetch('/'); const text = await answer.text(); console.log(text.length > 0)"], network);
  assert.deepEqual([body.stdout, body.exitCode], ["true\n", 0], "reading the body is waited for");
  const chained = await node(["-e", "fetch('/').then((r) => r.text()).then((t) => require('fs').writeFileSync('page.html', t))"], network);
  assert.equal(chained.exitCode, 0);
  assert.ok(chained.files["/workspace/page.html"]?.length > 0, "the body was written before the run ended");
  const streamed = await node(["-e", "let n = 0; for await (const chunk of (await fetch('/')).body) n += chunk.length; console.log(n > 0)"], network);
  assert.deepEqual([streamed.stdout, streamed.exitCode], ["true\n", 0], "a body read as a stream is waited for");
  const dangling = await node(["-e", "new Promise(() => {})"]);
  assert.deepEqual([dangling.exitCode, dangling.stderr], [0, ""], "as node -e: nothing is left to run");
});

test("exit listeners set the exit code; stdin's readable event, timer refresh and clearing by number work as in Node", async () => {
  const codes = await Promise.all(
    [
      "process.on('exit', () => { process.exitCode = 9 })",
      "process.on('exit', () => process.exit(5)); process.exit(2)",
      "process.on('exit', () => { throw new Error('in exit') })",
      "process.on('uncaughtException', () => { throw new Error('handler broke') }); setTimeout(() => { throw new Error('first') }, 5)",
      "process.on('uncaughtException', (e) => console.log('caught', e.message)); setTimeout(() => { throw new Error('first') }, 5)",
    ].map((code) => node(["-e", code])),
  );
  assert.deepEqual(codes.map((run) => run.exitCode), [9, 5, 1, 7, 0]);
  assert.equal(codes[4].stdout, "caught first\n");
  const readable = "let all = ''; process.stdin.on('readable', () => { let c; while ((c = process.stdin.read()) !== null) all += c }); process.stdin.on('end', () => console.log('got', all))";
  assert.equal((await node(["-e", readable], { stdin: "hello" })).stdout, "got hello\n");
  const timers = [
    "const start = Date.now(); const t = setTimeout(() => console.log('late', Date.now() - start >= 140), 100); setTimeout(() => t.refresh(), 50);",
    "const n = setTimeout(() => console.log('not cleared'), 50); clearTimeout(+n);",
    "const r = setTimeout(() => { console.log('fired'); r.ref() }, 5);",
  ].join("\n");
  const ran = await node(["-e", timers], { timeoutMs: 5_000 });
  assert.deepEqual([ran.stdout, ran.exitCode], ["fired\nlate true\n", 0]);
});

test("a timeout longer than setTimeout can hold does not end the run at once", async () => {
  const ran = await node(["-e", "setTimeout(() => console.log('done'), 200)"], { timeoutMs: null, options: { timeoutMs: Infinity } });
  assert.deepEqual([ran.stdout, ran.exitCode], ["done\n", 0]);
  const long = await node(["-e", "setTimeout(() => console.log('done'), 200)"], { timeoutMs: 3e9 });
  assert.deepEqual([long.stdout, long.exitCode], ["done\n", 0]);
});

test("without allowNetwork, fonts loaded from a URL and the origin's private files are not there either", async () => {
  const ran = await node(["-e", "console.log(typeof fetch, typeof FontFace, typeof navigator.storage)"]);
  assert.deepEqual([ran.stdout, ran.exitCode], ["undefined undefined undefined\n", 0]);
});

test("an empty directory made before the run is there for the script", async () => {
  const script = "const fs = require('fs'); console.log(fs.existsSync('dist'), fs.readdirSync('.')); fs.writeFileSync('dist/out.js', 'built')";
  const ran = await node(["-e", script], { dirs: ["/workspace/dist"] });
  assert.deepEqual([ran.stdout, ran.exitCode], ["true [ 'dist' ]\n", 0]);
  assert.equal(ran.files["/workspace/dist/out.js"], "built");
});
