// The in-memory file tree, its viewer, uploads and downloads.

const $ = (id) => document.getElementById(id);
let fs = null;
let selected = null;

/** `getFs()` gives the files on screen; `onUpload()` runs after files were added. */
export function initFiles(getFs, onUpload) {
  $("upload").addEventListener("change", async (e) => {
    for (const file of e.target.files) {
      getFs().write(file.name, new Uint8Array(await file.arrayBuffer()));
    }
    e.target.value = "";
    showFiles(getFs());
    onUpload();
  });
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
      const size = document.createElement("span");
      size.className = "size";
      size.textContent = formatSize(fs.read(path).length);
      li.append(label, size);
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
  let text;
  try {
    text = fs.readText(path);
  } catch {
    text = `(binary file, ${formatSize(fs.read(path).length)}: use Download)`;
  }
  $("viewer-content").textContent = text;
}

function formatSize(bytes) {
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}
