// The declarations of worker-agent.js: `Agent`'s members, each method returning a Promise.

import type { Agent, AgentEvent, AgentOptions, MemoryFs, SessionSnapshot } from "./openagent_wasm.js";

type Methods<T> = { [K in keyof T as T[K] extends (...args: never[]) => unknown ? K : never]: T[K] };
type Getters<T> = { readonly [K in keyof T as T[K] extends (...args: never[]) => unknown ? never : K]: T[K] };
/** Each method of `T`, returning a Promise of what it returns (or resolves to). */
type Promised<T> = {
  [K in keyof Methods<T>]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : never;
};

/** `free` and `Symbol.dispose`: a worker is ended with `terminate()`. */
type Freeing = "free" | typeof Symbol.dispose;

/** `agent.fs`: the files in the worker; each method returns a Promise. */
export type WorkerMemoryFs = Omit<Promised<MemoryFs>, Freeing> & Getters<MemoryFs>;

/** An `Agent` running in a Web Worker; see worker-agent.js. */
export interface WorkerAgent extends Omit<Promised<Agent>, Freeing | "events">, Omit<Getters<Agent>, "fs"> {}

export declare class WorkerAgent {
  private constructor();
  /** A new agent in a worker of its own; rejects as `new Agent(options)` throws. */
  static create(options: AgentOptions): Promise<WorkerAgent>;
  /** `Agent.discoverModel`, in a worker of its own. */
  static discoverModel(options: AgentOptions): Promise<string>;
  /** `Agent.checkSnapshot`, in a worker of its own: rejects where it throws. */
  static checkSnapshot(snapshot: SessionSnapshot | string): Promise<void>;
  /** The files the agent works on. */
  readonly fs: WorkerMemoryFs;
  /** Every event from now on; it ends with the session, or when the worker is terminated. */
  events(): AsyncIterableIterator<AgentEvent>;
  /**
   * Ends the worker, and with it the session: calls still waiting, and later ones, reject with an
   * `AgentError` of kind `"closed"`; the `events()` iterators end; `state` is `"closed"`.
   */
  terminate(): void;
}
