// Projects in and out of the playground: a folder, a .zip, dropped and pasted files come into the
// workspace (.gitignore honoured, .git/ skipped, binary files kept byte for byte), the workspace
// goes out as a .zip, and the Changes view shows what the agent did since the import. Hostile
// input (corrupt zips, escaping entry names, too much) is refused whole, the workspace untouched.

import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { idle, runScenario, screenshot, send, startPlayground } from "./harness.mjs";
import { unzip, zipOf } from "./zipfile.mjs";

let playground;
let scratch;
before(async () => {
  playground = await startPlayground();
  scratch = mkdtempSync(join(tmpdir(), "openagent-projects-"));
});
after(() => {
  playground?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

// Scenarios that never call the model still get a mock to point the settings at.
const scenario = (script, body) => runScenario(playground.url, script ?? [{ reply: { text: "unused" } }], body);

/** Bytes that are no text: a NUL, invalid UTF-8, every byte value. */
const BINARY = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0xff, 0xfe, ...Array.from({ length: 600 }, (_, i) => (i * 7) % 256)]);

/** Writes `files` ({ "a/b.txt": content }) under a new folder named `name`; returns its path. */
function folder(name, files) {
  const root = join(mkdtempSync(join(scratch, "src-")), name);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const PROJECT = {
  ".gitignore": "# build output and logs\n*.log\n!keep.log\nbuild/\n/secret-root.txt\n",
  "README.md": "# Demo\n\nA project to import.\n",
  "keep.log": "kept: negated in .gitignore\n",
  "debug.log": "ignored\n",
  "build/out.js": "ignored();\n",
  "secret-root.txt": "ignored: anchored\n",
  "src/main.js": "function greet(name) {\n  return `Hello, ${name}`;\n}\n\nconsole.log(greet(\"world\"));\n",
  "src/nested/.gitignore": "secret.txt\n",
  "src/nested/secret.txt": "ignored by the nested .gitignore\n",
  "src/nested/ok.txt": "kept\n",
  "assets/logo.bin": BINARY,
  ".git/HEAD": "ref: refs/heads/main\n",
  ".git/config": "[core]\n",
};
const IMPORTED = ["README.md", "keep.log", ".gitignore", "src/main.js", "src/nested/.gitignore", "src/nested/ok.txt", "assets/logo.bin"];

const status = (page) => page.waitForSelector("#import-status[data-state=ok], #import-status[data-state=error]").then((el) => el.textContent());
const treePaths = (page) => page.$$eval("#file-tree .file", (items) => items.map((li) => li.dataset.path));

/** The workspace as the ⤓ .zip button gives it: path -> Buffer. */
async function exported(page) {
  const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download-zip")]);
  assert.equal(download.suggestedFilename(), "workspace.zip");
  return unzip(readFileSync(await download.path()));
}

const asZip = (name, entries) => ({ name, mimeType: "application/zip", buffer: zipOf(entries) });

/** Imports `file` ({ name, mimeType, buffer }) with the Zip button; resolves to the status line. */
async function importZip(page, file) {
  await page.setInputFiles("#open-zip", file);
  return status(page);
}

/** Seeds the workspace with a text and a binary file, then runs `hostile(page)`, which must change nothing. */
async function refusedWithoutChange(hostile) {
  await scenario(null, async (page) => {
    await page.setInputFiles("#upload", [
      { name: "notes.md", mimeType: "text/markdown", buffer: Buffer.from("# Keep me\n") },
      { name: "image.bin", mimeType: "application/octet-stream", buffer: BINARY },
    ]);
    assert.match(await status(page), /Imported 2 files/);
    const before = await exported(page);
    assert.deepEqual([...before.keys()].sort(), ["README.md", "image.bin", "notes.md"]);
    const message = await hostile(page);
    assert.match(message, /Nothing in the workspace was changed\.$/);
    assert.equal(await page.getAttribute("#import-status", "data-state"), "error");
    assert.deepEqual(await exported(page), before, "every file as it was, byte for byte");
  });
}

test("a folder and a zip come in (.gitignore honoured, .git/ skipped, binary kept) and the exported zip has them byte for byte", async () => {
  const project = folder("demo", PROJECT);
  const extra = [
    { name: "vendor/lib/util.js", bytes: "export const one = 1;\n" },
    { name: "vendor/data.bin", bytes: BINARY.subarray(0, 300) },
  ];
  await scenario(null, async (page) => {
    await page.setInputFiles("#open-folder", project);
    const message = await status(page);
    assert.match(message, /^Imported demo: 7 files \(1 replaced\)\./);
    assert.match(message, /Skipped 4 files ignored by \.gitignore \(build\/, debug\.log, secret-root\.txt, src\/nested\/secret\.txt\) and \.git\/ \(2 files, always skipped\)\.$/);
    const paths = await treePaths(page);
    assert.deepEqual(paths.filter((p) => !IMPORTED.includes(p.slice("/workspace/".length))), []);
    assert.equal(paths.length, IMPORTED.length);
    assert.equal(await page.getAttribute("#file-tree .file[data-path='/workspace/assets/logo.bin']", "data-binary"), "true");
    assert.equal(await page.$("#file-tree .file[data-path='/workspace/src/main.js'][data-binary]"), null);
    await page.click("#file-tree .file[data-path='/workspace/assets/logo.bin']");
    assert.match(await page.textContent("#viewer-content"), /binary file, 607 B/);
    await screenshot(page, "projects-imported");

    assert.match(await importZip(page, asZip("vendor.zip", extra)), /^Imported vendor\.zip: 2 files from its folder vendor\/\.$/);
    const files = await exported(page);
    const expected = new Map([...IMPORTED.map((p) => [p, Buffer.from(PROJECT[p])]), ["lib/util.js", Buffer.from(extra[0].bytes)], ["data.bin", Buffer.from(extra[1].bytes)]]);
    assert.deepEqual([...files.keys()].sort(), [...expected.keys()].sort());
    for (const [path, bytes] of expected) assert.ok(files.get(path).equals(bytes), `${path} round-trips byte for byte`);
  });
});

test("a dropped zip, a dropped folder and a pasted file come in; a pasted image still goes to the task box", async () => {
  await scenario(null, async (page) => {
    const zip = zipOf([{ name: "dropped/a.txt", bytes: "from a dropped zip\n" }]).toString("base64");
    await page.evaluate((zip) => {
      const data = new DataTransfer();
      data.items.add(new File([Uint8Array.from(atob(zip), (c) => c.charCodeAt(0))], "dropped.zip", { type: "application/zip" }));
      document.getElementById("files-panel").dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
    }, zip);
    assert.match(await status(page), /^Imported dropped\.zip: 1 file from its folder dropped\/\.$/);

    // A folder dropped from the desktop arrives as FileSystemEntry objects: these stand in for them.
    await page.evaluate(() => {
      const file = (name, text) => ({ name, isFile: true, isDirectory: false, file: (ok) => ok(new File([text], name)) });
      const dir = (name, children) => ({
        name, isFile: false, isDirectory: true,
        createReader() {
          let batches = [children.slice(0, 2), children.slice(2), []]; // in batches, as browsers give them
          return { readEntries: (ok) => ok(batches.shift() ?? []) };
        },
      });
      const tree = dir("site", [
        file(".gitignore", "node_modules/\n"),
        file("index.html", "<h1>Hi</h1>\n"),
        dir("node_modules", [file("huge.js", "never read\n")]),
        dir(".git", [file("HEAD", "ref\n")]),
        dir("css", [file("site.css", "h1 { color: red; }\n")]),
      ]);
      const event = new Event("drop", { bubbles: true, cancelable: true });
      const items = [{ kind: "file", webkitGetAsEntry: () => tree }];
      Object.defineProperty(event, "dataTransfer", { value: { items, files: [] } });
      document.getElementById("files-panel").dispatchEvent(event);
    });
    const message = await status(page);
    assert.match(message, /^Imported site: 3 files\. Skipped 1 folder ignored by \.gitignore \(node_modules\/\) and \.git\/ \(always skipped\)\.$/);

    await page.focus("#files-panel");
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File(["pasted text\n"], "pasted.txt", { type: "text/plain" }));
      document.getElementById("files-panel").dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    });
    assert.match(await status(page), /^Imported pasted\.txt: 1 file\.$/);
    const paths = await treePaths(page);
    for (const path of ["a.txt", "index.html", ".gitignore", "css/site.css", "pasted.txt"]) assert.ok(paths.includes(`/workspace/${path}`), `${path} in ${paths}`);
    assert.ok(!paths.some((p) => p.includes("node_modules") || p.includes(".git/")), `${paths}`);

    // The task box keeps taking pasted images as attachments.
    await page.evaluate(() => {
      const data = new DataTransfer();
      data.items.add(new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], "shot.png", { type: "image/png" }));
      document.getElementById("prompt").dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
    });
    assert.equal(await page.locator("#attachments .attachment").count(), 1);
    assert.ok(!(await treePaths(page)).includes("/workspace/shot.png"));
  });
});

