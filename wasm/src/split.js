// The modules scripts/build-wasm splits out of the package's main one (wasm/src/split.rs): each
// is fetched when first needed, and instantiated on the main module's memory, stack pointer and
// function table, whose slots it fills. A load that fails is forgotten, so the next call tries
// again.

// Each module's file, named for its build (scripts/finish-glue writes them in): a page left open
// across a new release asks for its own build's files, and gets an error once they are gone,
// never another build's, which would not fit its main module.
const FILES = {};
// Where they are: beside the glue (which scripts/finish-glue writes in too, as this file's path
// to it), unless the page says otherwise (`modulesFrom`).
const GLUE = "./";
// A fetch that stalls would hold every agent waiting on its module: one silent this long fails.
const SILENCE_MS = 30_000;

let from;
const loads = new Map();

export function modulesFrom(url) {
  if (typeof url !== "string" && !(url instanceof URL)) throw new TypeError(`modulesFrom: a URL or a string, not ${typeof url}`);
  const base = new URL(url, globalThis.location?.href);
  if (!base.pathname.endsWith("/")) base.pathname += "/";
  from = base;
}

export function loadModule(name, exports) {
  let load = loads.get(name);
  if (!load) {
    load = instantiate(name, exports);
    loads.set(name, load);
    load.catch(() => loads.get(name) === load && loads.delete(name));
  }
  return load;
}

async function instantiate(name, exports) {
  const file = FILES[name];
  if (!file) throw new Error(`this package has no ${name} module (it was built without splitting)`);
  const url = new URL(file, from ?? new URL(GLUE, import.meta.url));
  const module = await WebAssembly.compile(await bytesOf(url));
  const imports = {};
  for (const { module: source, name: item } of WebAssembly.Module.imports(module)) {
    if (!(item in exports)) throw new Error(`${url} needs \`${item}\`, which this package's main module lacks: the files come from different builds`);
    (imports[source] ??= {})[item] = exports[item];
  }
  await WebAssembly.instantiate(module, imports);
}

async function bytesOf(url) {
  if (url.protocol === "file:") {
    // Node, which cannot fetch a file: URL. The name is not spelled out, so that bundlers leave it.
    const fs = "node:fs/promises";
    return (await import(fs)).readFile(url);
  }
  // The timer starts again with every chunk, so a slow download goes on, and it settles the load
  // whether or not this fetch heeds the abort.
  const controller = new AbortController();
  let timer, silent;
  const quiet = new Promise((_, reject) => (silent = () => reject(new Error(`${url} sent nothing for ${SILENCE_MS / 1000} s`))));
  const wait = () => {
    clearTimeout(timer);
    timer = setTimeout(() => (silent(), controller.abort()), SILENCE_MS);
  };
  const download = (async () => {
    const response = await fetch(url, { signal: controller.signal });
    if (!response.ok) throw new Error(`${url} answered ${response.status} ${response.statusText}`.trim());
    const chunks = [];
    for (const reader = response.body.getReader(); ; ) {
      const { done, value } = await reader.read();
      if (done) return new Blob(chunks).arrayBuffer();
      chunks.push(value);
      wait();
    }
  })();
  wait();
  try {
    return await Promise.race([download, quiet]);
  } finally {
    clearTimeout(timer);
    controller.abort();
    download.catch(() => {});
  }
}
