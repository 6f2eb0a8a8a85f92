// Sessions that last, in the playground (issue 12): every session is kept in IndexedDB, so a
// reload brings back the conversation and the files, and the next request carries the earlier
// turns; sessions are listed, reopened, deleted, exported and imported; Compact summarises.
// What reaches the mock is read from the page's own requests to it.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { idle, modelBodies, runScenario, screenshot, send, startPlayground } from "./harness.mjs";

let playground;
before(async () => {
  playground = await startPlayground();
});
after(() => playground?.stop());

const scenario = (script, body) => runScenario(playground.url, script, body);

const write = (file_path, content) => ({ name: "write_file", arguments: { file_path, content } });
const listed = (page) => page.$$eval("#session-list .session", (items) => items.map((li) => li.textContent));
const transcript = (page) => page.textContent("#transcript");

async function reload(page) {
  await page.reload();
  await page.waitForSelector("body[data-ready=true]");
}

test("after a reload the conversation and the files are back, and a follow-up carries the earlier turns", async () => {
  const script = [
    { reply: { text: "Writing it.", tool_calls: [write("notes.md", "# Notes\n")] } },
    { reply: { text: "Created notes.md." } },
    { reply: { text: "It has one heading." } },
  ];
  await scenario(script, async (page, _browser, mock) => {
    await send(page, "Write notes.md");
    await page.waitForSelector("text=Created notes.md.");
    await idle(page);
    assert.equal((await listed(page)).length, 1);
    await reload(page);
    assert.match(await transcript(page), /Write notes\.md[\s\S]*Writing it\.[\s\S]*Created notes\.md\./);
    assert.ok(await page.isVisible(".tool.ok[data-tool=write_file]"), "the tool call is back");
    await page.click("#file-tree .file[data-path='/workspace/notes.md']");
    assert.equal(await page.textContent("#viewer-content"), "# Notes\n");
    assert.equal((await listed(page)).length, 1);
    assert.ok(await page.isVisible("#session-list .session.open"), "the latest session is the open one");
    await screenshot(page, "10-reopened-after-reload");

    await send(page, "What is in it?");
    await page.waitForSelector("text=It has one heading.");
    await idle(page);
    const sent = JSON.stringify((await modelBodies(mock)).at(-1).messages);
    for (const earlier of ["Write notes.md", "Writing it.", "write_file", "Created notes.md.", "What is in it?"]) {
      assert.ok(sent.includes(earlier), `${earlier} in ${sent}`);
    }
  });
});

test("sessions are listed, reopened and deleted", async () => {
  const script = [{ reply: { text: "Answer one." } }, { reply: { text: "Answer two." } }];
  await scenario(script, async (page) => {
    await send(page, "First task");
    await page.waitForSelector("text=Answer one.");
    await idle(page);
    await page.click("#new-session");
    assert.doesNotMatch(await transcript(page), /First task/);
    await send(page, "Second task");
    await page.waitForSelector("text=Answer two.");
    await idle(page);
    assert.deepEqual((await listed(page)).map((text) => text.match(/^(\w+ task)/)[1]), ["Second task", "First task"]);

    await page.click("#session-list .session:nth-child(2) .session-open");
    await page.waitForSelector("#session-list .session.open:nth-child(2)");
    assert.match(await transcript(page), /First task[\s\S]*Answer one\./);
    assert.doesNotMatch(await transcript(page), /Second task/);
    // Deleting takes two clicks.
    await page.click("#session-list .session:nth-child(1) .session-delete");
    assert.equal((await listed(page)).length, 2);
    await page.click("#session-list .session:nth-child(1) .session-delete");
    await page.waitForFunction(() => document.querySelectorAll("#session-list .session").length === 1);
    assert.match((await listed(page))[0], /First task/);
    await reload(page);
    assert.match(await transcript(page), /First task/);
  });
});

test("an exported session imports back whole; a corrupt file is refused and changes nothing", async () => {
  const script = [{ reply: { text: "Saved it.", tool_calls: [write("data.txt", "42\n")] } }, { reply: { text: "Done." } }];
  await scenario(script, async (page) => {
    await send(page, "Keep the answer");
    await page.waitForSelector("text=Done.");
    await idle(page);
    const [download] = await Promise.all([page.waitForEvent("download"), page.click("#session-list .session.open .session-export")]);
    const text = readFileSync(await download.path(), "utf8");
    const exported = JSON.parse(text);
    assert.equal(exported.schema, "openagent.session/1");
    assert.match(JSON.stringify(exported.environment), /data\.txt/);

    const before = await transcript(page);
    await page.setInputFiles("#import", { name: "broken.json", mimeType: "application/json", buffer: Buffer.from(text.slice(0, text.length / 2)) });
    await page.waitForSelector("#error:not([hidden])");
    const error = await page.textContent("#error");
    assert.match(error, /broken\.json cannot be opened/);
    assert.match(error, /truncated/);
    assert.match(error, /Nothing was changed/);
    assert.equal((await listed(page)).length, 1);
    assert.equal(await transcript(page), before);
    await screenshot(page, "11-corrupt-import");

    await page.click("#new-session");
    await page.setInputFiles("#import", { name: "session.json", mimeType: "application/json", buffer: Buffer.from(text) });
    await page.waitForFunction(() => document.querySelectorAll("#session-list .session").length === 2);
    assert.ok(await page.isHidden("#error"));
    assert.match(await transcript(page), /Keep the answer[\s\S]*Saved it\.[\s\S]*Done\./);
    await page.click("#file-tree .file[data-path='/workspace/data.txt']");
    assert.equal(await page.textContent("#viewer-content"), "42\n");
    // A copy beside the original (same session imported into the browser it came from), equal but for its id.
    const [again] = await Promise.all([page.waitForEvent("download"), page.click("#session-list .session.open .session-export")]);
    const reimported = JSON.parse(readFileSync(await again.path(), "utf8"));
    assert.notEqual(reimported.session_id, exported.session_id);
    assert.deepEqual({ ...reimported, session_id: null }, { ...exported, session_id: null });
  });
});

test("Compact summarises the older turns; the timeline shows it and the summary survives a reload", async () => {
  // Answers of about 1000 tokens in a 4000-token window: compaction keeps a quarter of the window.
  const long = (text) => `${text} ${"word ".repeat(800)}`;
  const script = [{ reply: { text: long("Answer one.") } }, { reply: { text: long("Answer two.") } }, { reply: { text: "The user asked two things." } }];
  await scenario(script, async (page) => {
    await page.fill("#context-window", "4000");
    await page.dispatchEvent("#settings", "change");
    assert.ok(await page.isDisabled("#compact"), "nothing to compact yet");
    await send(page, "Question one");
    await page.waitForSelector("text=Answer one.");
    await idle(page);
    await send(page, "Question two");
    await page.waitForSelector("text=Answer two.");
    await idle(page);
    await page.click("#compact");
    await page.waitForSelector("#timeline li[data-kind=compaction_end]");
    await idle(page);
    assert.match(await page.textContent("#timeline li[data-kind=compaction_start]"), /manual/);
    assert.match(await page.textContent("#timeline li[data-kind=compaction_end]"), /[1-9]\d* turn\(s\) summarised/);
    assert.match(await transcript(page), /Compacted: \d+ earlier turn\(s\) summarised/);
    await screenshot(page, "12-compacted");
    await reload(page);
    assert.match(await page.textContent(".summary-turn"), /Summary of \d+ earlier turn\(s\)/);
    await page.click(".summary-turn summary");
    assert.match(await page.textContent(".summary-turn pre"), /The user asked two things\./);
  });
});
