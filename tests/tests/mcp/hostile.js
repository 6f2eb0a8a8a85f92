// A stdio MCP server that misbehaves on purpose, for the MCP tests: `node hostile.js MODE`.
//   crash       answers initialize and tools/list, then exits (status 3, a line on stderr) on tools/call
//   silent      reads everything and answers nothing
//   malformed   answers initialize with a message that is not JSON-RPC
//   bad-schema  lists a tool whose inputSchema does not compile, and a good one that works
//   changing    on its first tools/call says its tools changed, and lists one more from then on
//   endless     answers tools/call with a line that never ends
//   bad-names   lists tools named "", "  ", "a\nb" and "\u001b[31mred", and a good one that works
const mode = process.argv[2];
const send = (message) => process.stdout.write(JSON.stringify(message) + "\n");
const tools = [
  { name: "broken", inputSchema: { type: "object", properties: { x: { type: 42 } } } },
  { name: "works", description: "Says it works", inputSchema: { type: "object", properties: {} } },
];
const badNames = ["", "  ", "a\nb", "\u001b[31mred"].map((name) => ({ name, inputSchema: { type: "object" } }));
const added = { name: "added", description: "Came later", inputSchema: { type: "object", properties: {} } };
let changed = false;
let buffer = "";
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  let at;
  while ((at = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, at);
    buffer = buffer.slice(at + 1);
    if (line.trim()) handle(JSON.parse(line));
  }
});
process.stdin.on("end", () => process.exit(0));

function handle(message) {
  if (mode === "silent" || message.id === undefined) return;
  const reply = (result) => send({ jsonrpc: "2.0", id: message.id, result });
  switch (message.method) {
    case "initialize":
      if (mode === "malformed") return process.stdout.write("{\"id\": " + message.id + ", \"result\": \n");
      return reply({ protocolVersion: "2025-06-18", capabilities: { tools: {} }, serverInfo: { name: "hostile", version: "0" } });
    case "tools/list":
      if (mode === "bad-names") return reply({ tools: [...badNames, tools[1]] });
      return reply({ tools: mode === "bad-schema" ? tools : changed ? [tools[1], added] : [tools[1]] });
    case "tools/call":
      if (mode === "crash") {
        process.stderr.write("hostile: crashing on purpose\n");
        process.exit(3);
      }
      if (mode === "endless") {
        const chunk = "x".repeat(1 << 20);
        const more = () => {
          while (process.stdout.write(chunk));
          process.stdout.once("drain", more);
        };
        process.stdout.write('{"jsonrpc": "2.0", "id": ' + message.id + ', "result": {"content": [{"type": "text", "text": "');
        return more();
      }
      if (mode === "changing" && !changed) {
        changed = true;
        send({ jsonrpc: "2.0", method: "notifications/tools/list_changed" });
      }
      return reply({ content: [{ type: "text", text: "it works" }] });
    default:
      send({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "unknown method" } });
  }
}
