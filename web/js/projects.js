// Projects in and out of the workspace: a folder (picked, or dropped on the Files panel), a .zip
// (picked, dropped or pasted) or loose files (uploaded, dropped or pasted) come in; the workspace
// goes out as a .zip. Every import goes the same way: gather the files, skip .git/ and what the
// .gitignore files ignore, refuse the whole import over the caps or for an unsafe name, read
// everything, and only then write; a write that fails puts the workspace back as it was. The
// workspace right after an import is the baseline the Changes view compares with.

import { GitIgnore } from "./gitignore.js";
import { listZip, makeZip, readEntry, unsafeName, ZipError } from "./zip.js";
import { download, formatSize } from "./files.js";
import { setBaseline } from "./changes.js";

/** An import of more files than this is refused whole. */
export const MAX_FILES = 5000;
/** An import of more bytes than this (the files' own sizes, after .gitignore) is refused whole. */
export const MAX_BYTES = 20 * 1024 * 1024;
/** A .zip larger than this is not read at all. */
export const MAX_ARCHIVE_BYTES = 100 * 1024 * 1024;
/** The .gitignore files are read before the caps are checked, so they have caps of their own: their bytes in all, */
const MAX_GITIGNORE_BYTES = 1024 * 1024;
/** and their rules in all, against which every file is matched. */
const MAX_GITIGNORE_RULES = 10_000;

const $ = (id) => document.getElementById(id);

/** An import refused, or failed, with the workspace unchanged: the message says why. */
class ImportError extends Error {}

let getFs = null;
let imported = null;

/** `currentFs()` gives the files on screen; `onImported()` runs after every import that wrote files. */
export function initProjects(currentFs, onImported) {
  getFs = currentFs;
  imported = onImported;
  for (const id of ["open-folder", "upload"]) {
    $(id).addEventListener("change", (e) => {
      const files = [...e.target.files];
      e.target.value = "";
      if (files.length) run(() => fromFiles(files, id === "open-folder" ? folderName(files) : countOf(files)));
    });
  }
  $("open-zip").addEventListener("change", (e) => {
    const [file] = e.target.files;
    e.target.value = "";
    if (file) run(() => fromZip(file));
  });
  $("download-zip").addEventListener("click", () => exportZip().catch((error) => say(`The workspace cannot be zipped: ${error.message}`, "error")));
  const panel = $("files-panel");
  panel.addEventListener("dragover", (e) => {
    if (![...(e.dataTransfer?.items ?? [])].some((item) => item.kind === "file")) return;
    e.preventDefault();
    panel.classList.add("drop-target");
  });
  panel.addEventListener("dragleave", () => panel.classList.remove("drop-target"));
  panel.addEventListener("drop", (e) => {
    panel.classList.remove("drop-target");
    if (!e.dataTransfer?.files.length && !e.dataTransfer?.items.length) return;
    e.preventDefault();
    // The entries are only there while the event is dispatched: take them now, read them later.
    const entries = [...e.dataTransfer.items].filter((item) => item.kind === "file").map((item) => item.webkitGetAsEntry?.() ?? null);
    const files = [...e.dataTransfer.files];
    run(() => fromDrop(entries, files));
  });
  panel.addEventListener("paste", (e) => {
    const files = [...(e.clipboardData?.files ?? [])];
    if (!files.length) return;
    e.preventDefault();
    run(() => (files.length === 1 && isZip(files[0]) ? fromZip(files[0]) : fromFiles(files, countOf(files))));
  });
}

/** Shows a line under the Files panel's buttons: what was imported, or why nothing was. */
function say(text, state) {
  const line = $("import-status");
  line.hidden = false;
  line.textContent = text;
  line.dataset.state = state;
}

let importing = false;

/** Gathers with `gather()`, imports, and says how it went; nothing throws out of here. */
async function run(gather) {
  if (importing) return say("An import is still being read: wait for it, then try again.", "error");
  importing = true;
  say("Reading…", "busy");
  let done;
  try {
    const { label, ...found } = await gather();
    done = { label, ...(await write(label, found)) };
  } catch (error) {
    const reason = error instanceof ImportError ? error.message : `It failed: ${error?.message ?? error}`;
    say(`${reason} Nothing in the workspace was changed.`, "error");
    return;
  } finally {
    importing = false;
  }
  const { label, count, replaced, folder, skipped } = done;
  setBaseline(getFs().snapshot());
  const from = folder && folder !== `${label}/` ? ` from its folder ${folder}` : "";
  const replacedNote = replaced ? ` (${replaced} replaced)` : "";
  say(`Imported ${label}: ${plural(count, "file")}${from}${replacedNote}.${skippedNote(skipped)}`, "ok");
  imported();
}

const isZip = (file) => /\.zip$/i.test(file.name) || file.type === "application/zip";
const folderName = (files) => (files[0].webkitRelativePath || files[0].name).split("/")[0];
const countOf = (files) => (files.length === 1 ? files[0].name : `${files.length} files`);
const readFile = (file) => async () => new Uint8Array(await file.arrayBuffer());
const plural = (n, word) => `${n.toLocaleString()} ${word}${n === 1 ? "" : "s"}`;

