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

/**
 * lockDown(), but for `fetch` to `hosts` (names, or `*.example.com` for the names below it): a
 * sandbox's host list. The URL's host name is checked, as a proxy would, not where it resolves.
 */
export function lockDownBut(hosts) {
  const fetch = self.fetch?.bind(self);
  lockDown();
  if (!fetch) return;
  const allowed = (host) => hosts.some((name) => (name.startsWith("*.") ? host.endsWith(name.slice(1)) : host === name));
  self.fetch = async (input, init) => {
    const host = new URL(input?.url ?? String(input), self.location?.href).hostname;
    if (!allowed(host)) throw new TypeError(`fetch to ${host}: the sandbox lets commands reach only ${hosts.join(", ")}`);
    return fetch(input, init);
  };
}
