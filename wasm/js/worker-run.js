// What the commands that run in a Web Worker (node.js, python.js) share: a fresh module worker per
// run, sent the agent's files as a snapshot; its output collected within a cap; the changes it
// reports applied to the agent's files; and the worker terminated when it says it is done, at the
// timeout (the smaller of the command's and the shell's time left: exit code 124) or at once when
// the call's signal is aborted.
//
// The worker gets the script's fields with { cwd, env, stdin, files, omitted, dirs, maxOutputBytes } and
// answers with { type: "out", fd, data } (text or bytes), { type: "fs", op: "write" | "mkdir" |
// "remove", path, data?, recursive? } and, last, { type: "exit", code }.

let live = 0;

/** How many command workers are running now (for tests and for a page that wants to show it). */
export const liveWorkers = () => live;

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

/** Applies a change the worker reported to the agent's files; a failure is said on stderr. */
function apply(name, fs, change) {
  try {
    if (change.op === "write") fs.write(change.path, change.data);
    else if (change.op === "mkdir") fs.mkdir(change.path);
    else if (change.op === "remove") fs.remove(change.path, change.recursive);
    return "";
  } catch (error) {
    return `${name}: ${change.path} could not be saved to the agent's files: ${error?.message ?? error}\n`;
  }
}

// The longest delay setTimeout keeps: a browser runs a longer one (Infinity among them) at once.
const MAX_DELAY_MS = 2 ** 31 - 1;

/**
 * What a run may reach: the page's `allowNetwork` narrowed by the agent's sandbox (the call's
 * `sandbox`, null when unconfined): true, false, or the host names its fetch may reach.
 */
export function networkFor(allowNetwork, sandbox) {
  if (!allowNetwork || !sandbox || sandbox.network === "on") return !!allowNetwork;
  return Array.isArray(sandbox.network) ? sandbox.network : false;
}

/** Runs `script` in a worker from `url` for the shell's `call`; resolves to the command's answer. */
export async function runInWorker(name, url, call, limits, script) {
  if (call.signal?.aborted) return { stderr: `${name}: stopped\n`, exitCode: 130 };
  const ms = Math.max(0, Math.min(limits.timeoutMs, call.timeoutMs ?? Infinity));
  const { files, omitted } = snapshot(call.fs, call.cwd, limits.maxFileBytes);
  const worker = new Worker(url, { type: "module", name });
  live++;
  const out = [[], []];
  let size = 0;
  let notes = "";
  let saveFailed = false;
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
      // A script that said it succeeded but whose files were not all saved did not.
      resolve({ stdout: join(out[0]), stderr: join(out[1]), exitCode: exitCode === 0 && saveFailed ? 1 : exitCode });
    };
    // Output is kept within the cap, whatever the worker sends: the script can post messages of
    // its own, so anything but text or bytes for fd 1 or 2 is dropped.
    const write = (fd, data) => {
      if ((fd !== 1 && fd !== 2) || (typeof data !== "string" && !(data instanceof Uint8Array))) return;
      const bytes = typeof data === "string" ? encoder.encode(data) : data;
      const room = limits.maxOutputBytes - size;
      if (bytes.length > room && size <= limits.maxOutputBytes) {
        notes += `\n${name}: output cut at ${limits.maxOutputBytes} bytes (stdout and stderr together)\n`;
        size = limits.maxOutputBytes + 1;
      } else size += bytes.length;
      // A copy of the part kept: a view would hold the whole message's memory until the end.
      if (room > 0) out[fd - 1].push(bytes.length > room ? bytes.slice(0, room) : bytes);
    };
    const stop = () => finish(130, `${name}: stopped\n`);
    const timer = setTimeout(() => finish(124, `${name}: timed out after ${ms} ms; the script was stopped\n`), Math.min(ms, MAX_DELAY_MS));
    call.signal?.addEventListener("abort", stop);
    worker.onmessage = ({ data }) => {
      if (done || typeof data !== "object" || data === null) return;
      if (data.type === "out") write(data.fd, data.data);
      else if (data.type === "fs") {
        const failure = apply(name, call.fs, data);
        saveFailed ||= failure !== "";
        notes += failure;
      } else if (data.type === "exit") finish(Number.isInteger(data.code) ? data.code : 1);
    };
    worker.onerror = (event) => {
      event.preventDefault();
      finish(1, `${name}: the worker failed: ${event.message || `it could not load ${url}`}\n`);
    };
    // A copy of standard input to transfer, so that the caller's bytes stay as they were.
    const stdin = call.stdin.slice();
    // The directories too: an empty one (`mkdir -p dist` before `node build.js`) is in no file's path.
    const dirs = call.fs.listDirectories();
    const start = { ...script, cwd: call.cwd, env: call.env, stdin, files, omitted, dirs, maxOutputBytes: limits.maxOutputBytes };
    worker.postMessage(start, [stdin.buffer, ...files.map(([, bytes]) => bytes.buffer)]);
  });
}
