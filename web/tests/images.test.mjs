// Images in the playground: pasted or dropped on the task box they become removable thumbnails,
// and the next task carries them to the model (checked here in the request the mock receives).

import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { idle, modelBodies, runScenario, screenshot, send, startPlayground } from "./harness.mjs";

// A 1×1 PNG.
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

let playground;
before(async () => {
  playground = await startPlayground();
});
after(() => playground?.stop());

/** Pastes (on the task box) or drops (on the composer) a PNG file named `name`. */
const attach = (page, how, name) =>
  page.evaluate(
    ([how, name, png]) => {
      const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], name, { type: "image/png" }));
      const event =
        how === "paste"
          ? new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true })
          : new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true });
      document.getElementById(how === "paste" ? "prompt" : "composer").dispatchEvent(event);
    },
    [how, name, PNG],
  );

test("a pasted or dropped image is attached, removable, and sent with the next task", async () => {
  const script = [{ reply: { text: "A single pixel, nothing to fix." } }];
  await runScenario(playground.url, script, async (page, _browser, mock) => {
    await attach(page, "paste", "pasted.png");
    await attach(page, "drop", "dropped.png");
    await attach(page, "drop", "unwanted.png");
    assert.equal(await page.locator("#attachments .attachment").count(), 3);
    await page.click("#attachments button[aria-label='Remove unwanted.png']");
    assert.deepEqual(await page.$$eval("#attachments img", (imgs) => imgs.map((img) => img.alt)), ["pasted.png", "dropped.png"]);
    await screenshot(page, "images-attached");

    await send(page, "What is in these?");
    await page.waitForSelector("text=A single pixel");
    await idle(page);
    assert.equal(await page.isHidden("#attachments"), true, "the images went with the task");
    assert.match(await page.textContent("#transcript .msg.user"), /🖼 pasted\.png, dropped\.png/);

    const user = (await modelBodies(mock))[0].messages.find((m) => m.role === "user");
    const image = { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } };
    assert.deepEqual(user.content, [{ type: "text", text: "What is in these?" }, image, image]);
  });
});
