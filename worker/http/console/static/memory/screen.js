// The Memory console's entry module: sign-in and sign-out, the agent picker, the side
// navigation between views. Plain ES modules served by the page, no framework: the views are
// forms and lists over a JSON API, a few hundred lines in all, and the page must run under a
// policy that allows only its own scripts, with nothing to build or vendor.
import { ApiError, api, key } from "./api.js";
import { $, element, guarded, show } from "./dom.js";
import { bindCollections, loadCollections } from "./collections.js";
import { bindCustomers, openCustomer, reset as resetCustomers } from "./customers.js";
import { bindExtraction, loadExtraction } from "./extraction.js";
import { bindLive, followAgent, stopFeed } from "./live.js";
import { bindOverview, loadOverview } from "./overview.js";
import { bindPlayground, continueSession, loadPlayground } from "./playground.js";
import { bindSessions, loadSessions } from "./sessions.js";
import { bindSettings, loadSettings } from "./settings.js";
import { state } from "./state.js";

const VIEWS = [
  "overview", "live", "customers", "sessions", "playground", "collections", "settings", "extraction",
];
// what a view loads when shown (views not listed draw as the agent changes)
const LOADERS = {
  overview: loadOverview,
  sessions: loadSessions,
  playground: loadPlayground,
  collections: loadCollections,
  extraction: loadExtraction,
};

function showView(name, focus = true) {
  state.view = name;
  for (const view of VIEWS) {
    $(view).hidden = view !== name;
    const tab = $(`tab-${view}`);
    if (view === name) tab.setAttribute("aria-current", "page");
    else tab.removeAttribute("aria-current");
  }
  show("");
  if (focus) $(`${name}-title`).focus();
  if (LOADERS[name] && key.get() && state.agent) guarded(LOADERS[name])();
}

function signedIn(yes) {
  $("signin").hidden = yes;
  $("signed-in").hidden = !yes;
}

async function chooseAgent(name) {
  state.agent = name;
  resetCustomers();
  followAgent(name);
  await loadSettings();
  if (state.view !== "customers" && LOADERS[state.view]) await LOADERS[state.view]();
}

async function loadAgents() {
  const { agents } = await api("GET", "/api/memory/agents");
  state.agents = Object.fromEntries(agents.map((a) => [a.agentId, a]));
  const select = $("agent");
  select.replaceChildren(...agents.map((a) => element("option", a.agentId)));
  signedIn(true);
  await chooseAgent(select.value);
  return agents.length;
}

async function connect() {
  const typed = $("api-key").value.trim();
  if (typed) key.set(typed);
  $("api-key").value = "";
  try {
    const count = await loadAgents();
    show(`${count} agent(s). Choose one, then search or open a customer.`);
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) signOut(false);
    throw error;
  }
}

function signOut(announce = true) {
  key.clear();
  stopFeed();
  state.agent = null;
  state.agents = {};
  state.settings = null;
  resetCustomers();
  $("agent").replaceChildren();
  signedIn(false);
  if (announce) {
    show("Signed out: the key is no longer kept in this tab.");
    $("api-key").focus();
  }
}

function bind() {
  $("signin").addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(connect)();
  });
  $("sign-out").addEventListener("click", () => signOut());
  $("agent").addEventListener("change", guarded(() => chooseAgent($("agent").value)));
  for (const view of VIEWS) $(`tab-${view}`).addEventListener("click", () => showView(view));
  bindCustomers();
  bindSettings();
  bindExtraction();
  bindSessions((agent, session, turns, pending) => { // Continue (or Decide) in Playground
    continueSession(agent, session, turns, pending);
    showView("playground");
  });
  bindPlayground();
  bindCollections();
  bindOverview();
  bindLive((contact) => {
    showView("customers", false);
    guarded(() => openCustomer(contact))();
  });
}

// A sign-in address (`/memory/#key=...`, printed by a first local run): the key moves into this
// tab's session and leaves the address bar and history at once.
function keyFromAddress() {
  const given = new URLSearchParams(location.hash.slice(1)).get("key");
  if (!given) return;
  history.replaceState(null, "", location.pathname + location.search);
  key.set(given);
}

keyFromAddress();
bind();
window.memoryScreen = { ready: true };
if (key.get()) guarded(connect)(); // the key kept for this tab: no retyping