test("the Changes view shows what the agent added, modified and deleted since the import, after a reload too", async () => {
  const project = folder("app", {
    "src/main.js": PROJECT["src/main.js"],
    "notes.txt": "obsolete\n",
    "logo.bin": BINARY,
  });
  const script = [
    // The general profile (an OpenAI-compatible server) edits only a file the model has read.
    { reply: { tool_calls: [{ name: "read_file", arguments: { file_path: "src/main.js" } }] } },
    {
      reply: {
        text: "Editing.",
        tool_calls: [
          { name: "edit_file", arguments: { file_path: "src/main.js", old_string: "console.log(greet(\"world\"));", new_string: "console.log(greet(\"OpenAgent\"));\nconsole.log(greet(\"you\"));" } },
          { name: "write_file", arguments: { file_path: "src/extra.js", content: "export const extra = true;\n" } },
          { name: "shell", arguments: { command: "rm notes.txt" } },
        ],
      },
    },
    { reply: { text: "Done: greeted OpenAgent, added extra.js, removed notes.txt." } },
  ];
  await scenario(script, async (page) => {
    await page.setInputFiles("#open-folder", project);
    assert.match(await status(page), /^Imported app: 3 files/);
    await page.click("#show-changes");
    assert.equal(await page.textContent("#changes-summary"), "No changes since the last import.");

    await send(page, "Greet OpenAgent, add extra.js, remove notes.txt");
    await page.waitForSelector("text=Done: greeted OpenAgent");
    await idle(page);
    const check = async () => {
      assert.equal(await page.textContent("#changes-summary"), "Since the last import: 1 added, 1 modified, 1 deleted.");
      const rows = await page.$$eval("#changes-list .change", (items) => items.map((c) => [c.dataset.path, c.className.replace("change ", "")]));
      assert.deepEqual(rows, [["/workspace/notes.txt", "deleted"], ["/workspace/src/extra.js", "added"], ["/workspace/src/main.js", "modified"]]);
      const diff = await page.$$eval(".change[data-path='/workspace/src/main.js'] .diff > div", (lines) => lines.map((l) => l.textContent));
      assert.deepEqual(diff, [
        "@@ -2,4 +2,5 @@",
        "   return `Hello, ${name}`;",
        " }",
        " ",
        "-console.log(greet(\"world\"));",
        "+console.log(greet(\"OpenAgent\"));",
        "+console.log(greet(\"you\"));",
      ]);
      assert.match(await page.textContent(".change[data-path='/workspace/src/main.js'] .change-stat"), /\+2 −1/);
      assert.match(await page.textContent(".change[data-path='/workspace/notes.txt'] .diff"), /-obsolete/);
    };
    await check();
    await screenshot(page, "projects-changes");

    // The baseline is kept with the session: after a reload the same changes show.
    await page.reload();
    await page.waitForSelector("body[data-ready=true]");
    await page.click("#show-changes");
    await check();
  });
});

