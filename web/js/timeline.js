// The timeline: one row per event, expandable to its full JSON. Consecutive deltas of one
// stream share a row (a streamed answer is hundreds of events), which counts them.

const list = () => document.getElementById("timeline");
let start = 0;
let count = 0;
let last = null;

const GROUPS = {
  tool_call_start: "tool", tool_call_end: "tool", tool_decision: "tool", tool_call_output_delta: "tool",
  assistant_text_start: "text", assistant_text_delta: "text", assistant_reasoning_delta: "text", assistant_text_end: "text",
  error: "error", provider_retry: "error", warning: "error", loop_detection: "error",
  steering_injected: "steer", user_input: "steer", result: "text",
  compaction_start: "compaction", compaction_end: "compaction",
};

function summary(event) {
  const d = event.data;
  switch (event.kind) {
    case "session_start": return `${d.provider} · ${d.model}`;
    case "user_input": case "steering_injected": return d.content;
    case "turn_start": return `model call ${d.turn}`;
    case "assistant_text_start": return d.response_id ?? "";
    case "assistant_text_delta": case "assistant_reasoning_delta": return d.delta;
    case "assistant_text_end": return `${d.tool_call_count} tool call(s) · ${d.usage.total_tokens} tokens`;
    case "tool_call_start": return `${d.tool_name} ${JSON.stringify(d.arguments)}`;
    case "tool_decision": return `${d.tool_name}: ${d.decision}${d.reason ? ` (${d.reason})` : ""}`;
    case "tool_call_end": return `${d.tool_name}${d.error ? " failed: " + d.error : ""} · ${d.duration_ms} ms`;
    case "provider_retry": return `${d.error_kind}, retry ${d.attempt} in ${d.delay_ms} ms`;
    case "result": return `${d.outcome.status}: ${d.outcome.summary}`;
    case "processing_end": return `${d.reason} → ${d.state}`;
    case "compaction_start": return `${d.reason}: about ${d.tokens_before} tokens${d.context_window ? ` of ${d.context_window}` : ""}`;
    case "compaction_end":
      return d.error ? `failed: ${d.error}` : `${d.summarized_turns} turn(s) summarised, ${d.kept_turns} kept · ${d.tokens_before} → ${d.tokens_after} tokens`;
    case "session_end": return d.reason;
    default: return d.message ?? JSON.stringify(d);
  }
}

export function resetTimeline() {
  list().replaceChildren();
  count = 0;
  last = null;
  start = 0;
  document.getElementById("event-count").textContent = "0 events";
}

export function addEvent(event) {
  const now = Date.parse(event.timestamp);
  start ||= now;
  count += 1;
  document.getElementById("event-count").textContent = `${count} events`;
  const merge = last && last.kind === event.kind && event.kind.endsWith("_delta") && last.callId === event.data.call_id;
  if (merge) {
    last.events.push(event);
    last.label.textContent = `${event.kind} ×${last.events.length}`;
    last.summary.textContent += event.data.delta;
    if (last.pre) last.pre.textContent = JSON.stringify(last.events, null, 2);
    return;
  }
  const item = document.createElement("li");
  item.dataset.kind = event.kind;
  item.dataset.group = GROUPS[event.kind] ?? "session";
  const row = document.createElement("button");
  const time = document.createElement("span");
  time.className = "t";
  time.textContent = `+${((now - start) / 1000).toFixed(2)}s`;
  const label = document.createElement("span");
  label.className = "kind";
  label.textContent = event.kind;
  const text = document.createElement("span");
  text.className = "summary";
  text.textContent = summary(event);
  row.append(time, label, text);
  item.append(row);
  const entry = { kind: event.kind, callId: event.data.call_id, events: [event], label, summary: text, pre: null };
  row.addEventListener("click", () => {
    if (entry.pre) {
      entry.pre.remove();
      entry.pre = null;
      return;
    }
    entry.pre = document.createElement("pre");
    entry.pre.className = "code";
    entry.pre.textContent = JSON.stringify(entry.events.length === 1 ? entry.events[0] : entry.events, null, 2);
    item.append(entry.pre);
  });
  last = entry;
  const box = list();
  const atBottom = box.scrollTop + box.clientHeight >= box.scrollHeight - 8;
  box.append(item);
  if (atBottom) box.scrollTop = box.scrollHeight;
}
