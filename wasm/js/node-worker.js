// The worker side of `node` (node.js starts one per run): a CommonJS world in the style of Node
// over a snapshot of the agent's files. It gets one message, { mode, code|file, args, cwd, env,
// stdin, files, omitted, allowNetwork, version }, and answers with messages: { type: "out", fd,
// data } for output, { type: "fs", op: "write"|"mkdir"|"remove", path, ... } for each change to the
// files, and a last { type: "exit", code }.
//
// When the run ends (Node's rule): once the script's code has run and its promise (top-level
// `await`) has settled, and no timer, immediate, fetch or other platform work (a body being read,
// Web Crypto, ...) is pending (`unref()`ed timers do not count), the exit code is
// `process.exitCode` (0) as the `exit` listeners leave it. A promise that can never settle,
// because nothing is left that could settle it, ends the run with exit code 13, as Node does.

import { lockDown, lockDownBut } from "./no-network.js";
import { makeBuiltins } from "./node-builtins.js";
import { makeFs } from "./node-fs.js";
import { Buffer, inspect, makeConsole, path } from "./node-lib.js";

const post = self.postMessage.bind(self);
const timers = { setTimeout: setTimeout.bind(self), clearTimeout: clearTimeout.bind(self), setInterval: setInterval.bind(self), clearInterval: clearInterval.bind(self) };
const EXIT = Symbol("process.exit");
const WORKER_URL = import.meta.url.replace(/\/[^/]*$/, "/");

self.onmessage = ({ data }) => {
  self.onmessage = null;
  run(data);
};

