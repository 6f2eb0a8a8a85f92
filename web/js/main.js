// The playground: one Agent at a time, driven by the composer, observed through onEvent. Every
// session is kept in IndexedDB as the agent's snapshot (the conversation and the files) with its
// settings: after a reload the latest one reopens, and any can be reopened, exported, imported or
// deleted from the Sessions panel. The agent runs in a Web Worker, so a long tool never freezes
// the page; `?worker=off` keeps it on the page's thread. Either way the file panel shows `files`,
// the page's copy of the agent's files, brought up to date with each save.

import init, { Agent, MemoryFs } from "/pkg/openagent_wasm.js";
import { nodeCommand } from "/pkg/node.js";
import { pythonCommand } from "/pkg/python.js";
import { WorkerAgent } from "/pkg/worker-agent.js";
import { addEvent, resetTimeline } from "./timeline.js";
import { chatEvent, note, resetChat, showHistory } from "./chat.js";
import { download, initFiles, showFiles } from "./files.js";
import { agentOptions, applySettings, initSettings, readSettings, sessionSettings } from "./settings.js";
import { clearError, explain, showError } from "./errors.js";
import { deleteSession, getSession, listSessions, putSession } from "./store.js";
import { initSessions, showSessions, titleOf } from "./sessions.js";
import { askApproval } from "./approval.js";
import { connectAll, initMcp } from "./mcp.js";
import { initAttachments, takeImages } from "./attachments.js";
import { initProjects } from "./projects.js";
import { getBaseline, initChanges, setBaseline } from "./changes.js";

const $ = (id) => document.getElementById(id);
const STARTER = {
  "README.md": "# Scratch project\n\nThe agent works on these in-memory files. Upload your own, or ask it to write some.\n",
};

const IN_WORKER = new URLSearchParams(location.search).get("worker") !== "off";
// Pyodide from `openagent web` (npm's copy, which the scripts install) when it serves one, so
// `python` needs no network; else from the CDN, python.js's default. Asked when the first agent is made.
let pyodide = null;
let agent = null; // made on the first send (or Compact) after the session was opened or the settings changed
let running = false;
let files = null; // the files on screen: an agent starts from them, and they follow its own
let latest = null; // the agent's last snapshot (each save takes one)
// The session on screen: its record's fields once saved, and its conversation while no agent holds it.
let session = { id: null, title: null, created: 0, snapshot: null };

/** The files on screen; while an agent holds them, what the page changes goes to the agent's too. */
function currentFs() {
  if (!agent) return files;
  const theirs = agent.fs;
  return new Proxy(files, {
    get(target, name) {
      const value = target[name];
      if (typeof value !== "function") return value;
      return (...args) => {
        if (["write", "remove", "mkdir", "restore"].includes(name)) theirs[name](...args);
        return value.apply(target, args);
      };
    },
  });
}

/** The session as it stands: the agent's snapshot (its files then shown), or the saved conversation with the files as they are now. */
async function snapshotNow() {
  if (!agent) return session.snapshot && { ...session.snapshot, environment: files.snapshot() };
  const holder = agent;
  const snapshot = await holder.snapshot();
  // Unless another session was opened meanwhile.
  if (holder === agent) {
    latest = snapshot;
    files.restore(snapshot.environment);
  }
  return snapshot;
}

/** Lets the agent go (its worker ends), after `abort()` when `abort` is set. */
function release(abort) {
  const old = agent;
  agent = null;
  const end = () => old?.terminate?.();
  Promise.resolve(abort && old?.abort()).then(end, end);
}

/** Takes the conversation back from the agent, which is dropped: the next send restores it and the files into a new one. */
function dropAgent() {
  if (!agent) return;
  session.snapshot = latest ?? session.snapshot;
  release(false);
}

function setStatus(label, state) {
  $("status").textContent = label;
  $("status").dataset.state = state;
}

function setRunning(on, label = "running") {
  running = on;
  setStatus(on ? label : "idle", on ? "running" : "idle");
  $("stop").hidden = !on;
  $("send").textContent = on ? "Steer" : "Send";
  $("composer").classList.toggle("running", on);
  $("prompt").placeholder = on ? "Steer the running agent: your words reach it after the current tool round" : "Describe a task, e.g. “Write hello.py that prints a greeting”";
  $("sessions").classList.toggle("busy", on);
  $("compact").disabled = on || !(agent || session.snapshot);
}

