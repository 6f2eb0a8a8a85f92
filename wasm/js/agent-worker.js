// The agent's worker: runs the real `Agent` (and its `fs`) for a `WorkerAgent` on the page
// (worker-agent.js says how to use it). It answers three calls: `create(options, deliver)`,
// `call(member, args)` on the agent or (`fs.read`) its files, and `static(name, args)` on the class.
// Events are batched: every event emitted before a message leaves goes first, in one crossing,
// with the agent's getters as they stand, so the page sees them in order and up to date.

import init, { Agent } from "./openagent_wasm.js";
import { endpoint } from "./rpc.js";

const ready = init();
let agent, files, deliver;
let batch = [];

// The names of a class's getters (but `fs`, which is an object) and of its methods (but `free`).
function members(proto) {
  const entries = Object.entries(Object.getOwnPropertyDescriptors(proto));
  const names = (keep) => entries.filter(([name, d]) => keep(d) && !["fs", "constructor", "free"].includes(name)).map(([name]) => name);
  return [names((d) => d.get), names((d) => typeof d.value === "function")];
}

const read = (target, names) => Object.fromEntries(names.map((name) => [name, target[name]]));
const [GETTERS, METHODS] = members(Agent.prototype);
const mirror = () => read(agent, GETTERS);

function flush() {
  if (!batch.length) return;
  const events = batch;
  batch = [];
  deliver(events, mirror());
}

const ops = {
  create(options, onBatch) {
    deliver = onBatch;
    // The page's `onEvent` is called there, from the batches. Options that are no object, or an
    // `onEvent` that is no function, go as they are, for the Agent to refuse.
    const onEvent = options?.onEvent;
    if (options?.constructor === Object && (onEvent == null || typeof onEvent === "function")) {
      options.onEvent = (event) => batch.push(event) === 1 && queueMicrotask(flush);
    }
    agent = new Agent(options);
    files = agent.fs;
    const [getters, methods] = members(Object.getPrototypeOf(files));
    return { methods: METHODS, getters: mirror(), fs: { methods, getters: read(files, getters) } };
  },
  async call(member, args) {
    const [target, name] = member.startsWith("fs.") ? [files, member.slice(3)] : [agent, member];
    const value = await target[name](...args);
    return { value, getters: mirror() };
  },
  static(name, args) {
    return Agent[name](...args);
  },
};

endpoint(
  self,
  async (op, ...args) => {
    await ready;
    return ops[op](...args);
  },
  flush,
);