function run(start) {
  let ending = false;
  let exiting = false;
  let settled = false;
  let pending = 0;
  let sent = 0;

  // Output past the cap is not sent: one unit past it tells the page it was cut (a string's
  // units are at most its bytes, so the page, which counts bytes, sees it too).
  const write = (fd, chunk) => {
    const room = start.maxOutputBytes + 1 - sent;
    if (exiting || room <= 0) return;
    const all = typeof chunk === "string" ? chunk : Buffer.from(chunk);
    // Bytes cut are copied: a view would carry its whole buffer across.
    const data = all.length <= room ? all : typeof all === "string" ? all.slice(0, room) : new Uint8Array(all.subarray(0, room));
    sent += data.length;
    post({ type: "out", fd, data });
  };
  // Ends the run: `exit` listeners are called, then the page is told (and terminates the worker).
  // The code is `process.exitCode` after the listeners ran, as in Node, where they may change it
  // (or call process.exit again); one that throws makes it 1.
  const finish = (code) => {
    if (ending) return;
    ending = true;
    process.exitCode = code;
    try {
      process.emit("exit", code);
    } catch (error) {
      report(error);
      if (error !== EXIT) process.exitCode = 1;
    }
    exiting = true;
    post({ type: "exit", code: ((Math.trunc(Number(process.exitCode)) % 256) + 256) % 256 || 0 });
  };
  const report = (error) => {
    if (error !== EXIT) write(2, `${error instanceof Error ? describe(error, start) : `Uncaught ${inspect(error)}`}\n`);
  };
  const fail = (error) => {
    if (error === EXIT || ending) return;
    if (process.listenerCount("uncaughtException")) {
      try {
        return process.emit("uncaughtException", error);
      } catch (thrown) {
        // A handler that throws ends the run, with Node's exit code for it.
        if (thrown === EXIT) return;
        report(thrown);
        return finish(7);
      }
    }
    report(error);
    finish(1);
  };
  // After the microtasks a step left: the end of the run, if nothing is left to do.
  const check = () =>
    timers.setTimeout(() => {
      if (exiting || pending > 0) return;
      if (settled) return finish(process.exitCode ?? 0);
      write(2, "Warning: Detected unsettled top-level await: the script waits on a promise that nothing is left to settle\n");
      finish(13);
    });

  // Timers that keep the run going, as Node's do; they answer `ref`, `unref`, `hasRef` and
  // `refresh`, and clearing one by its number works too.
  const live = new Map();
  const track = (schedule, clear, repeat) => (callback, ms, ...args) => {
    let counted = true;
    let id;
    const release = () => counted && ((counted = false), pending--, check());
    const arm = () => {
      id = schedule(() => {
        if (!repeat) end();
        try {
          callback(...args);
        } catch (error) {
          fail(error);
        }
      }, ms);
      live.set(id, timer);
    };
    const end = () => (live.delete(id), release());
    const timer = {
      ref: () => (counted || !live.has(id) || ((counted = true), pending++), timer),
      unref: () => (release(), timer),
      hasRef: () => counted,
      refresh: () => (live.has(id) && (clear(id), live.delete(id), arm()), timer),
      [Symbol.toPrimitive]: () => id,
      close: () => timer.clear(),
      clear: () => (clear(id), end()),
    };
    pending++;
    arm();
    return timer;
  };
  const clearTracked = (timer) => (typeof timer === "number" ? live.get(timer) : timer)?.clear?.();
  Object.assign(self, {
    setTimeout: track(timers.setTimeout, timers.clearTimeout, false),
    setInterval: track(timers.setInterval, timers.clearInterval, true),
    setImmediate: (callback, ...args) => self.setTimeout(callback, 0, ...args),
    clearTimeout: clearTracked,
    clearInterval: clearTracked,
    clearImmediate: clearTracked,
  });
  // Platform work a script can wait on that no timer shows (a fetch and its response's body, Web
  // Crypto, a blob's bytes, compiling WebAssembly, reading a stream) keeps the run going while it
  // runs, as Node's handles keep a process alive: `await (await fetch(url)).text()` ended the run
  // half-way when only the fetch was counted.
  const counted = (owner, names) => {
    for (const name of names) {
      const original = owner?.[name];
      if (typeof original !== "function") continue;
      owner[name] = function (...args) {
        const work = Promise.resolve(original.apply(this, args));
        pending++;
        return work.finally(() => (pending--, check()));
      };
    }
  };
  if (Array.isArray(start.allowNetwork)) lockDownBut(start.allowNetwork);
  else if (!start.allowNetwork) lockDown();
  if (start.allowNetwork) counted(self, ["fetch"]);
  counted(self.Response?.prototype, ["text", "json", "arrayBuffer", "blob", "formData", "bytes"]);
  counted(self.Blob?.prototype, ["text", "arrayBuffer", "bytes"]);
  const subtle = ["encrypt", "decrypt", "sign", "verify", "digest", "generateKey", "deriveKey", "deriveBits", "importKey", "exportKey", "wrapKey", "unwrapKey"];
  counted(self.SubtleCrypto?.prototype, subtle);
  counted(self.WebAssembly, ["compile", "instantiate", "compileStreaming", "instantiateStreaming"]);
  counted(self.ReadableStreamDefaultReader?.prototype, ["read"]);
  for (const name of ["values", Symbol.asyncIterator]) {
    const iterate = self.ReadableStream?.prototype[name];
    if (iterate) self.ReadableStream.prototype[name] = function (...args) {
      const iterator = iterate.apply(this, args);
      counted(iterator, ["next"]);
      return iterator;
    };
  }

  const stdin = Buffer.from(start.stdin);
  const fs = makeFs(start, (change, transfer) => !exiting && post({ type: "fs", ...change }, transfer), stdin, write);
  const process = makeProcess(start, { write, finish, stdin, fs });
  const modules = makeModules(start, fs, process, fail);
  Object.assign(self, { process, Buffer, global: self, require: modules.require(start.cwd) });
  Object.defineProperty(self, "console", { value: makeConsole(write), writable: true, configurable: true });
  self.addEventListener("error", (event) => {
    event.preventDefault();
    fail(event.error ?? new Error(event.message));
  });
  self.addEventListener("unhandledrejection", (event) => {
    event.preventDefault();
    fail(event.reason);
  });

  let main;
  try {
    main = Promise.resolve(modules.main());
  } catch (error) {
    main = Promise.reject(error);
  }
  main.then(
    () => {
      settled = true;
      check();
    },
    (error) => {
      settled = true;
      fail(error);
    },
  );
  check();
}

/** An error as Node prints an uncaught one: where it was thrown in the script, then its stack. */
function describe(error, start) {
  const ours = (line) => line.includes(WORKER_URL) || line.trim() === "at eval (<anonymous>)";
  const frames = String(error.stack ?? error).split("\n").filter((line) => !ours(line));
  let text = frames.join("\n");
  if (error instanceof SyntaxError && error.sourceFile) text = `${error.sourceFile}\n\n${text}`;
  if (error instanceof SyntaxError && /import statement|'export'|import\.meta/.test(error.message)) {
    text += "\n(this node runs CommonJS only: use require() and module.exports instead of import and export)";
  }
  const extra = Object.keys(error).filter((key) => key !== "sourceFile");
  if (extra.length) text += ` ${inspect(Object.fromEntries(extra.map((key) => [key, error[key]])))}`;
  const at = frames.find((line) => /^\s+at /.test(line))?.match(/\(?(\/[^():]*|\[eval\]|\[stdin\]):(\d+):(\d+)\)?$/);
  const source = at && (at[1] === "[eval]" ? start.code : start.sources?.get(at[1]));
  const line = source?.split("\n")[Number(at[2]) - 1];
  if (line !== undefined) text = `${at[1]}:${at[2]}\n${line}\n${" ".repeat(Number(at[3]) - 1)}^\n\n${text}`;
  return `${text}\n\nNode.js ${start.version}`;
}

