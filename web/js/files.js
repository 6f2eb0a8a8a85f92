// The in-memory file tree, its viewer and downloads (imports are projects.js's).

const $ = (id) => document.getElementById(id);
let fs = null;
let selected = null;
const shownListeners = [];

/** Runs `listener()` each time the tree is redrawn (after every tool call, say). */
export function onShowFiles(listener) {
  shownListeners.push(listener);
}

/** The text of `bytes`, or null for binary content: not UTF-8, or holding a NUL (the core's rule). */
export function textOf(bytes) {
  try {
    // With its byte order mark, if it has one: the file's own first character.
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    return text.includes("\0") ? null : text;
  } catch {
    return null;
  }
}

/** `getFs()` gives the files on screen. */
export function initFiles(getFs) {
  $("download-all").addEventListener("click", () => {
    download("workspace.snapshot.json", new Blob([JSON.stringify(getFs().snapshot(), null, 2)], { type: "application/json" }));
  });
  $("viewer-close").addEventListener("click", () => {
    selected = null;
    $("viewer").hidden = true;
    showFiles(getFs());
  });
  $("viewer-download").addEventListener("click", () => {
    if (selected) download(selected.split("/").pop(), new Blob([getFs().read(selected)]));
  });
}

export function download(name, blob) {
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 1000);
}

/** Redraws the tree from `memoryFs` (and the open file, which the agent may have changed). */
export function showFiles(memoryFs) {
  fs = memoryFs;
  const paths = fs.list().filter((p) => !p.startsWith("/tmp/"));
  const root = {};
  for (const path of paths) {
    let node = root;
    const parts = path.split("/").filter(Boolean);
    parts.forEach((part, i) => {
      node[part] ??= i === parts.length - 1 ? path : {};
      node = node[part];
    });
  }
  const tree = $("file-tree");
  tree.replaceChildren(...(paths.length ? render(root) : [empty()]));
  if (selected && !paths.includes(selected)) selected = null;
  if (selected) view(selected);
  else $("viewer").hidden = true;
  for (const listener of shownListeners) listener();
}

function empty() {
  const li = document.createElement("li");
  li.className = "empty";
  li.textContent = "No files yet";
  return li;
}

function render(node) {
  return Object.keys(node).sort().map((name) => {
    const li = document.createElement("li");
    if (typeof node[name] === "string") {
      const path = node[name];
      li.className = "file";
      li.dataset.path = path;
      li.classList.toggle("selected", path === selected);
      const label = document.createElement("span");
      label.textContent = name;
      const bytes = fs.read(path);
      const size = document.createElement("span");
      size.className = "size";
      size.textContent = formatSize(bytes.length);
      li.append(label, size);
      if (textOf(bytes) == null) {
        li.dataset.binary = "true";
        const badge = document.createElement("span");
        badge.className = "binary";
        badge.textContent = "binary";
        badge.title = "Kept byte for byte; the viewer does not show it";
        size.before(badge);
      }
      li.addEventListener("click", () => {
        selected = path;
        showFiles(fs);
      });
    } else {
      li.innerHTML = "";
      const label = document.createElement("div");
      label.className = "dir";
      label.textContent = `${name}/`;
      const children = document.createElement("ul");
      children.append(...render(node[name]));
      li.append(label, children);
    }
    return li;
  });
}

function view(path) {
  $("viewer").hidden = false;
  $("viewer-path").textContent = path;
  const bytes = fs.read(path);
  $("viewer-content").textContent = textOf(bytes) ?? `(binary file, ${formatSize(bytes.length)}: use Download)`;
}

export function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
