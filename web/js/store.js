// The saved sessions, in this browser's IndexedDB: one record per session,
// { id, title, created, updated, settings, snapshot, baseline }, where `snapshot` is what agent.snapshot()
// returns (the conversation and the files), `baseline` is the files right after the last import
// (what the Changes view compares with), and `settings` never holds the API key unless the person
// chose to remember it.

const DB = "openagent-playground";
const SESSIONS = "sessions";

let opened = null;

function open() {
  opened ??= new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(SESSIONS, { keyPath: "id" });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(new Error(`IndexedDB cannot be opened, so sessions are not kept: ${request.error?.message}`));
  });
  return opened;
}

/** Runs `work(store)` in one transaction; resolves to its request's result once committed. */
async function run(mode, work) {
  const db = await open();
  return new Promise((resolve, reject) => {
    const tx = db.transaction(SESSIONS, mode);
    const request = work(tx.objectStore(SESSIONS));
    tx.oncomplete = () => resolve(request.result);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("the IndexedDB transaction was aborted (is the disk full?)"));
  });
}

export const putSession = (record) => run("readwrite", (store) => store.put(record));
export const getSession = (id) => run("readonly", (store) => store.get(id));
export const deleteSession = (id) => run("readwrite", (store) => store.delete(id));

/** Every saved session, the most recently updated first. */
export async function listSessions() {
  const all = await run("readonly", (store) => store.getAll());
  return all.sort((a, b) => b.updated - a.updated);
}