/**
 * What an import leaves out, in .git/ and by .gitignore: the top-most path skipped ("build/",
 * "debug.log") -> how many files it held, or null for a dropped folder that was not entered.
 */
const newSkipped = () => ({ git: new Map(), ignored: new Map() });
const skip = (map, path, files) => map.set(path, files == null ? null : (map.get(path) ?? 0) + files);

/** Picked or pasted files, with their folder paths when a folder was picked. */
function fromFiles(files, label) {
  const candidates = files.map((file) => ({ path: file.webkitRelativePath || file.name, size: file.size, read: readFile(file) }));
  return { label, candidates };
}

async function fromZip(file) {
  const label = file.name;
  if (file.size > MAX_ARCHIVE_BYTES) {
    throw new ImportError(`${label} is ${formatSize(file.size)}: the playground reads archives of at most ${formatSize(MAX_ARCHIVE_BYTES)}.`);
  }
  const bytes = new Uint8Array(await file.arrayBuffer());
  const entries = zipped(label, () => listZip(bytes));
  const byPath = new Map();
  for (const entry of entries) {
    const why = unsafeName(entry.name);
    if (why) throw new ImportError(`${label} is refused: its entry “${entry.name}” cannot be written inside the workspace (${why}).`);
    const path = entry.name.split("/").filter((part) => part && part !== ".").join("/");
    if (byPath.has(path)) throw new ImportError(`${label} is refused: it holds “${path}” twice, and one would be lost.`);
    if (path) byPath.set(path, { path, size: entry.size, read: () => zipped(label, () => readEntry(bytes, entry)) });
  }
  return { label, candidates: [...byPath.values()] };
}

/** Runs `work`, turning a ZipError (sync or async) into an ImportError naming the archive. */
function zipped(label, work) {
  const explain = (error) => {
    throw error instanceof ZipError ? new ImportError(`${label} cannot be imported: ${error.message}.`) : error;
  };
  try {
    const result = work();
    return result instanceof Promise ? result.catch(explain) : result;
  } catch (error) {
    return explain(error);
  }
}

/** A drop: one .zip is unpacked; folders are walked; files are taken as they are. */
async function fromDrop(entries, files) {
  if (files.length === 1 && isZip(files[0]) && !entries[0]?.isDirectory) return fromZip(files[0]);
  if (!entries.some((entry) => entry?.isDirectory)) return fromFiles(files, countOf(files));
  const found = { candidates: [], skipped: newSkipped(), ignore: new GitIgnore() };
  await visit(entries.filter(Boolean), "", found);
  const dirs = entries.filter((entry) => entry?.isDirectory);
  return { label: dirs.length === 1 && entries.length === 1 ? dirs[0].name : `${entries.length} items`, ...found };
}

/** Walks dropped entries; .git/ and ignored directories are never entered (node_modules can be huge). */
async function visit(entries, dir, found) {
  const gitignore = entries.find((entry) => entry.isFile && entry.name === ".gitignore");
  if (gitignore) {
    const file = await fileOf(gitignore);
    await addGitignore(found.ignore, dir, file.size, readFile(file));
  }
  for (const entry of entries) {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory && entry.name === ".git") skip(found.skipped.git, `${path}/`, null);
    else if (entry.isDirectory && found.ignore.matches(path, true)) skip(found.skipped.ignored, `${path}/`, null);
    else if (entry.isDirectory) await visit(await childrenOf(entry), path, found);
    // An ignored file is not counted towards the cap, as the folder picker's import does not.
    else if (found.ignore.matches(path, false)) skip(found.skipped.ignored, path, 1);
    else {
      const file = await fileOf(entry);
      found.candidates.push({ path, size: file.size, read: readFile(file) });
      if (found.candidates.length > MAX_FILES) {
        throw new ImportError(`The drop holds more than ${MAX_FILES.toLocaleString()} files, the most the playground imports at once.`);
      }
    }
  }
}

const fileOf = (entry) => new Promise((resolve, reject) => entry.file(resolve, reject));

/** A directory's entries: readEntries gives them in batches until it gives none. */
async function childrenOf(dir) {
  const reader = dir.createReader();
  const all = [];
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (!batch.length) return all;
    all.push(...batch);
  }
}

/** The files to import (and what was skipped), after .git/ and the .gitignore files. */
async function filter(candidates, ignore, skipped) {
  if (!ignore) {
    ignore = new GitIgnore();
    // The shallowest first, and none in a directory already ignored: git never reads those.
    const depth = (path) => path.split("/").length;
    const gitignores = candidates.filter(({ path }) => !gitDirOf(path) && (path === ".gitignore" || path.endsWith("/.gitignore")));
    for (const { path, size, read } of gitignores.sort((a, b) => depth(a.path) - depth(b.path))) {
      if (ignore.ignoredBy(path)?.endsWith("/")) continue;
      await addGitignore(ignore, path.slice(0, path.lastIndexOf("/") + 1).replace(/\/$/, ""), size, read);
    }
  }
  const kept = [];
  for (const candidate of candidates) {
    const git = gitDirOf(candidate.path);
    const ignoredBy = git ? null : ignore.ignoredBy(candidate.path);
    if (git) skip(skipped.git, git, 1);
    else if (ignoredBy) skip(skipped.ignored, ignoredBy, 1);
    else kept.push(candidate);
  }
  return kept;
}

