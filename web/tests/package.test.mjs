// The npm package as a user gets it: `npm pack` of wasm/pkg, installed from the tarball into an
// empty project, then the 20-line example page (wasm/example/index.html) served from that
// project runs a task in Chromium against the mock LLM. Node resolves the package's exports too.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { after, before, test } from "node:test";
import { holding, openBrowser, screenshot, startMock } from "./harness.mjs";

const PKG = new URL("../../wasm/pkg/", import.meta.url).pathname;
const EXAMPLE = new URL("../../wasm/example/index.html", import.meta.url).pathname;
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };

let project;
let packed;
before(() => {
  project = mkdtempSync(join(tmpdir(), "openagent-package-"));
  const [info] = JSON.parse(execFileSync("npm", ["pack", "--json", "--pack-destination", project], { cwd: PKG, encoding: "utf8" }));
  packed = info;
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "example", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--ignore-scripts", join(project, info.filename)], { cwd: project, stdio: "pipe" });
  copyFileSync(EXAMPLE, join(project, "index.html"));
});
after(() => project && rmSync(project, { recursive: true, force: true }));

test("the packed package is complete: every export, its types and the README are in the tarball", () => {
  const manifest = JSON.parse(readFileSync(join(PKG, "package.json"), "utf8"));
  const inTarball = new Set(packed.files.map((file) => file.path));
  for (const field of ["name", "version", "license", "types", "exports", "files"]) assert.ok(manifest[field], `package.json has ${field}`);
  const targets = Object.values(manifest.exports).flatMap((entry) => (typeof entry === "string" ? [entry] : Object.values(entry)));
  for (const target of [...targets, manifest.types, "README.md"]) {
    assert.ok(inTarball.has(target.replace(/^\.\//, "")), `${target} is in the tarball: ${[...inTarball]}`);
  }
  assert.match(readFileSync(join(PKG, "README.md"), "utf8"), /## The API/);
});

test("Node resolves the installed package by name and runs it", () => {
  const script = `
    import { readFileSync } from "node:fs";
    import { createRequire } from "node:module";
    import { initSync, MemoryFs } from "openagent-wasm";
    const wasm = createRequire(import.meta.url).resolve("openagent-wasm/openagent_wasm_bg.wasm");
    initSync({ module: readFileSync(wasm) });
    const fs = new MemoryFs();
    fs.write("a.txt", "from the tarball");
    console.log(fs.readText("a.txt"));`;
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", script], { cwd: project, encoding: "utf8" });
  assert.equal(out.trim(), "from the tarball");
});

test("the example page, importing the package from node_modules, runs a task", async () => {
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    const file = join(project, path.endsWith("/") ? `${path}index.html` : path);
    if (!file.startsWith(project) || !existsSync(file)) return response.writeHead(404).end();
    response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
  });
  await holding(async (hold) => {
    hold(server, (server) => server.close());
    await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
    const mock = hold(
      await startMock([
        { reply: { tool_calls: [{ name: "write_file", arguments: { file_path: "hello.txt", content: "hello\n" } }] } },
        { reply: { text: "Wrote hello.txt." } },
      ]),
      (mock) => mock.stop(),
    );
    const browser = hold(await openBrowser(), (browser) => browser.close());
    const { page } = browser;
    const base = `http://127.0.0.1:${server.address().port}/`;
    await page.goto(`${base}?baseUrl=${encodeURIComponent(`${mock.url}/v1`)}&model=mock-model`);
    await page.click("#run");
    await page.waitForSelector("text=Wrote hello.txt.");
    const log = await page.textContent("#log");
    assert.match(log, /tool write_file/);
    assert.match(log, /completed: Wrote hello\.txt\./);
    assert.match(log, /file \/workspace\/hello\.txt/);
    await screenshot(page, "package-example");
    assert.deepEqual(browser.errors, [], "no uncaught errors in the page");
  });
});
