// `node` for the agent's shell in a browser tab: `new Agent({ ..., commands: { node: nodeCommand() } })`.
//
// Each run gets a fresh dedicated module Web Worker (node-worker.js), so a script cannot block the
// page, and killing it (the timeout, the agent stopped) is `worker.terminate()`. The worker sees
// the agent's files as a snapshot sent with the script (up to `maxFileBytes`; the files under the
// working directory first); what the script writes, makes or removes comes back as messages and
// is applied to the agent's files as it happens, so a script killed half-way keeps the writes it
// made (all but those still in flight when it was killed).
//
// The run ends when the script's code and its promise (top-level `await`) are done and no timer is
// left (Node's rule: see node-worker.js), at `process.exit()`, at an uncaught error (exit code 1), or
// at the timeout: the smaller of `timeoutMs` and the shell's time left (exit code 124).

/** What `node --version` prints: the Node line whose APIs the worker imitates, marked as not Node. */
export const NODE_VERSION = "v22.0.0-openagent";

const HELP = `Usage: node [options] [ script.js | -e "script" | - ] [arguments]

Runs JavaScript in a Web Worker over the agent's in-memory files.
  -e, --eval CODE     run CODE
  -p, --print CODE    run CODE and print its value
  -c, --check FILE    check FILE's syntax without running it
  -                   read the script from standard input
  -v, --version       print the version
Available modules: fs, fs/promises, path, events, util, assert, os, buffer, timers, process;
files of the workspace by relative path, and packages in node_modules.
There is no REPL, no network (unless the page allows it), no child processes and no ES module syntax.
`;

// Options Node takes that change nothing here.
const IGNORED = /^--(no-warnings|no-deprecation|enable-source-maps|trace-uncaught|experimental-[\w-]+|max-old-space-size=\d+|stack-size=\d+)$/;

let live = 0;

/** How many workers are running now (for tests and for a page that wants to show it). */
export const liveWorkers = () => live;

/**
 * The `node` command: `nodeCommand({ timeoutMs, allowNetwork })` gives the function to put in the
 * agent's `commands`. `allowNetwork` leaves fetch, WebSocket and the like to the script;
 * `maxOutputBytes` caps stdout and stderr together; `maxFileBytes` bounds the files sent.
 */
export function nodeCommand({ timeoutMs = 60_000, allowNetwork = false, maxOutputBytes = 1 << 20, maxFileBytes = 32 << 20 } = {}) {
  return (call) => runNode(call, { timeoutMs, allowNetwork, maxOutputBytes, maxFileBytes });
}

/** What to run, from argv; `{ error }` for arguments Node would refuse. */
function parseArgs(argv) {
  let i = 1;
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "-v" || arg === "--version") return { mode: "version" };
    if (arg === "-h" || arg === "--help") return { mode: "help" };
    const inline = arg.match(/^--(eval|print|check)=(.*)$/s);
    const mode = inline ? inline[1] : { "-e": "eval", "--eval": "eval", "-p": "print", "--print": "print", "-pe": "print", "-c": "check", "--check": "check" }[arg];
    if (mode) {
      if (mode === "check") return { mode, file: inline ? inline[2] : argv[i + 1], args: [] };
      if (!inline && i + 1 >= argv.length) return { error: `${arg} requires an argument` };
      return inline ? { mode, code: inline[2], args: argv.slice(i + 1) } : { mode, code: argv[i + 1], args: argv.slice(i + 2) };
    }
    if (arg === "-") return { mode: "stdin", args: argv.slice(i + 1) };
    if (arg === "--") {
      i++;
      break;
    }
    if (!arg.startsWith("-")) break;
    if (!IGNORED.test(arg)) return { error: `bad option: ${arg} (node -h lists what this node takes)` };
  }
  if (i < argv.length) return { mode: "file", file: argv[i], args: argv.slice(i + 1) };
  return { mode: "stdin", args: [] };
}

