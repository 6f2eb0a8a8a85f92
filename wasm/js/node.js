// `node` for the agent's shell in a browser tab: `new Agent({ ..., commands: { node: nodeCommand() } })`.
//
// Each run gets a fresh dedicated module Web Worker (node-worker.js, started by worker-run.js), so
// a script cannot block the page, and killing it (the timeout, the agent stopped) is
// `worker.terminate()`. The worker sees the agent's files as a snapshot sent with the script (up
// to `maxFileBytes`; the files under the working directory first); what the script writes, makes
// or removes comes back as messages and is applied to the agent's files as it happens, so a script
// killed half-way keeps the writes it made (all but those still in flight when it was killed).
//
// The run ends when the script's code and its promise (top-level `await`) are done and no timer or
// platform work is left (Node's rule: see node-worker.js), at `process.exit()`, at an uncaught error (exit code 1), or
// at the timeout: the smaller of `timeoutMs` and the shell's time left (exit code 124).

import { networkFor, runInWorker } from "./worker-run.js";

export { liveWorkers } from "./worker-run.js";

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

/**
 * The `node` command: `nodeCommand({ timeoutMs, allowNetwork })` gives the function to put in the
 * agent's `commands`. `allowNetwork` leaves fetch, WebSocket and the like to the script, as far
 * as the agent's sandbox lets commands reach (its network `off`: nothing; a host list: fetch to those);
 * `maxOutputBytes` caps stdout and stderr together; `maxFileBytes` bounds the files sent.
 */
export function nodeCommand({ timeoutMs = 60_000, allowNetwork = false, maxOutputBytes = 1 << 20, maxFileBytes = 32 << 20 } = {}) {
  const options = { timeoutMs, allowNetwork, maxOutputBytes, maxFileBytes };
  // How a WorkerAgent makes it again beside the agent's files, in its worker (see rpc.js).
  return Object.assign((call) => runNode(call, options), { remake: { url: import.meta.url, name: "nodeCommand", args: [options] } });
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

async function runNode(call, limits) {
  const parsed = parseArgs(call.argv);
  if (parsed.error) return { stderr: `node: ${parsed.error}\n`, exitCode: 9 };
  if (parsed.mode === "version") return { stdout: `${NODE_VERSION}\n` };
  if (parsed.mode === "help") return { stdout: HELP };
  if (parsed.mode === "check" && !parsed.file) return { stderr: "node: --check requires a file\n", exitCode: 9 };
  if (parsed.mode === "stdin" && call.stdin.length === 0) {
    return { stderr: 'node: no script: give a file (node app.js) or code (node -e "..."); there is no interactive REPL here\n', exitCode: 9 };
  }
  const script = { ...parsed, allowNetwork: networkFor(limits.allowNetwork, call.sandbox), version: NODE_VERSION };
  return runInWorker("node", new URL("./node-worker.js", import.meta.url), call, limits, script);
}