test("a binary file uploaded is marked binary and exported byte for byte", async () => {
  await scenario(null, async (page) => {
    await page.setInputFiles("#upload", { name: "blob.dat", mimeType: "application/octet-stream", buffer: BINARY });
    assert.match(await status(page), /^Imported blob\.dat: 1 file\.$/);
    assert.equal(await page.getAttribute("#file-tree .file[data-path='/workspace/blob.dat']", "data-binary"), "true");
    assert.match(await page.textContent("#file-tree .file[data-path='/workspace/blob.dat'] .binary"), /binary/);
    assert.ok((await exported(page)).get("blob.dat").equals(BINARY));
  });
});

test("a corrupt zip, or a truncated one, is refused and changes nothing", async () => {
  await refusedWithoutChange(async (page) => {
    const garbage = await importZip(page, { name: "garbage.zip", mimeType: "application/zip", buffer: Buffer.from("this is not a zip archive at all") });
    assert.match(garbage, /^garbage\.zip cannot be imported: it is not a zip archive, or it is truncated/);
    const whole = zipOf([{ name: "a.txt", bytes: "a".repeat(5000) }, { name: "b.txt", bytes: "b\n".repeat(3000) }]);
    const cut = { name: "cut.zip", mimeType: "application/zip", buffer: whole.subarray(0, whole.length - 30) };
    assert.match(await importZip(page, cut), /^cut\.zip cannot be imported: it is (truncated|not a zip archive)/);
    // Intact headers, damaged data: a flipped byte in the middle of the deflated stream.
    const damaged = Buffer.from(whole);
    damaged[37] ^= 0xff; // inside a.txt's deflated data, which starts after its 35-byte header
    return importZip(page, { name: "damaged.zip", mimeType: "application/zip", buffer: damaged }).then((message) => {
      assert.match(message, /^damaged\.zip cannot be imported: it is corrupt: a\.txt/);
      return message;
    });
  });
});

