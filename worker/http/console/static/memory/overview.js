// The Overview: counts at a glance per agent (people, facts, calls and failed saves in the last
// day, and why saves failed), from GET /api/memory/overview; and the registered agents (where
// each was declared, when last seen, its tools (held ones marked) and collections), from
// GET /api/memory/agents.
import { api } from "./api.js";
import { $, element, guarded, load, row, show, timeElement } from "./dom.js";
import { state } from "./state.js";

function reasons(byReason) {
  const entries = Object.entries(byReason || {}).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return "—";
  return element("span", entries.map(([code, n]) => `${code}: ${n}`).join(", "), "id");
}

function list(items) {
  return items && items.length ? items.join(", ") : "—";
}

// A held tool waits for a person's decision: named with the decisions it allows.
function tools(agent) {
  const held = agent.heldTools || {};
  return list((agent.tools || []).map((t) => (held[t] ? `${t} (held: ${held[t].join(", ")})` : t)));
}

function declared(agent) {
  if (!agent.conflictWith) return agent.declaredIn;
  return `${agent.declaredIn} (replaced other defaults from ${agent.conflictWith})`;
}

async function loadRegistry() {
  await load($("registry-table").tBodies[0], async () => {
    const { agents } = await api("GET", "/api/memory/agents");
    return agents.map((a) => row(
      a.agentId, declared(a), a.lastSeen ? timeElement(a.lastSeen) : "—", tools(a),
      list(a.collections), a.loaded ? "yes" : "no: not in this process's AGENTS",
    ));
  }, "No agents.");
}

export async function loadOverview() {
  let count = 0;
  const counts = load($("overview-table").tBodies[0], async () => {
    const { agents } = await api("GET", "/api/memory/overview");
    count = agents.length;
    return agents.map((a) => row(
      a.agentId, a.people, a.facts, a.callsLastDay, a.failedSavesLastDay, reasons(a.failuresByReason),
    ));
  }, "No agents.");
  await Promise.all([counts, loadRegistry()]);
  // the shared status line belongs to the view on screen: an operator who moved on meanwhile
  // keeps the other view's line
  if (state.view === "overview") show(`Counts for ${count} agent(s).`);
}

export function bindOverview() {
  $("overview-refresh").addEventListener("click", guarded(loadOverview));
}
