// The Customers view: search by identifier or content, open a customer (facts with where each
// came from, calls, fact history, who read them), Export, Delete all behind both names typed.
// Customer identifiers travel in JSON bodies exactly as stored, never in a URL. An open
// customer's facts update in place when a memory.ops event for them arrives on the live feed.
import { api } from "./api.js";
import { $, button, element, fill, guarded, loading, row, show, timeElement, when } from "./dom.js";
import { exportCustomer } from "./export.js";
import { callDays, sourceNode } from "./provenance.js";
import { drawReads, readRows } from "./reads.js";
import { agentPath, on, state } from "./state.js";

async function search() {
  const query = $("search-query").value;
  const mode = $("search-mode").value;
  loading($("results"), "Searching…");
  const found = await api("POST", `${agentPath("customers")}/search`, { query, mode, k: 50 });
  $("search-note").textContent =
    mode !== "identifier" && found.lexicalOnly
      ? `Lexical matches only${found.reason ? `: ${found.reason}` : ""}.`
      : "";
  const items = found.items.map((hit) => {
    const item = element("li");
    item.append(button(hit.contact, guarded(() => openCustomer(hit.contact)), "id result link"));
    if (hit.text !== null) item.append(" ", element("span", hit.text));
    return item;
  });
  fill($("results"), items, "No customer matches.");
  show(`${items.length} result(s).`);
}

function factRow(fact, fresh, days) {
  const source = sourceNode(fact.source, fact.updatedAt, days); // the current version's source
  const tr = row(fact.content, source, timeElement(fact.createdAt), timeElement(fact.updatedAt));
  if (fresh) tr.className = "fresh";
  return tr;
}

function callItem(call) {
  const item = element("li");
  const duration =
    call.durationSeconds === null ? "duration unknown" : `${Math.round(call.durationSeconds)} s`;
  const outcome = call.outcome === null ? "no outcome" : call.outcome;
  item.append(
    element("div", `${when(call.startedAt || call.createdAt)} · ${outcome} · ${duration}`, "meta"),
    element("div", call.summary || ""),
  );
  return item;
}

function versionItem(version, days) {
  const item = element("li");
  const until = version.validTo ? `until ${when(version.validTo)} (${version.endedBy})` : "current";
  item.append(
    element("span", version.content),
    " ",
    element("span", `from ${when(version.validFrom)}, ${until}`, "meta"),
    sourceNode(version.source, version.validFrom, days),
  );
  return item;
}

// read a customer's memory and draw it; `known` facts (by id) are not marked fresh. The reads
// are listed last, so this opening's own recall and history are among them.
async function draw(userId, known) {
  const memory = await api("POST", `${agentPath("customers")}/recall`, { userId, calls: 20 });
  const past = await api("POST", `${agentPath("customers")}/history`, { userId });
  const reads = await readRows(userId);
  if (state.customer !== userId) return memory;
  const days = callDays(memory.calls);
  const facts = memory.facts.map((f) => factRow(f, known !== null && !known.has(f.id), days));
  fill($("facts").tBodies[0], facts, "No facts kept.");
  $("facts").dataset.ids = JSON.stringify(memory.facts.map((f) => f.id));
  const calls = [...memory.calls].sort((a, b) =>
    (b.startedAt || b.createdAt).localeCompare(a.startedAt || a.createdAt),
  );
  fill($("calls"), calls.map(callItem), "No calls summarised.");
  fill($("history"), past.versions.map((v) => versionItem(v, days)), "No fact history.");
  drawReads($("reads").tBodies[0], reads);
  return { ...memory, calls };
}

export async function openCustomer(userId) {
  state.customer = userId;
  $("customer-id").textContent = userId;
  $("customer-live").textContent = "";
  loading($("facts").tBodies[0]);
  loading($("reads").tBodies[0]);
  const memory = await draw(userId, null);
  $("customer").hidden = false;
  closeDelete();
  $("delete-result").textContent = "";
  show(`${memory.facts.length} fact(s), ${memory.calls.length} call(s).`);
}

// a memory.ops event for the open customer: redraw in place, new facts marked
let refreshing = null;
async function refresh(event) {
  if (event.agent_id !== state.agent || event.contact !== state.customer) return;
  if (refreshing) return refreshing;
  const known = new Set(JSON.parse($("facts").dataset.ids || "[]"));
  refreshing = draw(state.customer, known).finally(() => { refreshing = null; });
  const memory = await refreshing;
  $("customer-live").textContent =
    `Updated live at ${when(new Date().toISOString())}: ${memory.facts.length} fact(s) (event ${event.id}).`;
}

async function exportOpen() {
  const { exported, bytes } = await exportCustomer(state.agent, state.customer);
  const count = (name) => (exported[name] || []).length;
  show(
    `Exported ${count("facts")} fact(s), ${count("calls")} call(s), ` +
      `${count("chatSessions")} chat session(s) and ${count("reads")} read(s): ${bytes} bytes.`,
  );
}

function closeDelete() {
  $("delete-confirm").hidden = true;
  $("confirm-user").value = "";
  $("confirm-agent").value = "";
  $("delete-confirm-button").disabled = true;
}

function checkDelete() {
  const typed = $("confirm-user").value === state.customer && $("confirm-agent").value === state.agent;
  $("delete-confirm-button").disabled = !typed;
}

async function deleteAll() {
  checkDelete();
  if ($("delete-confirm-button").disabled) return;
  const userId = state.customer;
  const outcome = await api("POST", `${agentPath("customers")}/delete-all`, { userId });
  closeDelete();
  state.customer = null;
  $("customer").hidden = true;
  $("results").replaceChildren();
  $("delete-result").textContent = "";
  show(`Deleted ${outcome.deleted} item(s) for ${userId} (agent ${outcome.agentId}).`);
}

export function reset() {
  state.customer = null;
  $("customer").hidden = true;
  $("results").replaceChildren();
  $("search-note").textContent = "";
}

export function bindCustomers() {
  $("search-form").addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(search)();
  });
  $("open-form").addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(() => openCustomer($("open-user").value))();
  });
  $("export").addEventListener("click", guarded(exportOpen));
  $("delete-start").addEventListener("click", () => {
    $("delete-confirm").hidden = false;
    $("confirm-user").focus();
  });
  $("delete-cancel").addEventListener("click", closeDelete);
  $("confirm-user").addEventListener("input", checkDelete);
  $("confirm-agent").addEventListener("input", checkDelete);
  $("delete-confirm-button").addEventListener("click", guarded(deleteAll));
  on("op", (event) => refresh(event).catch((error) => {
    $("customer-live").textContent = `Could not refresh: ${error.message}`;
  }));
}
