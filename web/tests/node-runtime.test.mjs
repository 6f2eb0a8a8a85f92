// The node worker's library (wasm/js/node-lib.js, node-fs.js) checked in Node itself, without a
// browser: what Node's own path, util, Buffer and fs answer is the reference.

import assert from "node:assert/strict";
import * as real from "node:path";
import { inspect as realInspect } from "node:util";
import { test } from "node:test";
import { makeFs } from "../../wasm/js/node-fs.js";
import { Buffer, format, inspect, path, sameValue } from "../../wasm/js/node-lib.js";

test("path answers as Node's POSIX path does", () => {
  const cases = [
    ["join", "a", "../b", "./c/"],
    ["join", "/a//b", "..", "..", ".."],
    ["join"],
    ["normalize", "a/./b/../../.."],
    ["normalize", "/x/y/"],
    ["dirname", "/a/b/"],
    ["dirname", "file"],
    ["basename", "/a/b.test.js", ".js"],
    ["basename", "/a/b/"],
    ["extname", ".bashrc"],
    ["extname", "a.tar.gz"],
    ["relative", "/a/b/c", "/a/d"],
    ["relative", "/a", "/a"],
    ["resolve", "/a", "b", "/c", "d/.."],
  ];
  for (const [name, ...args] of cases) assert.equal(path[name](...args), real.posix[name](...args), `${name}(${args.join(", ")})`);
  assert.deepEqual(path.parse("/home/u/file.txt"), real.posix.parse("/home/u/file.txt"));
  assert.equal(path.format({ dir: "/x", name: "f", ext: ".js" }), "/x/f.js");
});

test("inspect and format print values as console.log does", () => {
  class Point {
    constructor() {
      this.x = 1;
    }
  }
  const circular = { name: "loop" };
  circular.self = circular;
  const values = [
    { a: 1, "b-c": "two", d: [1, "x", null, undefined] },
    [],
    {},
    new Map([["k", { deep: { deeper: { deepest: 1 } } }]]),
    new Set([1, 2]),
    new Point(),
    [-0, 10n, Symbol("s"), true],
    Object.create(null),
    () => {},
    class Named {},
    new Date(0),
    /re/g,
    "it's",
    { long: "x".repeat(70), more: 1 },
  ];
  for (const value of values) assert.equal(inspect(value), realInspect(value), realInspect(value));
  assert.equal(inspect(circular), "{ name: 'loop', self: [Circular *1] }");
  assert.equal(format("%s is %d, %j %%", "Ann", 42, { a: 1 }, "extra", 7), "Ann is 42, {\"a\":1} % extra 7");
  assert.equal(format("no args %s"), "no args %s");
  assert.equal(format(1, "a", { b: 2 }), "1 a { b: 2 }");
});

test("Buffer converts text and bytes as Node's does", () => {
  const text = "héllo wörld ✓";
  for (const encoding of ["utf8", "hex", "base64", "base64url", "latin1", "utf16le"]) {
    const ours = Buffer.from(text, "utf8").toString(encoding);
    assert.equal(ours, globalThis.Buffer.from(text, "utf8").toString(encoding), encoding);
    assert.equal(Buffer.from(ours, encoding).toString(encoding), ours, `${encoding} round trip`);
  }
  assert.equal(Buffer.from("aGk", "base64").toString(), "hi", "unpadded base64 is taken");
  assert.equal(Buffer.from("zz", "hex").length, 0, "hex stops at the first bad pair");
  assert.equal(Buffer.concat([Buffer.from("a"), Buffer.from("bc")]).toString(), "abc");
  assert.ok(Buffer.from("abc").slice(1).equals(Buffer.from("bc")));
  assert.deepEqual(JSON.parse(JSON.stringify(Buffer.from("hi"))), { type: "Buffer", data: [104, 105] });
  assert.equal(inspect(Buffer.from("hi")), "<Buffer 68 69>");
  assert.throws(() => Buffer.from("x", "klingon"), /Unknown encoding: klingon/);
});

test("deep equality follows assert's strict and loose rules", () => {
  assert.ok(sameValue({ a: [1, { b: new Date(5) }] }, { a: [1, { b: new Date(5) }] }, true));
  assert.ok(!sameValue({ a: 1 }, { a: "1" }, true));
  assert.ok(sameValue({ a: 1 }, { a: "1" }, false));
  assert.ok(!sameValue([1, 2], { 0: 1, 1: 2 }, true));
  assert.ok(sameValue(new Map([[1, { x: 1 }]]), new Map([[1, { x: 1 }]]), true));
  assert.ok(!sameValue(new Set([1]), new Set([2]), true));
  assert.ok(!sameValue(/a/g, /a/i, true));
  assert.ok(sameValue(NaN, NaN, true));
});

/** An fs over `files` (`{ path: text }`) in /workspace, and the changes it sent. */
function fsWith(files, omitted = []) {
  const sent = [];
  const start = {
    cwd: "/workspace",
    files: Object.entries(files).map(([file, text]) => [file, new TextEncoder().encode(text)]),
    omitted,
  };
  const fs = makeFs(start, (change) => sent.push(change), Buffer.from("from stdin"), () => {});
  return { fs, sent };
}

