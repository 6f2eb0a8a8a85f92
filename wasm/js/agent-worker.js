// The agent's worker: runs the real `Agent` (and its `fs`) for a `WorkerAgent` on the page
// (worker-agent.js says how to use it). It answers three calls: `create(options, deliver)`,
// `call(member, args)` on the agent or (`fs.read`) its files, and `static(name, args)` on the class.
// Events are batched: every event emitted before a message leaves goes first, in one crossing,
// with the agent's getters as they stand, so the page sees them in order and up to date.

import init, { Agent } from "./openagent_wasm.js";
import { endpoint } from "./rpc.js";

const ready = init();
let agent, files, fsGetters, deliver;
let batch = [];

// The names of a class's getters (but `fs`, which is an object) and of its methods (but `free`
// and wasm-bindgen's own, which start with `__`).
function members(proto) {
  const entries = Object.entries(Object.getOwnPropertyDescriptors(proto));
  const ours = (name) => !["fs", "constructor", "free"].includes(name) && !name.startsWith("__");
  const names = (keep) => entries.filter(([name, d]) => keep(d) && ours(name)).map(([name]) => name);
  return [names((d) => d.get), names((d) => typeof d.value === "function")];
}

const read = (target, names) => Object.fromEntries(names.map((name) => [name, target[name]]));
const [GETTERS, METHODS] = members(Agent.prototype);
const mirror = () => ({ agent: read(agent, GETTERS), fs: read(files, fsGetters) });

function flush() {
  if (!batch.length) return;
  const events = batch;
  batch = [];
  deliver(events, mirror());
}

/**
 * The agent's files for a shell command written on the page: a MemoryFs cannot cross to it, so
 * its methods do, each answering there with a Promise; `workingDirectory` as it is now.
 */
function filesFor(fs) {
  const [, methods] = members(Object.getPrototypeOf(fs));
  return { workingDirectory: fs.workingDirectory, ...Object.fromEntries(methods.map((name) => [name, (...args) => fs[name](...args)])) };
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
    const commands = options?.commands;
    if (commands?.constructor === Object) {
      for (const [name, command] of Object.entries(commands)) {
        if (command?.remote) commands[name] = (call) => command({ ...call, fs: filesFor(call.fs) });
      }
    }
    agent = new Agent(options);
    files = agent.fs;
    const [getters, methods] = members(Object.getPrototypeOf(files));
    fsGetters = getters;
    return { methods: METHODS, getters: mirror(), fs: { methods } };
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