/** The agent's files for the worker, those under `cwd` first, within `limit` bytes in all. */
function snapshot(fs, cwd, limit) {
  const inside = (path) => cwd === "/" || path.startsWith(`${cwd}/`);
  const paths = fs.list();
  const files = [];
  const omitted = [];
  let total = 0;
  for (const path of [...paths.filter(inside), ...paths.filter((path) => !inside(path))]) {
    const bytes = fs.read(path);
    if (total + bytes.length > limit) omitted.push(path);
    else {
      total += bytes.length;
      files.push([path, bytes]);
    }
  }
  return { files, omitted };
}

/** Applies a change the script made to the agent's files; a failure is said on stderr. */
function apply(fs, change) {
  try {
    if (change.op === "write") fs.write(change.path, change.data);
    else if (change.op === "mkdir") fs.mkdir(change.path);
    else if (change.op === "remove") fs.remove(change.path, change.recursive);
    return "";
  } catch (error) {
    return `node: ${change.path} could not be saved to the agent's files: ${error?.message ?? error}\n`;
  }
}

async function runNode(call, limits) {
  const parsed = parseArgs(call.argv);
  if (parsed.error) return { stderr: `node: ${parsed.error}\n`, exitCode: 9 };
  if (parsed.mode === "version") return { stdout: `${NODE_VERSION}\n` };
  if (parsed.mode === "help") return { stdout: HELP };
  if (parsed.mode === "check" && !parsed.file) return { stderr: "node: --check requires a file\n", exitCode: 9 };
  if (parsed.mode === "stdin" && call.stdin.length === 0) {
    return { stderr: 'node: no script: give a file (node app.js) or code (node -e "..."); there is no interactive REPL here\n', exitCode: 9 };
  }
  if (call.signal?.aborted) return { stderr: "node: stopped\n", exitCode: 130 };
  const ms = Math.max(0, Math.min(limits.timeoutMs, call.timeoutMs ?? Infinity));
  const { files, omitted } = snapshot(call.fs, call.cwd, limits.maxFileBytes);
  const worker = new Worker(new URL("./node-worker.js", import.meta.url), { type: "module", name: "node" });
  live++;
  const out = [[], []];
  let size = 0;
  let notes = "";
  const encoder = new TextEncoder();
  return new Promise((resolve) => {
    let done = false;
    const finish = (exitCode, note = "") => {
      if (done) return;
      done = true;
      worker.terminate();
      live--;
      clearTimeout(timer);
      call.signal?.removeEventListener("abort", stop);
      const join = (chunks) => {
        const all = new Uint8Array(chunks.reduce((n, chunk) => n + chunk.length, 0));
        chunks.reduce((at, chunk) => (all.set(chunk, at), at + chunk.length), 0);
        return all;
      };
      out[1].push(encoder.encode(notes + note));
      resolve({ stdout: join(out[0]), stderr: join(out[1]), exitCode });
    };
    const write = (fd, data) => {
      const bytes = typeof data === "string" ? encoder.encode(data) : data;
      const room = limits.maxOutputBytes - size;
      if (room <= 0) return;
      size += bytes.length;
      out[fd === 2 ? 1 : 0].push(bytes.length > room ? bytes.subarray(0, room) : bytes);
      if (bytes.length > room) notes += `\nnode: output cut at ${limits.maxOutputBytes} bytes (stdout and stderr together)\n`;
    };
    const stop = () => finish(130, "node: stopped\n");
    const timer = setTimeout(() => finish(124, `node: timed out after ${ms} ms; the script was stopped\n`), ms);
    call.signal?.addEventListener("abort", stop);
    worker.onmessage = ({ data }) => {
      if (done || typeof data !== "object" || data === null) return;
      if (data.type === "out") write(data.fd, data.data);
      else if (data.type === "fs") notes += apply(call.fs, data);
      else if (data.type === "exit") finish(Number.isInteger(data.code) ? data.code : 1);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      finish(1, `node: the worker failed: ${event.message || "it could not load node-worker.js"}\n`);
    };
    // A copy of standard input to transfer, so that the caller's bytes stay as they were.
    const stdin = call.stdin.slice();
    const script = { ...parsed, cwd: call.cwd, env: call.env, stdin, files, omitted, allowNetwork: limits.allowNetwork, maxOutputBytes: limits.maxOutputBytes, version: NODE_VERSION };
    worker.postMessage(script, [stdin.buffer, ...files.map(([, bytes]) => bytes.buffer)]);
  });
}
