// .gitignore rules (web/js/gitignore.js) against what gitignore(5) says, in Node: no browser needed.

import assert from "node:assert/strict";
import { test } from "node:test";
import { GitIgnore } from "../js/gitignore.js";

function ignoring(rules) {
  const ignore = new GitIgnore();
  for (const [dir, text] of Object.entries(rules)) ignore.add(dir, text);
  return ignore;
}

/** Asserts what ignores each path: its top-most ignored directory, itself, or nothing (null). */
function expect(ignore, cases) {
  for (const [path, by] of Object.entries(cases)) assert.equal(ignore.ignoredBy(path), by, path);
}

test("a pattern without a slash matches a name at any depth; * stays within a segment", () => {
  expect(ignoring({ "": "# a comment\n\n*.log\nfoo*bar\n" }), {
    "a.log": "a.log",
    "deep/down/b.log": "deep/down/b.log",
    "a.log.txt": null,
    "foobazbar": "foobazbar",
    "foo/bar": null,
    "# a comment": null,
  });
});

test("! re-includes, and the last matching line wins", () => {
  expect(ignoring({ "": "*.log\n!keep.log\nnever.log\n!never.log\n*.tmp\n!*.tmp\n*.tmp\n" }), {
    "a.log": "a.log",
    "keep.log": null,
    "never.log": null,
    "x.tmp": "x.tmp",
  });
});

test("a trailing slash matches directories only, and what is in them stays ignored", () => {
  expect(ignoring({ "": "build/\nout/\n!out/keep.txt\n" }), {
    "build/a.js": "build/",
    "src/build/a.js": "src/build/",
    "build": null, // a file named build
    "out/keep.txt": "out/", // a file cannot be re-included inside an ignored directory
  });
});

test("a leading or middle slash anchors the pattern to its file's directory", () => {
  expect(ignoring({ "": "/top.txt\ndoc/*.md\n" }), {
    "top.txt": "top.txt",
    "sub/top.txt": null,
    "doc/a.md": "doc/a.md",
    "doc/deep/a.md": null,
    "other/doc/a.md": null,
  });
});

test("** spans directories: leading, trailing and in the middle", () => {
  expect(ignoring({ "": "**/cache\nlogs/**\na/**/z.txt\n" }), {
    "cache/x": "cache/",
    "deep/er/cache/x": "deep/er/cache/",
    "logs/today/1.txt": "logs/today/",
    "logs/1.txt": "logs/1.txt",
    "a/z.txt": "a/z.txt",
    "a/b/c/z.txt": "a/b/c/z.txt",
    "b/a/z.txt": null,
  });
});

test("?, [...] and escapes", () => {
  expect(ignoring({ "": "file?.txt\n[abc].md\n[!x]y.js\n\\#hash\n\\!bang\ntrailing\\ \nspace  \n" }), {
    "file1.txt": "file1.txt",
    "file10.txt": null,
    "b.md": "b.md",
    "d.md": null,
    "ay.js": "ay.js",
    "xy.js": null,
    "#hash": "#hash",
    "!bang": "!bang",
    "trailing ": "trailing ",
    "space": "space",
  });
});

test("a nested .gitignore applies to its own subtree, and wins over its parents", () => {
  expect(ignoring({ "": "*.secret\n", "src/nested": "secret.txt\n!ok.secret\n/anchored.txt\n" }), {
    "src/nested/secret.txt": "src/nested/secret.txt",
    "secret.txt": null,
    "src/secret.txt": null,
    "src/nested/ok.secret": null,
    "src/nested/other.secret": "src/nested/other.secret",
    "src/nested/anchored.txt": "src/nested/anchored.txt",
    "src/nested/deeper/anchored.txt": null,
  });
});

test("a pattern git cannot match (an unclosed [, a trailing backslash) matches nothing, and the other lines still apply", () => {
  const ignore = new GitIgnore();
  ignore.add("", "*.log\na[b\nfoo\\\n[[:nope:]]\n");
  assert.equal(ignore.ignoredBy("x.log"), "x.log");
  for (const file of ["a[b", "foo\\", "n"]) assert.equal(ignore.ignoredBy(file), null, file);
  assert.equal(ignore.ruleCount, 1);
});

test("brackets and escapes as git's wildmatch reads them (each case checked against git check-ignore)", () => {
  const cases = [
    ["[!]a]x", "bx", true],
    ["[!]a]x", "ax", false],
    ["[[:digit:]]*.txt", "1a.txt", true],
    ["[[:digit:]]*.txt", "a1.txt", false],
    ["[\\]]z", "]z", true],
    ["[\\!]y", "\\y", false],
    ["[\\!]y", "!y", true],
    ["[\\d]", "d", true],
    ["[\\d]", "1", false],
    ["a[b", "a[b", false],
    ["foo\\", "foo\\", false],
    ["a\\\\ ", "a\\", true],
    ["[a-c]x", "bx", true],
    ["[z-a]", "z", true],
    ["[z-a]", "a", false],
    ["[z-a]", "m", false],
    ["[-z]x", "-x", true],
    ["a[/]b", "a/b", false],
  ];
  for (const [pattern, file, ignored] of cases) {
    const ignore = new GitIgnore();
    ignore.add("", `${pattern}\n`);
    assert.equal(ignore.ignoredBy(file) !== null, ignored, `${pattern} against ${file}`);
  }
});
