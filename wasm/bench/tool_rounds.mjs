// Microseconds per tool round of the wasm build under Node, through the whole JS API: each round
// the model (a stand-in `fetch`, no network) streams one `read_file` call for a 10 KB file as
// Chat Completions SSE, and the Agent runs it, emitting every event to an `onEvent` callback.
// Each round reads another file: the same call again would be a repeat, which the session answers
// with a note instead of the file (and the general profile's read_file takes no line limit to vary). The context window is set far above the history,
// so nothing is compacted: compaction would bound the history this measures.
// As core/benches/tool_rounds.rs, but over the real codec and the fetch transport, so each round
// also serialises the request: its cost grows with the history, as it does in a browser.
//
//   node wasm/bench/tool_rounds.mjs      (after ./scripts/build-wasm; scripts/bench runs it)

import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Agent, initSync } from "../pkg/openagent_wasm.js";
import { chatStream } from "../tests/support/fake_llm.js";

const SIZES = [50, 100, 200];
initSync({ module: readFileSync(new URL("../pkg/openagent_wasm_bg.wasm", import.meta.url)) });

const line = "0123456789 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 0123456789 abcdefghijklmnopqrs\n";
const file = line.repeat(Math.ceil(10_240 / line.length)).slice(0, 10_240);
const files = Object.fromEntries(Array.from({ length: Math.max(...SIZES, 100) }, (_, i) => [`src/data${i + 1}.txt`, file]));

async function run(rounds) {
  let served = 0;
  const fetch = async () => {
    served += 1;
    const calls = served <= rounds ? [{ name: "read_file", arguments: { file_path: `src/data${served}.txt` } }] : [];
    return new Response(chatStream(calls.length ? "" : "done", calls, served), { headers: { "content-type": "text/event-stream" } });
  };
  let events = 0;
  const agent = new Agent({
    provider: "openai-compatible", model: "bench", baseUrl: "http://bench.invalid/v1", fetch,
    files, contextWindow: 1_000_000_000, onEvent: () => { events += 1; },
  });
  const start = performance.now();
  const outcome = await agent.submit("read the data file many times");
  const ms = performance.now() - start;
  if (outcome.reason !== "completed") throw new Error(`the run ended with ${outcome.reason}`);
  agent.free();
  return { us: (ms * 1000) / rounds, events };
}

await run(100); // warm up V8's tiers
const perRound = [];
for (const rounds of SIZES) {
  let best = Infinity;
  let events = 0;
  for (let i = 0; i < 3; i++) {
    const result = await run(rounds);
    best = Math.min(best, result.us);
    events = result.events;
  }
  perRound.push(best);
  console.log(`tool_rounds (wasm pkg, Node): ${String(rounds).padStart(5)} rounds  ${best.toFixed(2).padStart(9)} µs/round  (${events} events, best of 3)`);
}
console.log(`tool_rounds (wasm pkg, Node): ${SIZES.at(-1)}-round / ${SIZES[0]}-round cost per round = ${(perRound.at(-1) / perRound[0]).toFixed(2)}`);