test("fs reads, writes, lists and fails with Node's error codes", () => {
  const { fs, sent } = fsWith({ "/workspace/a.txt": "alpha", "/workspace/src/b.js": "b" }, ["/workspace/huge.bin"]);
  assert.equal(fs.readFileSync("/workspace/a.txt", "utf8"), "alpha");
  assert.equal(fs.readFileSync(0, "utf8"), "from stdin");
  assert.deepEqual(fs.readdirSync("/workspace"), ["a.txt", "huge.bin", "src"]);
  assert.deepEqual(fs.readdirSync("/workspace", { recursive: true }), ["a.txt", "huge.bin", "src", "src/b.js"]);
  assert.ok(fs.statSync("/workspace/src").isDirectory());
  const failsWith = (wanted, call) => {
    try {
      call();
    } catch (error) {
      return assert.equal(error.code, wanted, error.message);
    }
    assert.fail(`expected ${wanted}`);
  };
  assert.throws(() => fs.readFileSync("/workspace/missing"), { message: "ENOENT: no such file or directory, open '/workspace/missing'", errno: -2 });
  failsWith("ENOENT", () => fs.readFileSync("/workspace/missing"));
  failsWith("EISDIR", () => fs.readFileSync("/workspace/src"));
  failsWith("EFBIG", () => fs.readFileSync("/workspace/huge.bin"));
  failsWith("ENOENT", () => fs.writeFileSync("/workspace/no/dir.txt", "x"));
  failsWith("ENOTDIR", () => fs.writeFileSync("/workspace/a.txt/x", "x"));
  failsWith("EEXIST", () => fs.mkdirSync("/workspace/src"));
  failsWith("ENOTEMPTY", () => fs.rmdirSync("/workspace/src"));
  failsWith("EINVAL", () => fs.renameSync("/workspace/src", "/workspace/src/inner"));
  failsWith("ERR_INVALID_ARG_TYPE", () => fs.readFileSync(42));
  assert.equal(fs.statSync("/workspace/missing", { throwIfNoEntry: false }), undefined);
  assert.equal(sent.length, 0, "failures change nothing");

  fs.appendFileSync("/workspace/a.txt", " beta");
  fs.mkdirSync("/workspace/x/y", { recursive: true });
  fs.renameSync("/workspace/src", "/workspace/lib");
  fs.rmSync("/workspace/gone", { force: true });
  assert.equal(fs.readFileSync("/workspace/a.txt", "utf8"), "alpha beta");
  assert.equal(fs.readFileSync("/workspace/lib/b.js", "utf8"), "b");
  assert.ok(!fs.existsSync("/workspace/src"));
  const summary = sent.map(({ op, path: file, data }) => [op, file, data && new TextDecoder().decode(data)]);
  assert.deepEqual(summary, [
    ["write", "/workspace/a.txt", "alpha beta"],
    ["mkdir", "/workspace/x/y", undefined],
    ["mkdir", "/workspace/lib", undefined],
    ["write", "/workspace/lib/b.js", "b"],
    ["remove", "/workspace/src", undefined],
  ]);
});

test("fs: files named 1 and 2 are files, a NUL byte in a path is refused, and a directory holding an unsent file is not half moved", () => {
  const out = [];
  const start = { cwd: "/workspace", files: [["/workspace/data/a.txt", new TextEncoder().encode("a")]], omitted: ["/workspace/data/big.bin"] };
  const sent = [];
  const fs = makeFs(start, (change) => sent.push(change), Buffer.from(""), (fd, data) => out.push([fd, new TextDecoder().decode(data)]));
  // Relative names resolve against process.cwd(): the worker's is the workspace.
  const cwd = process.cwd;
  process.cwd = () => "/workspace";
  try {
    for (const name of ["1", "2"]) fs.writeFileSync(name, `result ${name}`);
  } finally {
    process.cwd = cwd;
  }
  assert.equal(fs.readFileSync("/workspace/1", "utf8"), "result 1");
  assert.equal(fs.readFileSync("/workspace/2", "utf8"), "result 2");
  fs.writeFileSync(1, "to stdout");
  fs.writeFileSync("/dev/stderr", "to stderr");
  assert.deepEqual(out, [[1, "to stdout"], [2, "to stderr"]]);
  sent.length = 0;
  for (const file of ["report\0.txt", Buffer.from("a\0b"), new URL("file:///workspace/x%00y")]) {
    assert.throws(() => fs.writeFileSync(file, "data"), { code: "ERR_INVALID_ARG_VALUE" });
  }
  assert.throws(() => fs.renameSync("/workspace/data", "/workspace/moved"), { code: "EFBIG" });
  assert.deepEqual(sent, [], "nothing was sent for either");
  assert.ok(fs.existsSync("/workspace/data/a.txt") && !fs.existsSync("/workspace/moved"));
});
