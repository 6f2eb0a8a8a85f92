// `node` in the agent's shell, in the playground: each run in a Web Worker of its own (the package's
// node.js), driven by the model's `shell` calls (the mock plays them) and checked in the tool cards,
// the file tree and the module's count of live workers. The agent runs on the page's thread here
// (`?worker=off`), so that count is the page's; worker.test.mjs runs node in a WorkerAgent.

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { idle, runScenario, screenshot, send, startPlayground } from "./harness.mjs";

let playground;
before(async () => {
  playground = await startPlayground();
});
after(() => playground?.stop());

const shell = (command, timeout_ms) => ({ name: "shell", arguments: timeout_ms ? { command, timeout_ms } : { command } });

/** The output the model was given for each `shell` call, in order. */
const shellOutputs = (page) => page.$$eval(".tool[data-tool=shell] .tool-output", (cards) => cards.map((card) => card.textContent));

/** The playground with its agent on the page's thread, where node's workers are counted. */
const onPage = () => new URL("?worker=off", playground.url).href;

/** How many node workers the page runs now. */
const liveWorkers = (page) => page.evaluate(async () => (await import("/pkg/node.js")).liveWorkers());

/** Waits until the page runs `count` node workers. (A predicate, not a promise: waitForFunction
 * takes any promise for a truthy answer.) */
async function workersReach(page, count, timeout = 10_000) {
  await page.evaluate(async () => (window.nodeModule = await import("/pkg/node.js")));
  await page.waitForFunction((count) => window.nodeModule.liveWorkers() === count, count, { timeout });
}

test("node -e prints and node FILE runs a script the agent wrote, which writes a file back", async () => {
  const script = [
    "const fs = require('fs');",
    "const { total } = require('./lib/sum');",
    "const numbers = fs.readFileSync('numbers.txt', 'utf8').trim().split('\\n').map(Number);",
    "fs.mkdirSync('out', { recursive: true });",
    "fs.writeFileSync('out/total.json', JSON.stringify({ total: total(numbers), args: process.argv.slice(2) }));",
    "console.log('wrote out/total.json');",
  ].join("\n");
  const writes = [
    { name: "write_file", arguments: { file_path: "numbers.txt", content: "1\n2\n39\n" } },
    { name: "write_file", arguments: { file_path: "lib/sum.js", content: "exports.total = (xs) => xs.reduce((a, b) => a + b, 0);\n" } },
    { name: "write_file", arguments: { file_path: "sum.js", content: script } },
  ];
  const steps = [
    { reply: { text: "Checking node.", tool_calls: [shell("node --version && node -e 'console.log(6 * 7, [1, 2])'")] } },
    { reply: { text: "Writing the script.", tool_calls: writes } },
    { reply: { text: "Running it.", tool_calls: [shell("node sum.js --fast | tr a-z A-Z")] } },
    { reply: { text: "The total is 42." } },
  ];
  await runScenario(onPage(), steps, async (page) => {
    await send(page, "Sum the numbers with a node script");
    await page.waitForSelector("text=The total is 42.");
    await idle(page);
    const outputs = await shellOutputs(page);
    assert.match(outputs[0], /^v22\.0\.0-openagent\n42 \[ 1, 2 \]\nExit code: 0/);
    assert.match(outputs[1], /^WROTE OUT\/TOTAL\.JSON\nExit code: 0/);
    await page.click("#file-tree .file[data-path='/workspace/out/total.json']");
    assert.deepEqual(JSON.parse(await page.textContent("#viewer-content")), { total: 42, args: ["--fast"] });
    assert.equal(await liveWorkers(page), 0, "each run's worker is gone");
    await screenshot(page, "node-1-script-ran");
  });
});

test("a failing script reports its exit code and error; the network is not there", async () => {
  const steps = [
    {
      reply: {
        tool_calls: [
          shell("node -e 'console.error(\"bad input\"); process.exit(3)'; echo status $?"),
          shell("node -e 'null.x'"),
          shell("node -e 'console.log(typeof fetch, typeof XMLHttpRequest, typeof WebSocket, typeof importScripts); fetch(\"/\")'"),
        ],
      },
    },
    { reply: { text: "Done." } },
  ];
  await runScenario(onPage(), steps, async (page) => {
    await send(page, "Try some failures");
    await page.waitForSelector("text=Done.");
    await idle(page);
    const [exit, thrown, network] = await shellOutputs(page);
    assert.match(exit, /^status 3\n\[stderr\]\nbad input\nExit code: 0/);
    assert.match(thrown, /TypeError: Cannot read properties of null \(reading 'x'\)/);
    assert.match(thrown, /Exit code: 1/);
    assert.match(network, /^undefined undefined undefined undefined\n\[stderr\]/);
    assert.match(network, /ReferenceError: fetch is not defined/);
    assert.match(network, /Exit code: 1/);
  });
});

test("a script that loops forever is killed at its timeout, and the page stays responsive", async () => {
  const steps = [{ reply: { tool_calls: [shell("echo start; node -e 'while (true) {}'", 3_000)] } }, { reply: { text: "It never ended." } }];
  await runScenario(onPage(), steps, async (page) => {
    await send(page, "Run the endless loop");
    await workersReach(page, 1);
    // The loop spins in its worker: the page still answers at once, and takes typing.
    const started = Date.now();
    await page.fill("#prompt", "still here");
    assert.equal(await page.evaluate(() => 6 * 7), 42);
    assert.ok(Date.now() - started < 1_000, `the page answered in ${Date.now() - started} ms`);
    await page.waitForSelector("text=It never ended.", { timeout: 15_000 });
    await idle(page);
    const [output] = await shellOutputs(page);
    assert.match(output, /^start\n\[stderr\]\nnode: timed out after \d+ ms; the script was stopped\nExit code: 124/);
    assert.equal(await liveWorkers(page), 0);
    await screenshot(page, "node-2-timed-out");
  });
});

test("stop kills the running script's worker at once", async () => {
  const steps = [{ reply: { tool_calls: [shell("node -e 'setInterval(() => {}, 1000); while (true) {}'", 60_000)] } }, { reply: { text: "too late" } }];
  await runScenario(onPage(), steps, async (page) => {
    await send(page, "Run forever");
    await workersReach(page, 1);
    const started = Date.now();
    await page.click("#stop");
    await workersReach(page, 0, 5_000);
    assert.ok(Date.now() - started < 5_000, "stopped within 5 s");
    await idle(page);
    assert.match(await page.textContent("#transcript"), /Stopped \(interrupted\)/);
  });
});
