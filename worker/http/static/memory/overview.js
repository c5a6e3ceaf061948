// The Overview: counts at a glance per agent (people, facts, calls and failed saves in the last
// day, and why saves failed), from GET /api/memory/overview.
import { api } from "./api.js";
import { $, element, guarded, load, row, show } from "./dom.js";

function reasons(byReason) {
  const entries = Object.entries(byReason || {}).sort((a, b) => b[1] - a[1]);
  if (entries.length === 0) return "—";
  return element("span", entries.map(([code, n]) => `${code}: ${n}`).join(", "), "id");
}

export async function loadOverview() {
  let count = 0;
  await load($("overview-table").tBodies[0], async () => {
    const { agents } = await api("GET", "/api/memory/overview");
    count = agents.length;
    return agents.map((a) => row(
      a.agentId, a.people, a.facts, a.callsLastDay, a.failedSavesLastDay, reasons(a.failuresByReason),
    ));
  }, "No agents.");
  show(`Counts for ${count} agent(s).`);
}

export function bindOverview() {
  $("overview-refresh").addEventListener("click", guarded(loadOverview));
}
