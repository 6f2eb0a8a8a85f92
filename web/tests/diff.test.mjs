// The line diff (web/js/diff.js), in Node: scripts that replay both sides, minimal on known cases,
// hunks with their unified-diff headers, and the cap on huge diffs.

import assert from "node:assert/strict";
import { test } from "node:test";
import { diffLines, hunks } from "../js/diff.js";

const side = (script, skip) => script.filter(([op]) => op !== skip).map(([, line]) => line);
const edits = (script) => script.filter(([op]) => op !== " ").length;

test("every script replays both sides (random inputs)", () => {
  let seed = 7;
  const random = (n) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  for (let round = 0; round < 2000; round++) {
    const a = Array.from({ length: random(14) }, () => "abcd"[random(4)]);
    const b = Array.from({ length: random(14) }, () => "abcd"[random(4)]);
    const script = diffLines(a, b);
    assert.deepEqual(side(script, "+"), a);
    assert.deepEqual(side(script, "-"), b);
  }
});

test("the script is minimal", () => {
  assert.equal(edits(diffLines("a b c a b b a".split(" "), "c b a b a c".split(" "))), 5); // Myers' own example
  assert.equal(edits(diffLines(["x"], ["x"])), 0);
  assert.equal(edits(diffLines([], ["1", "2"])), 2);
});

test("hunks carry three lines of context and unified-diff headers", () => {
  const a = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
  const b = [...a];
  b[4] = "changed 5";
  b.splice(15, 0, "inserted");
  const [first, second] = hunks(diffLines(a, b));
  assert.equal(first.header, "@@ -2,7 +2,7 @@");
  assert.deepEqual(first.lines.map(([op]) => op).join(""), "   -+   ");
  assert.equal(second.header, "@@ -13,6 +13,7 @@");
  assert.deepEqual(hunks(diffLines([], ["new"])).map((h) => h.header), ["@@ -0,0 +1,1 @@"]);
  assert.deepEqual(hunks(diffLines(["gone"], [])).map((h) => h.header), ["@@ -1,1 +0,0 @@"]);
});

test("more changed lines than the cap give null rather than a long wait", () => {
  const a = Array.from({ length: 3000 }, (_, i) => `a${i}`);
  const b = Array.from({ length: 3000 }, (_, i) => `b${i}`);
  assert.equal(diffLines(a, b), null);
  assert.equal(diffLines(a, b, 10_000).length, 6000);
});

test("one changed line in a long file is diffed: only what lies between the common head and tail counts", () => {
  const a = Array.from({ length: 25_001 }, (_, i) => `line ${i}`);
  const b = a.with(12_345, "changed");
  const script = diffLines(a, b);
  assert.ok(script, "diffed");
  assert.equal(edits(script), 2);
  const shuffled = Array.from({ length: 60_000 }, (_, i) => `other ${i}`);
  assert.equal(diffLines(a, shuffled), null, "a middle of more than 50,000 lines is not worked out");
});
