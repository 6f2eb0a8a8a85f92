// Taking the network away from a command's worker (node-worker.js, python-worker.js).

// Without `allowNetwork`, what could reach the network, or the page's storage and other tabs, is
// taken from the global scope before the script runs: fetch, XMLHttpRequest, WebSocket,
// EventSource, WebTransport, importScripts, nested workers, FontFace (which loads a font from a
// URL), IndexedDB, the Cache API, BroadcastChannel and the origin's private file system
// (navigator.storage). What this does not guarantee: dynamic `import("https://...")` is syntax and
// cannot be removed, so it still loads a module where CORS and the page's CSP allow; and the
// worker shares the page's origin, so this keeps honest scripts off the network, it does not
// contain a hostile one.
const NETWORK = ["fetch", "XMLHttpRequest", "WebSocket", "EventSource", "WebTransport", "importScripts", "Worker", "SharedWorker", "FontFace"];
const STORAGE = ["indexedDB", "caches", "BroadcastChannel"];
export function lockDown() {
  const remove = (object, names) => {
    for (const name of names) {
      for (let scope = object; scope; scope = Object.getPrototypeOf(scope)) {
        if (Object.hasOwn(scope, name)) delete scope[name];
      }
    }
  };
  remove(self, [...NETWORK, ...STORAGE]);
  if (self.navigator) remove(self.navigator, ["storage"]);
}
