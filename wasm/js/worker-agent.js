// `WorkerAgent`: the `Agent` in a Web Worker, so that a long tool (a grep over many files, a large
// patch) never freezes the page. The same options and members, through a thin proxy:
//
//   import { WorkerAgent } from "./pkg/worker-agent.js";
//   const agent = await WorkerAgent.create({ provider: "anthropic", apiKey, onEvent });
//   const outcome = await agent.submit("Add a CONTRIBUTING.md");
//   console.log(await agent.fs.readText("CONTRIBUTING.md"));
//   agent.terminate();
//
// Every method of `Agent` and of its `fs` is here and returns a Promise (the worker says which
// there are, so a method added to `Agent` is here too). The getters (`state`, `usage`,
// `sessionId`, `model`, `provider`, `fs.workingDirectory`) stay synchronous, brought up to date
// with every batch of events and every answer. Function options (`onApproval`, `hooks`, a tool's
// `execute`, `getApiKey`, `fetch`, any other) run on the page, called from the worker; errors
// keep their name, message, `kind` and `status`. A shell command written on the page (`commands`)
// gets the agent's files as an `fs` whose methods answer with Promises (await them, which works
// with the page's own Agent too). `onEvent` and `events()` see every event, in
// order, all of a task's before `submit()` settles. `terminate()` ends the worker: the calls
// still waiting reject with an AgentError of kind "closed", as later calls do, the page's fetches
// it was making are aborted, and the `events()` iterators end; a worker that crashes does the same
// with kind "crashed". `init()` is not needed: the worker loads the module itself.

import { endpoint } from "./rpc.js";

/** A link of the event chain (see `create`), open until resolved. */
function open() {
  let resolve;
  const promise = new Promise((r) => (resolve = r));
  return { promise, resolve };
}

const agentError = (message, kind) => Object.assign(new Error(message), { kind });

/**
 * A worker and the wire to it; a worker that fails (cannot start, or crashes) rejects what waits
 * on it, and `onCrash` hears of it.
 */
function start(onCrash) {
  // Written out so that bundlers (Vite, webpack) see the worker and bundle it too.
  const worker = new Worker(new URL("./agent-worker.js", import.meta.url), { type: "module" });
  const rpc = endpoint(worker);
  worker.onerror = (e) => {
    e.preventDefault();
    worker.terminate();
    rpc.close(agentError(`the agent's worker failed: ${e.message || "agent-worker.js could not be loaded"}`, "crashed"));
    onCrash?.();
  };
  return [worker, rpc];
}

/** `Agent[name](...args)` in a worker of its own, ended after. */
async function once(name, args) {
  const [worker, rpc] = start();
  try {
    return await rpc.call(0, ["static", name, args]);
  } finally {
    worker.terminate();
  }
}

export class WorkerAgent {
  /** A new agent in a worker of its own: rejects as `new Agent(options)` throws. */
  static async create(options) {
    const agent = new WorkerAgent();
    // Only this of the options is kept on the page (not the files or snapshot they may carry);
    // read before the worker starts, so that a getter that throws leaves none behind.
    const onEvent = options?.onEvent;
    // The agent's getters as the worker last reported them.
    let getters;
    // The events as a chain of links: each resolves with an event and the next link, or with
    // null once the events end. `events()` follows it from the link that was open when called.
    let link = open();
    const push = (step) => {
      const current = link;
      link = step ? open() : current;
      current.resolve(step && [step, link]);
    };
    const deliver = (events, latest) => {
      getters = latest;
      for (const event of events) {
        try {
          onEvent?.(event);
        } catch (error) {
          console.error(`OpenAgent: the onEvent callback threw: ${error?.message ?? error}`);
        }
        push(event);
        if (event.kind === "session_end") push(null);
      }
    };
    // After the worker ends (terminated, or crashed): the agent is closed and its events end.
    const end = () => {
      getters = { ...getters, agent: { ...getters?.agent, state: "closed" } };
      push(null);
    };
    const [worker, rpc] = start(end);
    const call = async (member, args) => {
      const answer = await rpc.call(0, ["call", member, args]);
      getters = answer.getters;
      return answer.value;
    };
    let info;
    try {
      info = await rpc.call(0, ["create", options, deliver]);
    } catch (error) {
      worker.terminate();
      throw error;
    }
    getters = info.getters;
    for (const name in getters.agent) Object.defineProperty(agent, name, { get: () => getters.agent[name] });
    for (const name of info.methods) agent[name] = (...args) => call(name, args);
    agent.fs = {};
    for (const name in getters.fs) Object.defineProperty(agent.fs, name, { get: () => getters.fs[name], enumerable: true });
    for (const name of info.fs.methods) agent.fs[name] = (...args) => call(`fs.${name}`, args);

    agent.events = () => {
      let at = link;
      let waiting = false;
      return {
        async next() {
          // As the Agent's own stream: one call at a time, or two would get the same event.
          if (waiting) throw new Error("events(): call next() again only after the previous call settled");
          waiting = true;
          const step = await at.promise.finally(() => (waiting = false));
          at = step ? step[1] : at;
          return step ? { value: step[0], done: false } : { done: true };
        },
        async return() {
          at = { promise: Promise.resolve(null) };
          return { done: true };
        },
        [Symbol.asyncIterator]() {
          return this;
        },
      };
    };

    agent.terminate = () => {
      worker.terminate();
      rpc.close(agentError("the agent's worker was terminated", "closed"));
      end();
    };
    return agent;
  }

  static discoverModel(options) {
    return once("discoverModel", [options]);
  }

  static checkSnapshot(snapshot) {
    return once("checkSnapshot", [snapshot]);
  }
}
