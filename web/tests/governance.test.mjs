// What a person adds to and allows the agent in the playground, in headless Chromium: an MCP
// server (the real reference server, server-everything, over Streamable HTTP from the tab) whose
// tool the model calls, and the approval dialog (deny with a reason the model reads, then allow).

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { idle, runScenario, screenshot, send, startEverything, startPlayground } from "./harness.mjs";

let playground;
before(async () => {
  playground = await startPlayground();
});
after(() => playground?.stop());

const scenario = (script, body) => runScenario(playground.url, script, body);

test("an MCP server added in the panel offers its tools, and the model's call reaches the real server", async (t) => {
  const everything = await startEverything();
  if (!everything) return t.skip("server-everything is not installed");
  const call = { name: "mcp__everything__echo", arguments: { message: "hello from the tab" } };
  const script = [{ reply: { tool_calls: [call] } }, { reply: { text: "The server echoed it." } }];
  try {
    await scenario(script, async (page) => {
      await page.fill("#mcp-name", "everything");
      await page.fill("#mcp-url", everything.url);
      await page.click("#mcp-add");
      assert.match(await page.textContent(".mcp-server[data-name=everything] .mcp-detail"), /connects with the next task/);
      await send(page, "Echo a greeting through the MCP server");
      await page.waitForSelector("text=The server echoed it.");
      await idle(page);
      await page.waitForSelector(".mcp-server[data-name=everything][data-state=connected]");
      assert.match(await page.textContent(".mcp-server[data-name=everything] .mcp-detail"), /\d+ tools: .*\becho\b/);
      await page.click(".tool[data-tool=mcp__everything__echo] summary");
      assert.match(await page.textContent(".tool[data-tool=mcp__everything__echo] .tool-output"), /Echo: hello from the tab/);
      await screenshot(page, "10-mcp-tool");

      // A server that is not there is shown as failed; the agent goes on without it.
      await page.fill("#mcp-name", "gone");
      await page.fill("#mcp-url", "http://127.0.0.1:9/mcp");
      await page.click("#mcp-add");
      await page.waitForSelector(".mcp-server[data-name=gone][data-state=error]", { timeout: 15_000 });
      assert.match(await page.textContent(".mcp-server[data-name=gone] .mcp-detail"), /MCP server gone:/);
    });
  } finally {
    everything.stop();
  }
});

test("in read-only mode the approval dialog asks: a denial's reason reaches the model, an allowed write happens", async () => {
  const write = (path) => ({ name: "write_file", arguments: { file_path: path, content: "x\n" } });
  const script = [
    { reply: { tool_calls: [write("secret.txt")] } },
    { reply: { tool_calls: [write("notes.txt")] } },
    { reply: { text: "Wrote notes.txt only." } },
  ];
  await scenario(script, async (page) => {
    await page.selectOption("#approval", "read-only");
    await send(page, "Write two files");
    await page.waitForSelector("#approval-dialog[open]");
    assert.equal(await page.textContent("#approval-tool"), "write_file");
    assert.match(await page.textContent("#approval-reason"), /read-only approval mode asks before file edits/);
    assert.match(await page.textContent("#approval-arguments"), /secret\.txt/);
    await screenshot(page, "11-approval-dialog");
    await page.fill("#approval-deny-reason", "not that file");
    await page.click("#approval-deny");
    await page.waitForSelector("#approval-dialog[open]");
    assert.match(await page.textContent("#approval-arguments"), /notes\.txt/);
    await page.click("#approval-allow");
    await page.waitForSelector("text=Wrote notes.txt only.");
    await idle(page);
    await page.click(".tool.failed[data-tool=write_file] summary");
    assert.match(await page.textContent(".tool.failed[data-tool=write_file] .tool-output"), /not that file/);
    assert.ok(await page.isVisible("#file-tree .file[data-path='/workspace/notes.txt']"), "the allowed write happened");
    assert.equal(await page.$("#file-tree .file[data-path='/workspace/secret.txt']"), null, "the denied one did not");
  });
});
