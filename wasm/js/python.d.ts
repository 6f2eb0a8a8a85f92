// The types of python.js: `python` for the agent's shell, Pyodide in a Web Worker per run.

import type { HostCommand } from "./openagent_wasm.js";

export interface PythonCommandOptions {
  /** Where Pyodide's files are (a folder URL ending in `/`); the npm package on a CDN by default. */
  indexURL?: string;
  /** The longest a run may take, in ms, Pyodide's loading included (60000); the shell's timeout stops it sooner. */
  timeoutMs?: number;
  /** Leave fetch and the like to the script (false: they are taken away once Pyodide is loaded), as far as the agent's sandbox lets commands reach: its network `off`, nothing; a host list, `fetch` to those hosts only. */
  allowNetwork?: boolean;
  /** Stdout and stderr together are cut at this many bytes (1 MiB). */
  maxOutputBytes?: number;
  /** The agent's files copied into Python's filesystem, in bytes (32 MiB): those under the working directory first. */
  maxFileBytes?: number;
}

/** The `python` command for the `commands` option: `new Agent({ commands: { python: pythonCommand() } })`. */
export function pythonCommand(options?: PythonCommandOptions): HostCommand;

export const PYODIDE_VERSION: string;
export const PYTHON_VERSION: string;
export const PYODIDE_URL: string;