/** The `.git` directory a path is in ("a/.git/"), or null. */
function gitDirOf(path) {
  const parts = path.split("/");
  const at = parts.indexOf(".git");
  return at < 0 ? null : `${parts.slice(0, at + 1).join("/")}/`;
}

/** The one folder every path is in ("proj/"), which is left out: a project's files land in the workspace itself. */
function commonFolder(paths) {
  const first = paths[0]?.split("/")[0];
  return paths.length && paths.every((path) => path.includes("/") && path.split("/")[0] === first) ? `${first}/` : "";
}

/** Filters, checks the caps, reads everything, then writes it all (or, on a failure, nothing). */
async function write(label, { candidates, ignore, skipped = newSkipped() }) {
  const kept = await filter(candidates, ignore, skipped);
  const folder = commonFolder([...kept.map((c) => c.path), ...skipped.git.keys(), ...skipped.ignored.keys()]);
  const strip = (map) => new Map([...map].map(([path, files]) => [path.slice(folder.length), files]));
  const skippedShown = { git: strip(skipped.git), ignored: strip(skipped.ignored) };
  if (!kept.length) throw new ImportError(`${label} has no files to import.${skippedNote(skippedShown)}`);
  const total = kept.reduce((sum, c) => sum + c.size, 0);
  if (kept.length > MAX_FILES || total > MAX_BYTES) {
    throw new ImportError(
      `${label} is too large: ${kept.length.toLocaleString()} files, ${formatSize(total)}; the playground imports at most ` +
        `${MAX_FILES.toLocaleString()} files and ${formatSize(MAX_BYTES)} at once. A .gitignore can leave out what the agent does not need.`,
    );
  }
  const contents = [];
  for (const candidate of kept) contents.push([candidate.path.slice(folder.length), await candidate.read()]);
  const fs = getFs();
  const root = fs.workingDirectory.replace(/\/$/, "");
  const before = fs.snapshot();
  const existing = new Set(fs.list());
  let replaced = 0;
  for (const [path, bytes] of contents) {
    const full = `${root}/${path}`;
    try {
      if (existing.has(full)) replaced++;
      fs.write(full, bytes);
    } catch (error) {
      fs.restore(before);
      throw new ImportError(`${label}: ${path} cannot be written (${error.message}).`);
    }
  }
  return { count: contents.length, replaced, folder, skipped: skippedShown };
}

function skippedNote({ git, ignored }) {
  const some = (paths) => {
    const list = [...paths].sort();
    return list.length > 4 ? `${list.slice(0, 4).join(", ")} and ${list.length - 4} more` : list.join(", ");
  };
  const files = (map) => [...map.values()].reduce((sum, n) => sum + (n ?? 0), 0);
  const folders = (map) => [...map.values()].filter((n) => n == null).length;
  const parts = [];
  if (ignored.size) {
    const counts = [files(ignored) && plural(files(ignored), "file"), folders(ignored) && plural(folders(ignored), "folder")];
    parts.push(`${counts.filter(Boolean).join(" and ")} ignored by .gitignore (${some(ignored.keys())})`);
  }
  if (git.size) parts.push(`${some(git.keys())} (${files(git) ? `${plural(files(git), "file")}, ` : ""}always skipped)`);
  return parts.length ? ` Skipped ${parts.join(" and ")}.` : "";
}

/** Reads the .gitignore of `dir` into `ignore`, within the caps on all the .gitignore files together. */
async function addGitignore(ignore, dir, size, read) {
  const path = dir ? `${dir}/.gitignore` : ".gitignore";
  if (ignore.textLength + size > MAX_GITIGNORE_BYTES) {
    throw new ImportError(`The .gitignore files, up to ${path}, are more than ${formatSize(MAX_GITIGNORE_BYTES)} in all, which the playground does not read.`);
  }
  ignore.add(dir, new TextDecoder().decode(await read()));
  if (ignore.ruleCount > MAX_GITIGNORE_RULES) {
    throw new ImportError(`The .gitignore files, up to ${path}, hold more than ${MAX_GITIGNORE_RULES.toLocaleString()} rules in all, which the playground does not read.`);
  }
}

/** Downloads every file of the workspace as workspace.zip, paths relative to it. */
async function exportZip() {
  const fs = getFs();
  const root = `${fs.workingDirectory.replace(/\/$/, "")}/`;
  const files = fs
    .list()
    .filter((path) => path.startsWith(root))
    .map((path) => ({ name: path.slice(root.length), bytes: fs.read(path) }));
  download("workspace.zip", await makeZip(files));
}
