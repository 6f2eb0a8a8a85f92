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
// A fetch that stalls would hold every agent waiting on its module.
const LOAD_TIMEOUT_MS = 30_000;

let from;
const loads = new Map();

export function modulesFrom(url) {
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
  const signal = AbortSignal.timeout(LOAD_TIMEOUT_MS);
  try {
    const response = await fetch(url, { signal });
    if (!response.ok) throw new Error(`${url} answered ${response.status} ${response.statusText}`.trim());
    return await response.arrayBuffer();
  } catch (error) {
    throw signal.aborted ? new Error(`${url} did not arrive within ${LOAD_TIMEOUT_MS / 1000} s`) : error;
  }
}
