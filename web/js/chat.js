// The transcript: the person's messages, the model's streamed text and a card per tool call
// with its arguments and full output. A reopened session's transcript is drawn from its saved
// history instead (`showHistory`).

import { element } from "./dom.js";

const transcript = () => document.getElementById("transcript");
let current = null; // the assistant message being streamed
let thinking = null; // the model's reasoning being streamed, shown before its answer
const tools = new Map(); // call id -> card

function add(node) {
  document.getElementById("welcome")?.remove();
  const box = transcript();
  const atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - 40;
  box.append(node);
  if (atBottom) box.scrollTop = box.scrollHeight;
  return node;
}

function message(kind, text) {
  const div = document.createElement("div");
  div.className = `msg ${kind}`;
  div.textContent = text;
  return add(div);
}

/** A task's text, and the names of the images sent with it. */
const withImages = (text, names) => (names.length ? `${text}\n🖼 ${names.join(", ")}` : text);

export function resetChat() {
  transcript().replaceChildren();
  current = null;
  thinking = null;
  tools.clear();
}

export const note = (text) => message("note", text);

/** Updates the transcript for one event. */
export function chatEvent(event) {
  const d = event.data;
  switch (event.kind) {
    case "user_input":
      message("user", withImages(d.content, d.images ?? []));
      current = null;
      break;
    case "steering_injected":
      message("steer", `Steered: ${d.content}`);
      current = null;
      break;
    case "assistant_reasoning_delta":
      thinking ??= message("thinking", "");
      thinking.textContent += d.delta;
      transcript().scrollTop = transcript().scrollHeight;
      break;
    case "assistant_text_start":
      current = message("assistant", "");
      thinking = null;
      break;
    case "assistant_text_delta":
      current ??= message("assistant", "");
      current.textContent += d.delta;
      transcript().scrollTop = transcript().scrollHeight;
      break;
    case "assistant_text_end":
      current = null;
      thinking = null;
      break;
    case "tool_call_start":
      tools.set(d.call_id, toolCard(d));
      break;
    case "tool_call_end":
      finishTool(d);
      break;
    case "result":
      resultCard(d);
      break;
    case "compaction_end":
      note(compacted(d));
      break;
    case "processing_end":
      if (d.reason === "interrupted" || d.reason === "aborted") note(`Stopped (${d.reason}).`);
      else if (d.reason === "turn_limit" || d.reason === "round_limit") note(`Stopped at the ${d.reason.replace("_", " ")}.`);
      break;
  }
}

function compacted(d) {
  if (d.error) return `Compaction failed: ${d.error}`;
  if (!d.summarized_turns) return "Nothing to compact: the conversation is still short enough to keep whole.";
  return `Compacted: ${d.summarized_turns} earlier turn(s) summarised, ${d.kept_turns} kept (about ${d.tokens_before.toLocaleString()} → ${d.tokens_after.toLocaleString()} tokens).`;
}

/**
 * Redraws the transcript from a saved session's history (`snapshot.state.history`, the core's
 * `Turn`s): what the model was sent, so tool outputs are the truncated ones it saw.
 */
export function showHistory(history) {
  resetChat();
  for (const turn of history) {
    switch (turn.type) {
      case "user":
        message("user", withImages(turn.content, (turn.images ?? []).map((image) => image.file_name ?? "image")));
        break;
      case "steering":
        message("steer", `Steered: ${turn.content}`);
        break;
      case "summary":
        add(summaryCard(turn));
        break;
      case "assistant": {
        const parts = turn.message.content;
        const text = parts.filter((p) => p.kind === "text").map((p) => p.text).join("");
        if (text) message("assistant", text);
        for (const { tool_call: call } of parts.filter((p) => p.kind === "tool_call")) {
          tools.set(call.id, toolCard({ call_id: call.id, tool_name: call.name, arguments: call.arguments }));
        }
        break;
      }
      case "tool_results":
        for (const r of turn.results) finishTool({ call_id: r.tool_call_id, output: r.content, error: r.is_error ? r.content : null });
        break;
    }
  }
  current = null;
}

function summaryCard(turn) {
  const card = document.createElement("details");
  card.className = "summary-turn";
  const summary = document.createElement("summary");
  summary.textContent = `Summary of ${turn.summarized_turns} earlier turn(s)`;
  card.append(summary, pre(turn.content));
  return card;
}

/** How the task ended: its outcome, and the structured result when one was required. */
function resultCard(d) {
  const card = document.createElement("div");
  const status = d.outcome.status;
  card.className = `result ${status}`;
  const head = document.createElement("div");
  head.className = "result-head";
  const badge = document.createElement("span");
  badge.className = "badge";
  badge.textContent = status.replace("_", " ");
  const summary = document.createElement("span");
  summary.textContent = d.outcome.summary;
  head.append(badge, summary);
  card.append(head);
  if (d.result_data !== null) card.append(heading("Structured result"), pre(JSON.stringify(d.result_data, null, 2)));
  add(card);
}

function toolCard(d) {
  const card = document.createElement("details");
  card.className = "tool running";
  card.dataset.callId = d.call_id;
  card.dataset.tool = d.tool_name;
  const summary = document.createElement("summary");
  const name = document.createElement("span");
  name.textContent = `⚙ ${d.tool_name}`;
  const brief = document.createElement("span");
  brief.className = "muted";
  brief.textContent = briefArgs(d.arguments);
  const status = document.createElement("span");
  status.className = "status";
  status.textContent = "running…";
  summary.append(name, brief, status);
  const body = document.createElement("div");
  body.className = "tool-body";
  body.append(heading("Arguments"), pre(JSON.stringify(d.arguments, null, 2)));
  card.append(summary, body);
  return add(card);
}

function finishTool(d) {
  const card = tools.get(d.call_id);
  if (!card) return;
  card.classList.remove("running");
  card.classList.add(d.error ? "failed" : "ok");
  const took = d.duration_ms === undefined ? "" : ` · ${d.duration_ms} ms`;
  card.querySelector(".status").textContent = `${d.error ? "failed" : "done"}${took}`;
  const body = card.querySelector(".tool-body");
  body.append(heading(d.error ? "Error" : "Output"), pre(d.error ?? d.output ?? ""));
  body.lastChild.classList.add("tool-output");
}

function briefArgs(args) {
  const first = args && typeof args === "object" ? Object.values(args).find((v) => typeof v === "string") : null;
  return first ? (first.length > 60 ? first.slice(0, 60) + "…" : first) : "";
}

const heading = (text) => element("h3", text);
const pre = (text) => element("pre", text, "code");
