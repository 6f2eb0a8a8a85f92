// Provider settings. The API key stays in this tab's memory unless the person ticks "remember";
// nothing here ever goes into the URL. The other fields are remembered (they are not secrets).

// Generated from the Rust provider table, so the defaults shown are the ones the agent uses.
import { DEFAULT_BASE_URLS } from "./providers.generated.js";

const SAVED = "openagent.settings";
const SAVED_KEY = "openagent.apiKey";

const $ = (id) => document.getElementById(id);

function placeholders() {
  const provider = $("provider").value;
  $("base-url").placeholder = DEFAULT_BASE_URLS[provider];
  $("model").placeholder = provider === "openai-compatible" ? "asked of the server" : "provider default";
  $("api-key").placeholder = provider === "openai-compatible" ? "optional for local servers" : "kept in this tab's memory";
  // The other providers' profiles always offer the subagent tools.
  $("subagents-choice").hidden = provider !== "openai-compatible";
}

/** Fills the form from saved settings (a session's, or the last ones); a key only replaces the typed one. */
export function applySettings(saved) {
  $("provider").value = saved.provider || "anthropic";
  $("model").value = saved.model || "";
  $("base-url").value = saved.baseUrl || "";
  $("effort").value = saved.effort || "";
  $("context-window").value = saved.contextWindow || "";
  $("max-rounds").value = saved.maxRounds || "";
  $("output-schema").value = saved.outputSchema || "";
  $("approval").value = saved.approval || "full-auto";
  $("sandbox").value = saved.sandbox || "workspace-write";
  $("subagents").checked = saved.subagents === true;
  if (saved.apiKey) {
    $("api-key").value = saved.apiKey;
    $("remember-key").checked = true;
  }
  placeholders();
  save();
}

/** What the local-server preset says: how to start one the page can talk to. */
const LOCAL_HINT =
  "A local OpenAI-compatible server, asked for its model. llama.cpp: `llama-server -m model.gguf --port 8080` " +
  "(it allows every origin). Ollama: `OLLAMA_ORIGINS=* ollama serve`, then http://127.0.0.1:11434/v1. " +
  "LM Studio: enable CORS in its server settings.";

/** The local-server preset: an OpenAI-compatible server on this machine, its model asked of it. */
function useLocalServer(onChange) {
  $("provider").value = "openai-compatible";
  if (!/^https?:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/.test($("base-url").value)) $("base-url").value = DEFAULT_BASE_URLS["openai-compatible"];
  $("model").value = "";
  $("settings-hint").textContent = LOCAL_HINT;
  placeholders();
  save();
  onChange();
}

export function initSettings(onChange) {
  applySettings({ ...JSON.parse(localStorage.getItem(SAVED) || "{}"), apiKey: localStorage.getItem(SAVED_KEY) });
  $("settings").addEventListener("submit", (e) => e.preventDefault());
  $("local-preset").addEventListener("click", () => useLocalServer(onChange));
  $("settings").addEventListener("change", () => {
    placeholders();
    save();
    onChange();
  });
  $("api-key").addEventListener("input", () => {
    save();
    onChange();
  });
}

function save() {
  const { apiKey, ...settings } = readSettings();
  localStorage.setItem(SAVED, JSON.stringify(settings));
  if ($("remember-key").checked && $("api-key").value) localStorage.setItem(SAVED_KEY, $("api-key").value);
  else localStorage.removeItem(SAVED_KEY);
}

/** The settings a saved session keeps: the key only when the person chose to remember it. */
export function sessionSettings() {
  const { apiKey, ...settings } = readSettings();
  return $("remember-key").checked && apiKey ? { ...settings, apiKey } : settings;
}

export function readSettings() {
  return {
    provider: $("provider").value,
    model: $("model").value.trim(),
    apiKey: $("api-key").value.trim(),
    baseUrl: $("base-url").value.trim(),
    effort: $("effort").value,
    contextWindow: $("context-window").value.trim(),
    maxRounds: $("max-rounds").value.trim(),
    outputSchema: $("output-schema").value.trim(),
    approval: $("approval").value,
    sandbox: $("sandbox").value,
    subagents: $("subagents").checked,
  };
}

/** The options of a new Agent, without the model when the server is to be asked. */
export function agentOptions(settings) {
  const options = { provider: settings.provider };
  if (settings.model) options.model = settings.model;
  if (settings.apiKey) options.apiKey = settings.apiKey;
  if (settings.baseUrl) options.baseUrl = settings.baseUrl;
  if (settings.effort) options.reasoningEffort = settings.effort;
  if (settings.approval) options.approval = settings.approval;
  if (settings.sandbox) options.sandbox = settings.sandbox;
  if (settings.subagents && settings.provider === "openai-compatible") options.subagents = true;
  // Compaction needs the window; a local server's (llama.cpp's n_ctx) is not in the catalog.
  if (settings.contextWindow) options.contextWindow = Number(settings.contextWindow);
  // A small local model may go on calling tools: a bound per task ends the run (reason `round_limit`).
  if (settings.maxRounds) options.limits = { maxToolRoundsPerInput: Number(settings.maxRounds) };
  if (settings.outputSchema) {
    try {
      options.outputSchema = JSON.parse(settings.outputSchema);
    } catch (error) {
      throw new Error(`The output schema is not valid JSON: ${error.message}`);
    }
  }
  return options;
}