/** Each session's running total (the agent's own and its subagents'): the header shows their sum. */
const totals = new Map();

/** Records `usage` as `sessionId`'s total and shows the sum; `cost_usd` is null for an unpriced model. */
function showUsage(sessionId, usage) {
  totals.set(sessionId, usage);
  const sum = { total_tokens: 0, input_tokens: 0, output_tokens: 0, cost_usd: null };
  for (const u of totals.values()) {
    for (const key of ["total_tokens", "input_tokens", "output_tokens"]) sum[key] += u[key];
    if (u.cost_usd != null) sum.cost_usd = (sum.cost_usd ?? 0) + u.cost_usd;
  }
  const cost = sum.cost_usd == null ? "" : ` · $${sum.cost_usd.toFixed(sum.cost_usd < 1 ? 4 : 2)}`;
  $("usage").textContent = sum.total_tokens
    ? `${sum.total_tokens.toLocaleString()} tokens · ${sum.input_tokens.toLocaleString()} in · ${sum.output_tokens.toLocaleString()} out${cost}`
    : "0 tokens";
}

function onEvent(event) {
  addEvent(event);
  chatEvent(event);
  if (event.kind === "assistant_text_end") showUsage(event.session_id, event.data.total_usage);
  if (event.kind === "provider_retry") {
    const d = event.data;
    const what = d.error_kind === "rate_limit" ? "Rate limited" : "The provider failed";
    showError({ title: `${what}: retrying in ${(d.delay_ms / 1000).toFixed(1)} s (retry ${d.attempt})`, detail: d.message }, true);
  }
  // A retry notice goes once the model answers.
  if (event.kind === "assistant_text_start" || event.kind === "tool_call_start") clearError();
  if (event.kind === "tool_call_end") {
    save().then(() => showFiles(currentFs())); // so a reload mid-task keeps what is done
  }
}

async function newAgent() {
  const settings = readSettings();
  const options = agentOptions(settings);
  if (settings.provider === "openai-compatible" && !options.model) {
    options.model = await Agent.discoverModel(options);
  }
  const start = session.snapshot ? { snapshot: await snapshotNow() } : { files: files.snapshot() };
  // `node` and `python` in the agent's shell run in a Web Worker of their own (no network), made
  // beside the agent (in its worker, when it has one); Python (Pyodide) is loaded the first time
  // a script runs.
  pyodide ??= fetch("/pyodide/pyodide.mjs", { method: "HEAD" }).then((r) => (r.ok ? { indexURL: "/pyodide/" } : {}), () => ({}));
  const python = pythonCommand(await pyodide);
  const commands = { node: nodeCommand(), python, python3: python };
  const all = { ...options, ...start, onEvent, onApproval: askApproval, commands };
  agent = IN_WORKER ? await WorkerAgent.create(all) : new Agent(all);
  latest = null;
  await connectAll(agent);
}

async function refreshList() {
  showSessions(await listSessions(), session.id);
}

/** Keeps the session in IndexedDB once it has a conversation. A failure is shown, never thrown. */
async function save() {
  try {
    const snapshot = await snapshotNow();
    if (!snapshot) return;
    session.id = snapshot.session_id;
    session.title ??= titleOf(snapshot);
    session.created ||= Date.now();
    const { id, title, created } = session;
    await putSession({ id, title, created, updated: Date.now(), settings: sessionSettings(), snapshot, baseline: getBaseline() });
    await refreshList();
  } catch (error) {
    showError({ title: "The session could not be saved in this browser", detail: String(error?.message ?? error) });
  }
}

/** Runs `work(agent)` on the session's agent (made first if need be), then saves; errors are explained. */
async function withAgent(label, work) {
  clearError();
  let failure = null;
  try {
    if (agent?.state === "closed") dropAgent();
    if (!agent) await newAgent();
    setRunning(true, label);
    await work(agent);
  } catch (error) {
    failure = error;
  }
  await save();
  setRunning(false);
  if (failure) {
    showError(explain(failure, readSettings()));
    setStatus("error", "error");
  }
  showFiles(currentFs());
}

/** A task (with the attached images, if any), or a steer while one runs: images wait for the next task. */
function send(text) {
  if (!running) {
    const images = takeImages();
    return withAgent("running", (a) => a.submit(images.length ? { text, images } : text));
  }
  clearError();
  agent.steer(text);
  note(`Steering queued: “${text}”`);
}

