// The sessions panel: every saved session, the open one marked, with open, export and delete;
// "New" and "Import" above the list. What each action does is main.js's (the handlers).

const $ = (id) => document.getElementById(id);
let handlers = null;

/** `on`: { open(id), remove(id), exportJson(id), importJson(name, text), newSession() }. */
export function initSessions(on) {
  handlers = on;
  $("new-session").addEventListener("click", () => on.newSession());
  $("import").addEventListener("change", async (e) => {
    const [file] = e.target.files;
    e.target.value = "";
    if (file) on.importJson(file.name, await file.text());
  });
}

/** The title of a session: its first request, shortened. */
export function titleOf(snapshot) {
  const first = snapshot.state.history.find((turn) => turn.type === "user" || turn.type === "summary");
  const text = (first?.content ?? "Untitled session").replace(/\s+/g, " ").trim();
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/** Redraws the list from `records` (newest first); `openId` is the session on screen. */
export function showSessions(records, openId) {
  const list = $("session-list");
  if (!records.length) {
    const li = document.createElement("li");
    li.className = "empty";
    li.textContent = "No saved sessions yet";
    list.replaceChildren(li);
    return;
  }
  list.replaceChildren(...records.map((record) => item(record, record.id === openId)));
}

function item(record, isOpen) {
  const li = document.createElement("li");
  li.className = "session";
  li.dataset.id = record.id;
  li.classList.toggle("open", isOpen);
  const open = document.createElement("button");
  open.className = "session-open";
  open.title = "Open this session";
  const title = document.createElement("span");
  title.textContent = record.title;
  const when = document.createElement("span");
  when.className = "muted";
  when.textContent = new Date(record.updated).toLocaleString([], { dateStyle: "short", timeStyle: "short" });
  open.append(title, when);
  open.addEventListener("click", () => handlers.open(record.id));
  const exportButton = button("⤓", "Export as a JSON file (the conversation and its files)", "session-export");
  exportButton.addEventListener("click", () => handlers.exportJson(record.id));
  const remove = button("✕", "Delete this session", "session-delete");
  // Two clicks, so that one slip does not lose a session.
  remove.addEventListener("click", () => {
    if (remove.dataset.armed) return handlers.remove(record.id);
    remove.dataset.armed = "true";
    remove.textContent = "Delete?";
    setTimeout(() => {
      delete remove.dataset.armed;
      remove.textContent = "✕";
    }, 4000);
  });
  li.append(open, exportButton, remove);
  return li;
}

function button(text, title, className) {
  const b = document.createElement("button");
  b.className = `ghost small ${className}`;
  b.textContent = text;
  b.title = title;
  return b;
}
