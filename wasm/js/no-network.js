// Taking the network away from a command's worker (node-worker.js, python-worker.js).

// Without `allowNetwork`, what could reach the network, or the page's storage and other tabs, is
// taken from the global scope before the script runs: fetch, XMLHttpRequest, WebSocket,
// EventSource, WebTransport, importScripts, nested workers, IndexedDB, the Cache API and
// BroadcastChannel. What this does not guarantee: dynamic `import("https://...")` is syntax and
// cannot be removed, so it still loads a module where CORS and the page's CSP allow; and the
// worker shares the page's origin, so this keeps honest scripts off the network, it does not
// contain a hostile one.
const NETWORK = ["fetch", "XMLHttpRequest", "WebSocket", "EventSource", "WebTransport", "importScripts", "Worker", "SharedWorker"];
const STORAGE = ["indexedDB", "caches", "BroadcastChannel"];
export function lockDown() {
  for (const name of [...NETWORK, ...STORAGE]) {
    for (let scope = self; scope; scope = Object.getPrototypeOf(scope)) {
      if (Object.hasOwn(scope, name)) delete scope[name];
    }
  }
}
