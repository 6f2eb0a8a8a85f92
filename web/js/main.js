// The playground: one Agent at a time, driven by the composer, observed through onEvent.

import init, { Agent, MemoryFs } from "/pkg/openagent_wasm.js";
import { addEvent, resetTimeline } from "./timeline.js";
import { chatEvent, note, resetChat } from "./chat.js";
import { initFiles, showFiles } from "./files.js";
import { agentOptions, initSettings, readSettings } from "./settings.js";
import { clearError, explain, showError } from "./errors.js";

const $ = (id) => document.getElementById(id);
const STARTER = {
  "README.md": "# Scratch project\n\nThe agent works on these in-memory files. Upload your own, or ask it to write some.\n",
};

let agent = null; // created on the first send after the settings last changed
let running = false;
let files = null; // the files while no agent holds them; an agent starts from their snapshot

function currentFs() {
  return agent?.fs ?? files;
}

/** Hands the files back from the agent, which is then dropped (the next send makes a new one). */
function dropAgent() {
  if (!agent) return;
  files = new MemoryFs();
  files.restore(agent.fs.snapshot());
  agent = null;
}

function setStatus(label, state) {
  $("status").textContent = label;
  $("status").dataset.state = state;
}

function setRunning(on) {
  running = on;
  setStatus(on ? "running" : "idle", on ? "running" : "idle");
  $("stop").hidden = !on;
  $("send").textContent = on ? "Steer" : "Send";
  $("composer").classList.toggle("running", on);
  $("prompt").placeholder = on ? "Steer the running agent: your words reach it after the current tool round" : "Describe a task, e.g. “Write hello.py that prints a greeting”";
}

function onEvent(event) {
  addEvent(event);
  chatEvent(event);
  if (event.kind === "assistant_text_end") {
    const u = event.data.total_usage;
    $("usage").textContent = `${u.total_tokens.toLocaleString()} tokens · ${u.input_tokens.toLocaleString()} in · ${u.output_tokens.toLocaleString()} out`;
  }
  if (event.kind === "provider_retry") {
    const d = event.data;
    const what = d.error_kind === "rate_limit" ? "Rate limited" : "The provider failed";
    showError({ title: `${what}: retrying in ${(d.delay_ms / 1000).toFixed(1)} s (retry ${d.attempt})`, detail: d.message }, true);
  }
  // A retry notice goes once the model answers.
  if (event.kind === "assistant_text_start" || event.kind === "tool_call_start") clearError();
  if (event.kind === "tool_call_end") showFiles(currentFs());
}

async function newAgent() {
  const settings = readSettings();
  const options = agentOptions(settings);
  if (settings.provider === "openai-compatible" && !options.model) {
    options.model = await Agent.discoverModel(options);
  }
  agent = new Agent({ ...options, files: currentFs().snapshot(), onEvent });
}

async function send(text) {
  clearError();
  if (running) {
    agent.steer(text);
    note(`Steering queued: “${text}”`);
    return;
  }
  let failure = null;
  try {
    if (agent?.state === "closed") dropAgent();
    if (!agent) await newAgent();
    setRunning(true);
    await agent.submit(text);
  } catch (error) {
    failure = error;
  }
  setRunning(false);
  if (failure) {
    showError(explain(failure, readSettings()));
    setStatus("error", "error");
  } else {
    clearError();
  }
  showFiles(currentFs());
}

function reset() {
  agent?.abort();
  agent = null;
  files = new MemoryFs();
  for (const [path, text] of Object.entries(STARTER)) files.write(path, text);
  resetChat();
  resetTimeline();
  clearError();
  setRunning(false);
  $("usage").textContent = "0 tokens";
  showFiles(currentFs());
}

async function main() {
  await init();
  initSettings(() => {
    // A new provider or model starts a new conversation on the next send; the files stay.
    if (agent && !running) dropAgent();
  });
  initFiles(currentFs);
  reset();
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
  $("reset").addEventListener("click", reset);
  document.body.dataset.ready = "true";
}

main().catch((error) => showError({ title: "The playground could not start", detail: String(error?.message ?? error) }));
