// MCP servers: Streamable HTTP endpoints whose tools the agent is offered (`agent.addMcpServer`).
// The list is kept in this browser; each agent connects them as it starts, and a server added
// while an agent exists joins it at once. A server must allow this page's origin (CORS).

const SAVED = "openagent.mcpServers";
const $ = (id) => document.getElementById(id);

let servers = JSON.parse(localStorage.getItem(SAVED) || "[]"); // [{ name, url }]
const status = new Map(); // name -> { tools } | { error } | { pending: true }

function saveList() {
  localStorage.setItem(SAVED, JSON.stringify(servers));
}

function render() {
  const list = $("mcp-list");
  list.replaceChildren();
  if (!servers.length) {
    const empty = document.createElement("li");
    empty.className = "empty";
    empty.textContent = "No servers";
    list.append(empty);
  }
  for (const server of servers) {
    const state = status.get(server.name) ?? {};
    const item = document.createElement("li");
    item.className = "mcp-server";
    item.dataset.name = server.name;
    item.dataset.state = state.error ? "error" : state.tools ? "connected" : "waiting";
    const head = document.createElement("div");
    head.className = "mcp-head";
    const name = document.createElement("strong");
    name.textContent = server.name;
    const remove = document.createElement("button");
    remove.className = "ghost small";
    remove.textContent = "✕";
    remove.title = "Forget this server (an agent already connected keeps its tools)";
    remove.addEventListener("click", () => {
      servers = servers.filter((s) => s.name !== server.name);
      status.delete(server.name);
      saveList();
      render();
    });
    head.append(name, remove);
    const detail = document.createElement("div");
    detail.className = "mcp-detail muted";
    detail.textContent = state.error
      ? state.error
      : state.tools
        ? `${state.tools.length} tools: ${state.tools.map((t) => t.replace(`mcp__${server.name}__`, "")).join(", ")}`
        : `${server.url} · connects with the next task`;
    item.append(head, detail);
    list.append(item);
  }
}

async function connect(agent, server) {
  status.set(server.name, { pending: true });
  render();
  try {
    const added = await agent.addMcpServer({ ...server, timeoutMs: 15_000 });
    status.set(server.name, { tools: added.tools });
  } catch (error) {
    status.set(server.name, { error: String(error?.message ?? error) });
  }
  render();
}

/** Connects every listed server to a new agent; a server that fails is shown, the agent goes on. */
export function connectAll(agent) {
  return Promise.all(servers.map((server) => connect(agent, server)));
}

/** `currentAgent()` is the agent now, if any: a server added then joins it at once. */
export function initMcp(currentAgent) {
  render();
  $("mcp-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    const server = { name: $("mcp-name").value.trim(), url: $("mcp-url").value.trim() };
    if (!server.name || !server.url) return;
    if (servers.some((s) => s.name === server.name)) {
      status.set(server.name, { error: `A server named ${server.name} is listed already: remove it first.` });
      render();
      return;
    }
    servers.push(server);
    saveList();
    $("mcp-form").reset();
    const agent = currentAgent();
    if (agent) await connect(agent, server);
    else render();
  });
}