test("a folder over the size cap is refused whole, naming the cap and its size", async () => {
  const big = Buffer.alloc(7 * 1024 * 1024, 120);
  const project = folder("big", { "a.txt": big, "b.txt": big, "c.txt": big, "small.txt": "small\n" });
  await refusedWithoutChange(async (page) => {
    await page.setInputFiles("#open-folder", project);
    const message = await status(page);
    assert.match(message, /^big is too large: 4 files, 21\.0 MB; the playground imports at most 5,000 files and 20\.0 MB at once\./);
    return message;
  });
});

test("a zip over the file-count cap is refused whole", async () => {
  const entries = Array.from({ length: 5001 }, (_, i) => ({ name: `many/f${i}.txt`, bytes: "" }));
  await refusedWithoutChange(async (page) => {
    const message = await importZip(page, asZip("many.zip", entries));
    assert.match(message, /^many\.zip is too large: 5,001 files, 0 B; the playground imports at most 5,000 files/);
    return message;
  });
});

test("a zip entry that climbs out with .. is refused, naming it", async () => {
  await refusedWithoutChange(async (page) => {
    const zip = asZip("slip.zip", [{ name: "fine.txt", bytes: "fine\n" }, { name: "src/../../escape.txt", bytes: "out\n" }]);
    const message = await importZip(page, zip);
    await screenshot(page, "projects-refused");
    assert.match(message, /^slip\.zip is refused: its entry “src\/\.\.\/\.\.\/escape\.txt” cannot be written inside the workspace \(it climbs out of the folder with \.\.\)\./);
    return message;
  });
});

test("a zip entry with an absolute path is refused, naming it", async () => {
  await refusedWithoutChange(async (page) => {
    const message = await importZip(page, asZip("absolute.zip", [{ name: "ok.txt", bytes: "ok\n" }, { name: "/etc/passwd", bytes: "root\n" }]));
    assert.match(message, /^absolute\.zip is refused: its entry “\/etc\/passwd” cannot be written inside the workspace \(it is an absolute path\)\./);
    return message;
  });
});