/** Puts a saved session on screen; its agent is made on the next send. */
function show(record) {
  release(false);
  files = new MemoryFs();
  if (record.snapshot.environment) files.restore(record.snapshot.environment);
  session = { id: record.id, title: record.title, created: record.created, snapshot: record.snapshot };
  applySettings(record.settings);
  setBaseline(record.baseline ?? null);
  showHistory(record.snapshot.state.history);
  resetTimeline();
  clearError();
  totals.clear();
  showUsage(record.id, record.snapshot.state.total_usage);
  showFiles(files);
  setRunning(false);
}

function newSession() {
  release(true);
  session = { id: null, title: null, created: 0, snapshot: null };
  files = new MemoryFs();
  for (const [path, text] of Object.entries(STARTER)) files.write(path, text);
  setBaseline(files.snapshot());
  resetChat();
  resetTimeline();
  clearError();
  setRunning(false);
  totals.clear();
  $("usage").textContent = "0 tokens";
  showFiles(currentFs());
}

const sessionActions = {
  async open(id) {
    const record = await getSession(id);
    if (record) show(record);
    await refreshList();
  },
  async remove(id) {
    await deleteSession(id);
    if (id === session.id) newSession();
    await refreshList();
  },
  async exportJson(id) {
    if (id === session.id) await save();
    const record = await getSession(id);
    const name = record.title.replace(/[^\w.-]+/g, "-").replace(/^-|-$/g, "").slice(0, 40) || "session";
    download(`${name}.openagent-session.json`, new Blob([JSON.stringify(record.snapshot, null, 2)], { type: "application/json" }));
  },
  async importJson(name, text) {
    clearError();
    let snapshot;
    try {
      Agent.checkSnapshot(text);
      snapshot = JSON.parse(text);
    } catch (error) {
      const detail = `${error.message}\nImport takes a file made by a session's Export (⤓). Nothing was changed: your sessions are as they were.`;
      showError({ title: `${name} cannot be opened`, detail });
      return;
    }
    // The same session imported twice (or back into the browser it came from) is a copy beside it.
    if (await getSession(snapshot.session_id)) snapshot.session_id = crypto.randomUUID();
    const now = Date.now();
    const record = { id: snapshot.session_id, title: titleOf(snapshot), created: now, updated: now, settings: sessionSettings(), snapshot };
    await putSession(record);
    show(record);
    await refreshList();
  },
  newSession: () => {
    newSession();
    return refreshList();
  },
};

// A module of one WebAssembly SIMD function: the package is built with SIMD, so a browser that
// cannot compile this cannot run it, and says so here rather than in a compiler's words.
const SIMD_PROBE = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11]);

async function main() {
  if (!WebAssembly.validate(SIMD_PROBE)) {
    throw new Error("this browser does not run WebAssembly SIMD, which OpenAgent is built with: use Chrome or Edge 91, Firefox 89, Safari 16.4 or newer");
  }
  await init();
  initSettings(() => {
    // New settings apply from the next send: the conversation goes on in an agent made with them.
    if (agent && !running) dropAgent();
    if (session.id) save();
  });
  initFiles(currentFs);
  initChanges(currentFs);
  initProjects(currentFs, () => {
    showFiles(currentFs());
    save();
  });
  initMcp(() => agent);
  initAttachments();
  // Nothing is switched while a task runs (the Sessions panel is disabled then).
  const idleOnly = (action) => (...args) => (running ? undefined : action(...args));
  initSessions(Object.fromEntries(Object.entries(sessionActions).map(([name, action]) => [name, idleOnly(action)])));
  $("composer").addEventListener("submit", (e) => {
    e.preventDefault();
    const text = $("prompt").value.trim();
    if (!text) return;
    $("prompt").value = "";
    send(text);
  });
  $("prompt").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey) {
      e.preventDefault();
      $("composer").requestSubmit();
    }
  });
  $("stop").addEventListener("click", () => agent?.interrupt());
  $("compact").addEventListener("click", () => withAgent("compacting", (a) => a.compact()));
  newSession();
  try {
    const [latest] = await listSessions();
    if (latest) show(latest);
    await refreshList();
  } catch (error) {
    showError({ title: "Saved sessions cannot be read", detail: `${error?.message ?? error}\nThe playground works, but sessions are not kept.` });
  }
  document.body.dataset.ready = "true";
}

main().catch((error) => showError({ title: "The playground could not start", detail: String(error?.message ?? error) }));
