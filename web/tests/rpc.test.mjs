// The wire between the page and the agent's worker (wasm/js/rpc.js), in Node over a
// MessageChannel: what crosses it as what, and what closing one side stops.

import assert from "node:assert/strict";
import { MessageChannel } from "node:worker_threads";
import { test } from "node:test";
import { endpoint } from "../../wasm/js/rpc.js";

/** Two connected sides; `root` answers the calls of `near` (the page, say) on `far`. */
function wire(root) {
  const { port1, port2 } = new MessageChannel();
  const far = endpoint(port2, root);
  const near = endpoint(port1, () => {});
  return { near, far, close: () => (port1.close(), port2.close()) };
}

test("plain data that holds the wire's own key crosses as data", async () => {
  const { near, close } = wire((value) => value);
  try {
    const data = { note: { __openagent: "h", entries: [["a", "b"]] }, deeper: [{ __openagent: "m", url: "data:text/javascript,", name: "f", args: [] }] };
    assert.deepEqual(await near.call(0, [data]), data);
  } finally {
    close();
  }
});

test("a Response with status 0 (an opaque answer) crosses with its status and type", async () => {
  const { near, close } = wire(() => Response.error());
  try {
    const response = await near.call(0, []);
    assert.ok(response instanceof Response);
    assert.deepEqual([response.status, response.type], [0, "error"]);
  } finally {
    close();
  }
});

test("an error that cannot be cloned arrives as a copy with its name, message, kind and status", async () => {
  const { near, close } = wire(() => {
    throw Object.assign(new TypeError("the proxy refused the request"), { code: Symbol("EPROXY"), kind: "network", status: 502 });
  });
  try {
    await assert.rejects(near.call(0, []), { name: "TypeError", message: "the proxy refused the request", kind: "network", status: 502 });
  } finally {
    close();
  }
});

test("closing a side aborts the signals the other side sent it, and ends its listeners on its own", async () => {
  let received;
  const { near, far, close } = wire((signal) => {
    received = signal;
    return "answered";
  });
  try {
    const mine = new AbortController();
    assert.equal(await near.call(0, [mine.signal]), "answered");
    assert.equal(received.aborted, false, "kept after the answer: a body may still be streaming");
    far.close(new Error("terminated"));
    assert.equal(received.aborted, true, "what the closed side was doing for the other stops");
    near.close(new Error("closed too"));
    mine.abort(); // its listener is gone: nothing is posted to a closed wire
  } finally {
    close();
  }
});

test("an abort after the answer still reaches the other side", async () => {
  let received;
  const { near, close } = wire((signal) => ((received = signal), "answered"));
  try {
    const mine = new AbortController();
    await near.call(0, [mine.signal]);
    const aborted = new Promise((resolve) => received.addEventListener("abort", resolve));
    mine.abort();
    await aborted;
  } finally {
    close();
  }
});

test("a function of the other side's is marked remote", async () => {
  const { near, close } = wire((callback) => callback.remote === true && typeof callback === "function");
  try {
    assert.equal(await near.call(0, [() => {}]), true);
  } finally {
    close();
  }
});
