// The types of node.js: `node` for the agent's shell, each run in a Web Worker of its own.

import type { HostCommand } from "./openagent_wasm.js";

export interface NodeCommandOptions {
  /** The longest a run may take, in ms (60000); the shell's own timeout stops it sooner. */
  timeoutMs?: number;
  /** Leave fetch, WebSocket and the like to the script (false: they are taken away), as far as the agent's sandbox lets commands reach: its network `off`, nothing; a host list, `fetch` to those hosts only. */
  allowNetwork?: boolean;
  /** Stdout and stderr together are cut at this many bytes (1 MiB). */
  maxOutputBytes?: number;
  /** The agent's files sent to the worker, in bytes (32 MiB): those under the working directory first. */
  maxFileBytes?: number;
}

/** The `node` command for the `commands` option: `new Agent({ commands: { node: nodeCommand() } })`. */
export function nodeCommand(options?: NodeCommandOptions): HostCommand;

/** What `node --version` prints. */
export const NODE_VERSION: string;

/** How many node workers are running now. */
export function liveWorkers(): number;

