// The modules scripts/build-wasm splits out of the package's main one (wasm/src/codecs.rs): each
// is fetched from beside the glue when first needed, and instantiated on the main module's memory,
// stack pointer and function table, whose slots it fills. A load that fails is forgotten, so the
// next call tries again.

const loads = new Map();

export function loadModule(name, exports) {
  let load = loads.get(name);
  if (!load) {
    load = instantiate(`openagent_wasm_${name}.wasm`, exports);
    loads.set(name, load);
    load.catch(() => loads.delete(name));
  }
  return load;
}

async function instantiate(file, exports) {
  // After esbuild bundles this file into the glue, import.meta.url is the glue's own URL.
  const url = new URL(file, import.meta.url);
  const module = await WebAssembly.compile(await bytesOf(url));
  const imports = {};
  for (const { module: from, name } of WebAssembly.Module.imports(module)) {
    if (!(name in exports)) throw new Error(`${file} needs \`${name}\`, which this package's main module lacks: the files come from different builds`);
    (imports[from] ??= {})[name] = exports[name];
  }
  await WebAssembly.instantiate(module, imports);
}

async function bytesOf(url) {
  if (url.protocol === "file:") {
    // Node, which cannot fetch a file: URL. The name is not spelled out, so that bundlers leave it.
    const fs = "node:fs/promises";
    return (await import(fs)).readFile(url);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url} answered ${response.status} ${response.statusText}`.trim());
  return response.arrayBuffer();
}
