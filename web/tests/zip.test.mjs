// The zip container (web/js/zip.js) in Node, which has the same CompressionStream and
// DecompressionStream as browsers: its archives read back with zlib, archives from elsewhere
// (zlib's, Info-ZIP's ZIP64) read with it, and damage is caught.

import assert from "node:assert/strict";
import { test } from "node:test";
import { listZip, makeZip, readEntry, unsafeName, ZipError } from "../js/zip.js";
import { unzip, zipOf } from "./zipfile.mjs";

const BINARY = Uint8Array.from({ length: 2000 }, (_, i) => (i * 31) % 256);

async function readAll(bytes) {
  const files = new Map();
  for (const entry of listZip(bytes)) files.set(entry.name, Buffer.from(await readEntry(bytes, entry)));
  return files;
}

test("makeZip's archives unzip with zlib, byte for byte, stored or deflated", async () => {
  const files = [
    { name: "src/main.js", bytes: new TextEncoder().encode("console.log(1);\n".repeat(50)) },
    { name: "ünïcode/naïve.txt", bytes: new TextEncoder().encode("é\n") },
    { name: "bin/blob", bytes: BINARY },
    { name: "empty", bytes: new Uint8Array() },
  ];
  const zip = Buffer.from(await (await makeZip(files)).arrayBuffer());
  const back = unzip(zip);
  assert.deepEqual([...back.keys()], files.map((f) => f.name));
  for (const { name, bytes } of files) assert.ok(back.get(name).equals(Buffer.from(bytes)), name);
  assert.deepEqual(await readAll(new Uint8Array(zip)), back);
});

test("archives written by zlib, and Info-ZIP's ZIP64 ones, are read", async () => {
  const zip = zipOf([{ name: "dir/a.txt", bytes: "alpha\n" }, { name: "dir/", bytes: "" }, { name: "b.bin", bytes: Buffer.from(BINARY) }]);
  const files = await readAll(new Uint8Array(zip));
  assert.deepEqual([...files.keys()], ["dir/a.txt", "b.bin"], "directory entries are left out");
  assert.ok(files.get("b.bin").equals(Buffer.from(BINARY)));
  // `zip -fz z.zip a.txt b.txt` (Info-ZIP 3.0): a ZIP64 end record and ZIP64 sizes.
  const zip64 = Buffer.from("UEsDBC0AAAAAAGlJeF3q40/t//////////8FADAAYS50eHRVVAkAA7ZUBWu2VAVrdXgLAAEEAAAAAAQAAAAAAQAQAAwAAAAAAAAADAAAAAAAAABoZWxsbyB6aXA2NApQSwMELQAAAAAAaUl4XX7ADwb//////////wUAMABiLnR4dFVUCQADtlQFa7ZUBWt1eAsAAQQAAAAABAAAAAABABAABwAAAAAAAAAHAAAAAAAAAHNlY29uZApQSwECHgMtAAAAAABpSXhd6uNP7QwAAAD/////BQAkAAAAAAABAAAApIEAAAAAYS50eHRVVAUAA7ZUBWt1eAsAAQQAAAAABAAAAAABAAgADAAAAAAAAABQSwECHgMtAAAAAABpSXhdfsAPBgcAAAD/////BQAkAAAAAAABAAAApIFfAAAAYi50eHRVVAUAA7ZUBWt1eAsAAQQAAAAABAAAAAABAAgABwAAAAAAAABQSwYGLAAAAAAAAAAeAy0AAAAAAAAAAAACAAAAAAAAAAIAAAAAAAAArgAAAAAAAAC5AAAAAAAAAFBLBgcAAAAAZwEAAAAAAAABAAAAUEsFBgAAAAACAAIArgAAAP////8AAA==", "base64");
  const read = await readAll(new Uint8Array(zip64));
  assert.deepEqual(Object.fromEntries([...read].map(([name, bytes]) => [name, bytes.toString()])), { "a.txt": "hello zip64\n", "b.txt": "second\n" });
});

test("damage is a ZipError that says what is wrong", async () => {
  const zip = new Uint8Array(zipOf([{ name: "a.txt", bytes: "a".repeat(4000) }]));
  const fails = async (bytes, pattern) => {
    await assert.rejects(async () => readAll(bytes), (error) => error instanceof ZipError && pattern.test(error.message));
  };
  await fails(new TextEncoder().encode("not a zip"), /not a zip archive, or it is truncated/);
  await fails(zip.subarray(0, zip.length - 5), /not a zip archive, or it is truncated/);
  await fails(zip.subarray(20), /truncated or corrupt|damaged/);
  const badCrc = zip.slice();
  badCrc[30 + 5 + 2] ^= 1; // a bit of the deflated data
  await fails(badCrc, /it is corrupt: a\.txt/);
  // A header that understates the size: inflating stops at the declared size (a zip bomb).
  const bomb = zip.slice();
  const central = bomb.length - 22 - 46 - 5;
  new DataView(bomb.buffer).setUint32(central + 24, 100, true);
  await fails(bomb, /a\.txt inflates to more than the 100 bytes its header says/);
});

test("entry names that would leave the workspace are named unsafe", () => {
  for (const [name, why] of [
    ["../x", /climbs out/],
    ["a/../../x", /climbs out/],
    ["/etc/passwd", /absolute/],
    ["C:/x", /drive letter/],
    ["c:x", /drive letter/],
    ["a\\b", /backslash/],
    ["a\u0000b", /control character/],
  ]) assert.match(unsafeName(name) ?? "", why, name);
  for (const name of ["a", "a/b.txt", "..a/b..", ".hidden/x", "a/./b"]) assert.equal(unsafeName(name), null, name);
});

test("names without the UTF-8 flag are UTF-8 when valid, and code page 437 when not", () => {
  const zip = zipOf([
    { name: Buffer.from("caf\x82.txt", "latin1"), bytes: "e acute", utf8: false },
    { name: Buffer.from("caf\x8a.txt", "latin1"), bytes: "e grave", utf8: false },
    { name: "naïve.txt", bytes: "UTF-8 without the flag", utf8: false },
  ]);
  assert.deepEqual(listZip(zip).map((entry) => entry.name), ["café.txt", "cafè.txt", "naïve.txt"]);
});

test("a zip of exactly 65,535 entries, as makeZip writes it, reads back", async () => {
  const files = Array.from({ length: 0xffff }, (_, i) => ({ name: `f${i}`, bytes: new Uint8Array() }));
  const bytes = new Uint8Array(await (await makeZip(files)).arrayBuffer());
  const entries = listZip(bytes);
  assert.equal(entries.length, 0xffff);
  assert.equal(entries.at(-1).name, "f65534");
});

test("a zip with bytes in front of it (a self-extracting stub) is read, as unzip and Python read it", async () => {
  const zip = new Uint8Array(Buffer.concat([Buffer.from("#!/bin/sh\nexit 0\n"), zipOf([{ name: "a.txt", bytes: "hello\n" }, { name: "b/c.txt", bytes: "deeper\n" }])]));
  const files = await readAll(zip);
  assert.deepEqual([...files].map(([name, bytes]) => [name, bytes.toString()]), [["a.txt", "hello\n"], ["b/c.txt", "deeper\n"]]);
});
