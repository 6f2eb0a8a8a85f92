// What the browser tests stand on: `openagent web` serving the playground, a `mock-llm` per
// scenario playing a script, and headless Chromium (Debian's, driven by playwright-core) with a
// fresh profile. Binaries come from OPENAGENT_BIN and MOCK_LLM_BIN (scripts/test-all builds them).

import { spawn } from "node:child_process";
import { createServer as createHttpServer } from "node:http";
import { createConnection, createServer } from "node:net";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

export const SCREENSHOTS = new URL("./screenshots/", import.meta.url).pathname;
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync",
];

function need(name) {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the browser tests through scripts/test-all, which builds the binaries`);
  return value;
}

/** Starts a program that prints its URL on its first line; resolves to { url, stop }. */
function startServer(command, args, pattern) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    // A server that never says where it listens is stopped: a child left running keeps Node, and
    // the test file, from ending.
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`${command} printed no URL within 20 s: ${out}`));
    }, 20_000);
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`${command} exited with ${code} before printing its URL: ${out}`)));
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = out.match(pattern);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1], stop: () => child.kill() });
      }
    });
  });
}

export function startPlayground() {
  return startServer(need("OPENAGENT_BIN"), ["web", "--port", "0"], /(http:\/\/127\.0\.0\.1:\d+\/)/);
}

/**
 * A mock LLM server playing `script` (see the openagent-tests crate docs). `requests()` resolves
 * to what it was sent so far, `[{method, path, body}]`: a page's request events do not carry a
 * body sent as a `Blob`, as the agent sends it.
 */
export function startMock(script) {
  const dir = mkdtempSync(join(tmpdir(), "openagent-e2e-"));
  const file = join(dir, "script.json");
  writeFileSync(file, JSON.stringify(script));
  return startServer(need("MOCK_LLM_BIN"), ["--script", file], /listening on (http:\/\/127\.0\.0\.1:\d+)/).then((server) => ({
    ...server,
    requests: async () => (await fetch(`${server.url}/mock/requests`)).json(),
    stop: () => {
      server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  }));
}

/** A free port of 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/**
 * The MCP reference server `server-everything` in its Streamable HTTP mode on 127.0.0.1 (its
 * `/mcp` allows every origin), from MCP_EVERYTHING with the MCP_BIND_LOCAL preload; resolves to
 * { url, stop }, or null (after saying why) when scripts/test-all did not provide it.
 */
export async function startEverything() {
  const [script, preload] = [process.env.MCP_EVERYTHING, process.env.MCP_BIND_LOCAL];
  if (!script || !preload) {
    console.log("skipped: MCP_EVERYTHING and MCP_BIND_LOCAL are not set (scripts/test-all sets them)");
    return null;
  }
  const port = await freePort();
  const child = spawn(process.execPath, ["--require", preload, script, "streamableHttp"], {
    env: { ...process.env, PORT: String(port) },
    stdio: "ignore",
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const up = await new Promise((resolve) => {
      const socket = createConnection(port, "127.0.0.1", () => {
        socket.end();
        resolve(true);
      });
      socket.on("error", () => resolve(false));
    });
    if (up) break;
    if (Date.now() > deadline) {
      child.kill();
      throw new Error(`server-everything did not listen on port ${port} within 20 s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url: `http://127.0.0.1:${port}/mcp`, stop: () => child.kill() };
}

/**
 * Waits for every start in `starts`, each of which keeps what it started for an `after` hook to
 * stop, then throws the first failure. `Promise.all` would throw at once, and a start still
 * running then outlives `after`, keeping Node from ending.
 */
export async function allStarted(starts) {
  const failed = (await Promise.allSettled(starts)).find((result) => result.status === "rejected");
  if (failed) throw failed.reason;
}

/** A fresh browser profile with one page; `close()` removes it all. Console errors are kept. */
export async function openBrowser() {
  const profile = mkdtempSync(join(tmpdir(), "openagent-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    args: CHROMIUM_ARGS,
    viewport: { width: 1440, height: 900 },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors = [];
  page.on("pageerror", (error) => errors.push(String(error)));
  return {
    page,
    errors,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export async function screenshot(page, name) {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * Opens the playground at `url` pointed at a mock playing `script` (or at `baseUrl`), as an
 * OpenAI-compatible provider, runs `body(page, browser, mock)`, checks that the page threw
 * nothing, and cleans up.
 */
export function runScenario(url, script, body, baseUrl) {
  return holding(async (hold) => {
    const mock = script ? hold(await startMock(script), (mock) => mock.stop()) : null;
    const browser = hold(await openBrowser(), (browser) => browser.close());
    const { page } = browser;
    await page.goto(url);
    await page.waitForSelector("body[data-ready=true]");
    await page.selectOption("#provider", "openai-compatible");
    await page.fill("#model", "mock-model");
    await page.fill("#api-key", "sk-test-key");
    await page.fill("#base-url", baseUrl ?? `${mock.url}/v1`);
    await body(page, browser, mock);
    assert.deepEqual(browser.errors, [], "no uncaught errors in the page");
  });
}

/**
 * Runs `body(hold)`; `hold(resource, release)` gives `resource` back and keeps `release` for when
 * `body` ends, however it ends: what was held is released, the last first, even when a later step
 * throws (no mock binary, no Chromium). A server or child left behind keeps Node, and so the test
 * file, from ending: the file failed its test and then hung. A release that throws is reported
 * after the others ran, unless `body` threw first.
 */
export async function holding(body) {
  const releases = [];
  let failed = false;
  try {
    return await body((resource, release) => {
      releases.push(() => release(resource));
      return resource;
    });
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    let releaseError;
    for (const release of releases.reverse()) {
      try {
        await release();
      } catch (error) {
        releaseError ??= error;
      }
    }
    if (releaseError && !failed) throw releaseError;
  }
}

/** The JSON bodies of the chat completions `mock` was sent so far. */
export async function modelBodies(mock) {
  const requests = await mock.requests();
  return requests.filter((r) => r.method === "POST" && r.path.endsWith("/chat/completions")).map((r) => r.body);
}

/**
 * A proxy on 127.0.0.1 in front of `target` that keeps the JSON body of each request it passes on
 * (`bodies`), for a server that keeps none (a real model's). Resolves to { url, bodies, stop }.
 */
export function recordingProxy(target) {
  const bodies = [];
  const server = createHttpServer(async (request, response) => {
    const chunks = [];
    for await (const chunk of request) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    if (request.method === "POST" && body.length) bodies.push(JSON.parse(body.toString()));
    // What describes one hop's connection, not the message, stays behind (fetch refuses some).
    const hop = ["host", "connection", "keep-alive", "transfer-encoding", "content-length", "content-encoding"];
    const pass = (headers) => Object.fromEntries([...headers].filter(([name]) => !hop.includes(name)));
    const method = request.method;
    const init = { method, headers: pass(Object.entries(request.headers)), body: ["GET", "HEAD"].includes(method) ? undefined : body };
    const answer = await fetch(new URL(request.url, target), init);
    response.writeHead(answer.status, pass(answer.headers.entries()));
    if (answer.body) for await (const chunk of answer.body) response.write(chunk);
    response.end();
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve({ url: `http://127.0.0.1:${server.address().port}`, bodies, stop: () => server.close() })),
  );
}

export async function send(page, text) {
  await page.fill("#prompt", text);
  await page.press("#prompt", "Enter");
}

export const idle = (page) => page.waitForSelector("#status[data-state=idle], #status[data-state=error]", { timeout: 20_000 });
export const timelineKinds = (page) => page.$$eval("#timeline li", (items) => items.map((li) => li.dataset.kind));