test("zip entries with a drive letter or backslashes are refused", async () => {
  await refusedWithoutChange(async (page) => {
    const drive = await importZip(page, asZip("drive.zip", [{ name: "C:/Windows/evil.txt", bytes: "x" }]));
    assert.match(drive, /its entry “C:\/Windows\/evil\.txt” .*\(it starts with a drive letter\)/);
    const backslash = await importZip(page, asZip("backslash.zip", [{ name: "..\\evil.txt", bytes: "x" }]));
    assert.match(backslash, /its entry “\.\.\\evil\.txt” .*\(it contains a backslash\)/);
    return backslash;
  });
});

test("a zip whose files cannot all be written (a path through an existing file) leaves the workspace as it was", async () => {
  await refusedWithoutChange(async (page) => {
    const zip = asZip("clash.zip", [{ name: "fresh.txt", bytes: "written first\n" }, { name: "notes.md/inner.txt", bytes: "x" }]);
    const message = await importZip(page, zip);
    assert.match(message, /^clash\.zip: notes\.md\/inner\.txt cannot be written \(.+\)\./);
    return message;
  });
});

test("a .gitignore too large to be one is refused before anything is read", async () => {
  await refusedWithoutChange(async (page) => {
    const message = await importZip(page, asZip("huge-ignore.zip", [{ name: ".gitignore", bytes: "#".repeat(1024 * 1024 + 1) }, { name: "a.txt", bytes: "a" }]));
    assert.match(message, /^The \.gitignore files, up to \.gitignore, are more than 1\.0 MB in all, which the playground does not read\./);
    return message;
  });
});

test("huge diffs are capped with a note: long ones cut short, enormous ones not worked out", async () => {
  const lines = (prefix, n) => Array.from({ length: n }, (_, i) => `${prefix} ${i}\n`).join("");
  const project = folder("big-diffs", { "long.txt": lines("old", 600), "enormous.txt": lines("old", 3000) });
  const rewriteLong = { name: "write_file", arguments: { file_path: "long.txt", content: lines("new", 600) } };
  const script = [
    // The general profile rewrites only files the model has read, and a rewrite that drops most
    // of a file's lines only when sent a second time.
    { reply: { tool_calls: [{ name: "read_file", arguments: { file_path: "long.txt" } }, { name: "read_file", arguments: { file_path: "enormous.txt" } }] } },
    { reply: { tool_calls: [rewriteLong, { name: "write_file", arguments: { file_path: "enormous.txt", content: lines("new", 3000) } }] } },
    { reply: { tool_calls: [rewriteLong] } },
    { reply: { text: "Rewrote both." } },
  ];
  await scenario(script, async (page) => {
    await page.setInputFiles("#open-folder", project);
    assert.match(await status(page), /^Imported big-diffs: 2 files/);
    await send(page, "Rewrite both files");
    await page.waitForSelector("text=Rewrote both.");
    await idle(page);
    await page.click("#show-changes");
    const long = ".change[data-path='/workspace/long.txt']";
    assert.equal(await page.textContent(`${long} .change-stat`), "+600 −600");
    assert.equal(await page.locator(`${long} .diff > div`).count(), 400);
    assert.match(await page.textContent(`${long} .diff-note`), /… 801 more lines of this diff are not shown\./);
    assert.match(
      await page.textContent(".change[data-path='/workspace/enormous.txt'] .diff-note"),
      /Too large to diff line by line \(3,000 lines before, 3,000 now; at most 2,000 changed lines are shown as a diff\)\./,
    );
  });
});

