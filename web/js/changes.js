// The Changes view: what differs between the workspace and its baseline, the workspace as it was
// right after the last import (or when the session began), kept with the session so it survives a
// reload. Files added, modified and deleted, each with its line diff.

import { diffLines, hunks, MAX_EDITS } from "./diff.js";
import { formatSize, onShowFiles, textOf } from "./files.js";
import { element } from "./dom.js";

/** Lines shown of one file's diff; the rest is counted in a note. */
const MAX_SHOWN_LINES = 400;

const $ = (id) => document.getElementById(id);
let baseline = null; // a MemoryFs snapshot, or null when the session has none
let baselineFiles = null; // its files, path -> bytes, decoded once: the view redraws after every tool call
let getFs = null;

/** Sets the baseline (a MemoryFs snapshot, or null), and redraws the view if it is open. */
export function setBaseline(snapshot) {
  baseline = snapshot;
  baselineFiles = null;
  if (!$("changes").hidden) showChanges();
}

export const getBaseline = () => baseline;

export function initChanges(currentFs) {
  getFs = currentFs;
  $("show-changes").addEventListener("click", showChanges);
  $("changes-close").addEventListener("click", () => {
    $("changes").hidden = true;
  });
  // The agent's edits show as they happen.
  onShowFiles(() => {
    if (!$("changes").hidden) showChanges();
  });
}

function showChanges() {
  $("changes").hidden = false;
  const list = $("changes-list");
  if (!baseline) {
    $("changes-summary").textContent = "This session has no baseline to compare with: import a folder, a .zip or files to set one.";
    list.replaceChildren();
    return;
  }
  baselineFiles ??= new Map(baseline.files.filter((f) => shown(f.path)).map((f) => [f.path, bytesOf(f)]));
  const changed = compare(baselineFiles, getFs());
  const count = (status) => changed.filter((c) => c.status === status).length;
  $("changes-summary").textContent = changed.length
    ? `Since the last import: ${count("added")} added, ${count("modified")} modified, ${count("deleted")} deleted.`
    : "No changes since the last import.";
  list.replaceChildren(...changed.map(render));
}

const shown = (path) => !path.startsWith("/tmp/");

/** [{ path, status, before, after }] sorted by path; `before`/`after` are Uint8Arrays (or null). */
function compare(before, fs) {
  const now = new Set(fs.list().filter(shown));
  const paths = [...new Set([...before.keys(), ...now])].sort();
  const changes = [];
  for (const path of paths) {
    const old = before.get(path) ?? null;
    const current = now.has(path) ? fs.read(path) : null;
    const status = !old ? "added" : !current ? "deleted" : equal(old, current) ? null : "modified";
    if (status) changes.push({ path, status, before: old, after: current });
  }
  return changes;
}

function bytesOf(file) {
  return file.text != null ? new TextEncoder().encode(file.text) : Uint8Array.from(atob(file.base64), (c) => c.charCodeAt(0));
}

function equal(a, b) {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function render({ path, status, before, after }) {
  const item = document.createElement("details");
  item.className = `change ${status}`;
  item.dataset.path = path;
  item.open = true;
  const summary = document.createElement("summary");
  const badge = document.createElement("span");
  badge.className = "badge";
  badge.textContent = status;
  const name = document.createElement("span");
  name.className = "change-path";
  name.textContent = path;
  summary.append(badge, name);
  const [textBefore, textAfter] = [before, after].map((bytes) => (bytes ? textOf(bytes) : ""));
  const body = document.createElement("div");
  body.className = "diff";
  if (textBefore == null || textAfter == null) {
    const size = (bytes) => (bytes ? formatSize(bytes.length) : "none");
    body.append(note(`Binary file: ${size(before)} before, ${size(after)} now.`));
  } else {
    const [a, b] = [textBefore, textAfter].map(linesOf);
    const script = diffLines(a, b);
    if (script?.length === 0) {
      body.append(note("An empty file."));
    } else if (script?.every(([op]) => op === " ")) {
      body.append(note("Only the newline at the end of the file changed."));
    } else if (!script) {
      body.append(note(`Too large to diff line by line (${a.length.toLocaleString()} lines before, ${b.length.toLocaleString()} now; at most ${MAX_EDITS.toLocaleString()} changed lines are shown as a diff).`));
    } else {
      const added = script.filter(([op]) => op === "+").length;
      const removed = script.filter(([op]) => op === "-").length;
      const stat = document.createElement("span");
      stat.className = "change-stat";
      stat.textContent = `+${added} −${removed}`;
      summary.append(stat);
      body.append(...diffRows(hunks(script)));
    }
  }
  item.append(summary, body);
  return item;
}

/** A text's lines; a newline ends the last line rather than starting an empty one. */
function linesOf(text) {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

function diffRows(fileHunks) {
  const rows = [];
  const total = fileHunks.reduce((sum, hunk) => sum + hunk.lines.length + 1, 0);
  for (const { header, lines } of fileHunks) {
    for (const [op, text] of [["@", header], ...lines]) {
      if (rows.length === MAX_SHOWN_LINES) {
        rows.push(note(`… ${(total - MAX_SHOWN_LINES).toLocaleString()} more lines of this diff are not shown.`));
        return rows;
      }
      const row = document.createElement("div");
      row.className = { "@": "hunk", "+": "add", "-": "del", " ": "ctx" }[op];
      // A line's carriage return and a byte order mark are shown: a change to them alone is one.
      row.textContent = op === "@" ? text : `${op}${text.replace(/\r$/, "␍").replace(/^\uFEFF/, "[BOM]")}`;
      rows.push(row);
    }
  }
  return rows;
}

const note = (text) => element("p", text, "diff-note");