function makeProcess(start, { write, finish, stdin, fs }) {
  const listeners = new Map();
  const on = (name, listener) => (listeners.set(name, [...(listeners.get(name) ?? []), listener]), process);
  const off = (name, listener) => (listeners.set(name, (listeners.get(name) ?? []).filter((l) => l !== listener && l.listener !== listener)), process);
  const stream = (fd) => ({
    fd,
    isTTY: false,
    columns: 80,
    writable: true,
    write: (chunk, encoding, callback) => {
      write(fd, typeof chunk === "string" || chunk instanceof Uint8Array ? chunk : String(chunk));
      [encoding, callback].find((f) => typeof f === "function")?.();
      return true;
    },
    end: (chunk) => chunk !== undefined && write(fd, chunk),
    on: () => stream(fd),
    once: () => stream(fd),
  });
  let cwd = start.cwd;
  let stdinRead = false;
  let encoding = null;
  const input = {
    fd: 0,
    isTTY: false,
    setEncoding: (name) => ((encoding = name), input),
    resume: () => input,
    pause: () => input,
    read: () => (stdinRead ? null : ((stdinRead = true), encoding ? stdin.toString(encoding) : stdin)),
    on: (name, listener) => {
      on(`stdin:${name}`, listener);
      if ((name === "data" || name === "end" || name === "readable") && !input.flowing) {
        input.flowing = true;
        self.setTimeout(() => {
          // A `readable` listener pulls the input with read(); otherwise it flows as `data`.
          if (process.listenerCount("stdin:readable")) process.emit("stdin:readable");
          else if (stdin.length) process.emit("stdin:data", encoding ? stdin.toString(encoding) : stdin);
          process.emit("stdin:end");
          process.emit("stdin:close");
        });
      }
      return input;
    },
    async *[Symbol.asyncIterator]() {
      if (stdin.length) yield encoding ? stdin.toString(encoding) : stdin;
    },
  };
  input.once = input.on;
  input.addListener = input.on;
  const process = {
    argv: ["/usr/local/bin/node", ...start.args],
    argv0: "node",
    execArgv: [],
    execPath: "/usr/local/bin/node",
    env: { ...start.env },
    platform: "linux",
    pid: 1,
    ppid: 0,
    title: "node",
    version: start.version,
    versions: { node: start.version.slice(1) },
    release: { name: "node" },
    exitCode: undefined,
    stdout: stream(1),
    stderr: stream(2),
    stdin: input,
    cwd: () => cwd,
    chdir: (dir) => {
      const target = path.resolve(cwd, String(dir));
      if (!fs.statSync(target).isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, chdir '${target}'`), { code: "ENOTDIR" });
      cwd = target;
    },
    exit: (code) => {
      // Called again from an `exit` listener, it sets the code the run ends with.
      if (code !== undefined) process.exitCode = code;
      finish(process.exitCode ?? 0);
      throw EXIT;
    },
    nextTick: (callback, ...args) => queueMicrotask(() => callback(...args)),
    hrtime: Object.assign(
      (previous) => {
        const ns = Math.round(performance.now() * 1e6);
        const [s, n] = [Math.floor(ns / 1e9), ns % 1e9];
        return previous ? [s - previous[0] - (n < previous[1] ? 1 : 0), (n - previous[1] + 1e9) % 1e9] : [s, n];
      },
      { bigint: () => BigInt(Math.round(performance.now() * 1e6)) },
    ),
    uptime: () => performance.now() / 1000,
    memoryUsage: () => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 }),
    cpuUsage: () => ({ user: 0, system: 0 }),
    umask: () => 0o22,
    emitWarning: (warning) => write(2, `(node:1) ${warning instanceof Error ? `${warning.name}: ${warning.message}` : `Warning: ${warning}`}\n`),
    on,
    addListener: on,
    prependListener: on,
    once: (name, listener) => {
      const once = (...args) => (off(name, once), listener(...args));
      once.listener = listener;
      return on(name, once);
    },
    off,
    removeListener: off,
    removeAllListeners: (name) => (name === undefined ? listeners.clear() : listeners.delete(name), process),
    emit: (name, ...args) => {
      const called = listeners.get(name) ?? [];
      called.forEach((listener) => listener(...args));
      return called.length > 0;
    },
    listeners: (name) => [...(listeners.get(name) ?? [])],
    listenerCount: (name) => (listeners.get(name) ?? []).length,
    setMaxListeners: () => process,
  };
  return process;
}

function makeModules(start, fs, process, fail) {
  const cache = Object.create(null);
  start.sources = new Map();
  const notFound = (id, from) =>
    Object.assign(
      new Error(
        `Cannot find module '${id}'${from ? ` from ${from}` : ""}. This node has the built-in modules ${Object.keys(builtins).join(", ")}, ` +
          "the files of the workspace, and packages in node_modules",
      ),
      { code: "MODULE_NOT_FOUND" },
    );
  const isFile = (file) => fs.existsSync(file) && fs.statSync(file).isFile();
  const asFile = (base) => [base, `${base}.js`, `${base}.json`, `${base}.cjs`].find(isFile);
  const asDirectory = (base) => {
    const manifest = path.join(base, "package.json");
    const main = isFile(manifest) ? JSON.parse(fs.readFileSync(manifest, "utf8")).main : undefined;
    return (main && (asFile(path.join(base, main)) ?? asFile(path.join(base, main, "index")))) || asFile(path.join(base, "index"));
  };
  const resolve = (id, dir) => {
    if (/^\.{0,2}\//.test(id) || id === "." || id === "..") {
      const base = path.resolve(dir, id);
      return asFile(base) ?? asDirectory(base) ?? (() => { throw notFound(id, dir); })();
    }
    for (let at = dir; ; at = path.dirname(at)) {
      const found = asFile(path.join(at, "node_modules", id)) ?? asDirectory(path.join(at, "node_modules", id));
      if (found) return found;
      if (at === "/") throw notFound(id);
    }
  };
  const compile = (source, filename, isAsync) => {
    start.sources.set(filename, source);
    const head = `(${isAsync ? "async " : ""}function (exports, require, module, __filename, __dirname) {`;
    try {
      return (0, eval)(`${head}${source.replace(/^#!.*/, "")}\n})\n//# sourceURL=${filename}`);
    } catch (error) {
      if (error instanceof SyntaxError) error.sourceFile = filename;
      throw error;
    }
  };
  const load = (file, isMain) => {
    if (cache[file]) return cache[file];
    const module = { id: isMain ? "." : file, filename: file, path: path.dirname(file), exports: {}, loaded: false, children: [], paths: [] };
    cache[file] = module;
    if (isMain) mainModule = module;
    try {
      const source = fs.readFileSync(file, "utf8");
      if (file.endsWith(".json")) module.exports = JSON.parse(source);
      else {
        const body = compile(source, file, isMain);
        module.result = body.call(module.exports, module.exports, makeRequire(module.path), module, file, module.path);
      }
    } catch (error) {
      delete cache[file];
      throw error;
    }
    module.loaded = true;
    return module;
  };
  let mainModule;
  const makeRequire = (dir) => {
    const require = (id) => {
      const name = String(id).replace(/^node:/, "");
      if (Object.hasOwn(builtins, name)) return builtins[name];
      return load(resolve(String(id), dir)).exports;
    };
    require.resolve = (id) => (Object.hasOwn(builtins, id.replace(/^node:/, "")) ? id : resolve(id, dir));
    require.cache = cache;
    Object.defineProperty(require, "main", { get: () => mainModule });
    return require;
  };
  const builtins = makeBuiltins(fs, process);
  return {
    require: makeRequire,
    main() {
      const { mode, code } = start;
      if (mode === "file" || mode === "check") {
        const file = resolve(path.resolve(start.cwd, start.file), start.cwd);
        if (mode === "check") return void compile(fs.readFileSync(file, "utf8"), file, false);
        process.argv.splice(1, 0, file);
        return load(file, true).result;
      }
      if (mode === "stdin") return compile(fs.readFileSync(0, "utf8"), "[stdin]", true).call({}, {}, makeRequire(start.cwd), { exports: {} }, "[stdin]", ".");
      // -e and -p: the code runs as a script in the global scope, with require and module there.
      Object.assign(self, { module: { exports: {}, id: "[eval]" }, exports: {}, __filename: "[eval]", __dirname: "." });
      let value;
      try {
        value = (0, eval)(`${code}\n//# sourceURL=[eval]`);
      } catch (error) {
        // Top-level await is a syntax error in a script: run it as an async function's body instead.
        if (!(error instanceof SyntaxError && /await/.test(code)) || mode === "print") throw Object.assign(error, error instanceof SyntaxError ? { sourceFile: "[eval]" } : {});
        return compile(code, "[eval]", true).call({}, self.exports, self.require, self.module, "[eval]", ".");
      }
      if (mode === "print") return Promise.resolve(value).then((result) => console.log(result));
      // A promise the code ends with is not waited on (Node's -e does not), only what it waits
      // on; its failure is the script's, said now rather than by a later unhandledrejection event.
      if (value instanceof Promise) value.catch(fail);
      return undefined;
    },
  };
}