test("a .gitignore range written backwards is read as git reads it; one inside an ignored folder is not read; all of them are capped together", async () => {
  await scenario(null, async (page) => {
    const bad = await importZip(page, asZip("range.zip", [{ name: ".gitignore", bytes: "*.log\n[z-a]*\n" }, { name: "a.txt", bytes: "a" }, { name: "x.log", bytes: "x" }]));
    assert.match(bad, /^Imported range\.zip: 2 files.*Skipped 1 file ignored by \.gitignore \(x\.log\)\.$/);
    const vendor = [
      { name: "proj/.gitignore", bytes: "vendor/\n" },
      { name: "proj/main.js", bytes: "main\n" },
      { name: "proj/vendor/lib/.gitignore", bytes: "#".repeat(1024 * 1024 + 1) },
    ];
    assert.match(await importZip(page, asZip("vendor.zip", vendor)), /^Imported vendor\.zip: 2 files.*\(vendor\/\)/);
    const halves = [{ name: ".gitignore", bytes: "#".repeat(600 * 1024) }, { name: "sub/.gitignore", bytes: "#".repeat(600 * 1024) }, { name: "a.txt", bytes: "a" }];
    assert.match(await importZip(page, asZip("halves.zip", halves)), /^The \.gitignore files, up to sub\/\.gitignore, are more than 1\.0 MB in all/);
    const rules = Array.from({ length: 10_001 }, (_, i) => `*.ext${i}`).join("\n");
    assert.match(await importZip(page, asZip("rules.zip", [{ name: ".gitignore", bytes: rules }, { name: "a.txt", bytes: "a" }])), /hold more than 10,000 rules in all/);
  });
});

test("a zip that holds one path twice is refused, naming it", async () => {
  await refusedWithoutChange(async (page) => {
    const message = await importZip(page, asZip("twice.zip", [{ name: "b.txt", bytes: "first" }, { name: "./b.txt", bytes: "second" }]));
    assert.match(message, /^twice\.zip is refused: it holds “b\.txt” twice, and one would be lost\./);
    return message;
  });
});

test("a dropped folder counts only the files its .gitignore keeps towards the cap", async () => {
  await scenario(null, async (page) => {
    await page.evaluate(() => {
      const file = (name, text) => ({ name, isFile: true, isDirectory: false, file: (ok) => ok(new File([text], name)) });
      const dir = (name, children) => ({ name, isFile: false, isDirectory: true, createReader: () => ({ readEntries: (ok) => ok(children.splice(0)) }) });
      const logs = Array.from({ length: 5001 }, (_, i) => file(`${i}.log`, "log\n"));
      const tree = dir("site", [file(".gitignore", "*.log\n"), file("index.html", "<h1>Hi</h1>\n"), dir("logs", logs)]);
      const event = new Event("drop", { bubbles: true, cancelable: true });
      Object.defineProperty(event, "dataTransfer", { value: { items: [{ kind: "file", webkitGetAsEntry: () => tree }], files: [] } });
      document.getElementById("files-panel").dispatchEvent(event);
    });
    assert.match(await status(page), /^Imported site: 2 files\. Skipped 5,001 files ignored by \.gitignore/);
  });
});

test("the Changes view shows a byte order mark, an empty file and one line changed in a long file", async () => {
  const long = Array.from({ length: 25_001 }, (_, i) => `line ${i}\n`).join("");
  const project = folder("edge-diffs", { "long.txt": long, "bom.txt": "hello\n" });
  const write = (file, content) => ({ name: "write_file", arguments: { file_path: file, content } });
  const script = [
    { reply: { tool_calls: [{ name: "read_file", arguments: { file_path: "bom.txt" } }, { name: "read_file", arguments: { file_path: "long.txt" } }] } },
    { reply: { tool_calls: [write("bom.txt", "\uFEFFhello\n"), write("empty.txt", ""), { name: "edit_file", arguments: { file_path: "long.txt", old_string: "line 12345\n", new_string: "changed\n" } }] } },
    { reply: { text: "Edited." } },
  ];
  await scenario(script, async (page) => {
    await page.setInputFiles("#open-folder", project);
    assert.match(await status(page), /^Imported edge-diffs: 2 files/);
    await send(page, "Edit the files");
    await page.waitForSelector("text=Edited.");
    await idle(page);
    await page.click("#show-changes");
    const change = (path) => `.change[data-path='/workspace/${path}']`;
    assert.deepEqual(await page.$$eval(`${change("bom.txt")} .diff > div:not(.hunk)`, (rows) => rows.map((row) => row.textContent)), ["-hello", "+[BOM]hello"]);
    assert.equal(await page.textContent(`${change("empty.txt")} .diff-note`), "An empty file.");
    assert.equal(await page.textContent(`${change("long.txt")} .change-stat`), "+1 −1");
  });
});
