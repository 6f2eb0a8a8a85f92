// `python` for the agent's shell in a browser tab: CPython compiled to WebAssembly (Pyodide),
// loaded from `indexURL` (the npm package `pyodide`, served by a CDN or by the page) when a script
// first runs, never with the page. Each run gets a fresh module Web Worker (python-worker.js,
// started by worker-run.js) that loads Pyodide (the browser's cache keeps the download), writes the
// agent's files into its filesystem (within `maxFileBytes`: a script finds the others missing),
// runs the script, and reports at the end what the script wrote, made or removed, which is then
// applied to the agent's files: a script stopped by the timeout or an abort changes no file. Exit
// codes as CPython's: SystemExit's code, 1 for an uncaught exception (with its traceback), 2 for
// bad arguments; 124 at the timeout.

import { networkFor, runInWorker } from "./worker-run.js";

/** The Pyodide release this runner is written and tested against (npm `pyodide`), and its Python. */
export const PYODIDE_VERSION = "314.0.7";
export const PYTHON_VERSION = "3.14.2";

/** Where Pyodide is loaded from unless the page says otherwise: the npm package, on a CDN. */
export const PYODIDE_URL = `https://cdn.jsdelivr.net/npm/pyodide@${PYODIDE_VERSION}/`;

const USAGE = "usage: python [-c cmd | -m mod | file | -] [arg] ...";

/** What to run, from argv; `{ error }` for arguments CPython would refuse. */
function parseArgs(argv) {
  let i = 1;
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "-V" || arg === "--version") return { mode: "version" };
    if (arg === "-h" || arg === "--help") return { mode: "help" };
    if (arg === "-c" || arg === "-m") {
      if (i + 1 >= argv.length) return { error: `Argument expected for the ${arg} option` };
      return { mode: arg === "-c" ? "code" : "module", code: argv[i + 1], args: argv.slice(i + 2) };
    }
    if (arg === "-") return { mode: "stdin", args: argv.slice(i + 1) };
    if (!arg.startsWith("-")) return { mode: "file", file: argv[i], args: argv.slice(i + 1) };
    // Options that change nothing here: unbuffered, no .pyc, isolated, no site, ignore environment.
    if (!/^-[uBIsSEq]+$/.test(arg)) return { error: `unknown option ${arg}` };
  }
  return { mode: "stdin", args: [] };
}

/**
 * The `python` command (also good as `python3`): `pythonCommand({ indexURL, timeoutMs })` gives the
 * function to put in the agent's `commands`. `timeoutMs` counts Pyodide's loading too.
 */
export function pythonCommand({ indexURL = PYODIDE_URL, timeoutMs = 60_000, allowNetwork = false, maxOutputBytes = 1 << 20, maxFileBytes = 32 << 20 } = {}) {
  const limits = { timeoutMs, maxOutputBytes, maxFileBytes };
  // Resolved here: in a WorkerAgent's worker, where it is made again (see rpc.js), `location` is the worker's.
  indexURL = new URL(indexURL, location.href).href;
  const remake = { url: import.meta.url, name: "pythonCommand", args: [{ indexURL, timeoutMs, allowNetwork, maxOutputBytes, maxFileBytes }] };
  const run = async (call) => {
    const parsed = parseArgs(call.argv);
    if (parsed.error) return { stderr: `${call.argv[0]}: ${parsed.error}\n${USAGE}\n`, exitCode: 2 };
    if (parsed.mode === "version") return { stdout: `Python ${PYTHON_VERSION}\n` };
    if (parsed.mode === "help") return { stdout: `${USAGE}\nRuns Python (Pyodide) in a Web Worker over the agent's files; no REPL, no network, no subprocesses.\n` };
    if (parsed.mode === "stdin" && call.stdin.length === 0) {
      return { stderr: `${call.argv[0]}: no script: give a file (python app.py) or code (python -c "..."); there is no interactive REPL here\n`, exitCode: 2 };
    }
    const script = { ...parsed, indexURL, allowNetwork: networkFor(allowNetwork, call.sandbox) };
    return runInWorker(call.argv[0], new URL("./python-worker.js", import.meta.url), call, limits, script);
  };
  return Object.assign(run, { remake });
}
