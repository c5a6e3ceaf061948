// The Sessions view: the agent's held tool calls waiting for a decision (each opened in the
// Playground, where it is decided), then its chat sessions, most recently used first; both lists
// 100 at a time ("More waiting calls", "More sessions" follow their listing's Link header), of one
// customer when the filter names one; open a session to read each turn's user message, reply,
// tokens and duration, and its run detail (the tool calls behind it: arguments, results,
// durations, decisions); continue a session in the Playground.
import { ApiError, api, apiPage } from "./api.js";
import { $, button, element, fill, guarded, load, loading, row, show, timeElement, when } from "./dom.js";
import { state } from "./state.js";
import { customerText } from "./decision.js";
import { toolCallList } from "./toolcalls.js";

// who a session is about: the selected customer, else every identity its turns named
const customerOf = (s) => s.userId ?? (Object.entries(s.identities ?? {})
  .map(([name, value]) => `${name}: ${value}`).join(", ") || null);

const sessionsPath = (suffix = "") =>
  `/api/chat/sessions/${encodeURIComponent(state.agent)}${suffix}`;

let continueIn = null; // (agent, session, turns, pending?): the Playground takes a thread over

async function decideInPlayground(pending) {
  const path = sessionsPath(`/${encodeURIComponent(pending.sessionId)}`);
  const { session, turns } = await api("GET", path);
  continueIn(state.agent, session, turns, pending);
}

// how long a call has waited: "under a minute", "12 min", "3 h 5 min", "2 d 4 h"
export function waitedFor(iso, now = Date.now()) {
  const minutes = Math.floor(Math.max(0, now - new Date(iso).getTime()) / 60000);
  if (Number.isNaN(minutes)) return "—";
  if (minutes < 1) return "under a minute";
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours} h ${minutes % 60} min` : `${hours} h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days} d ${hours % 24} h` : `${days} d`;
}

function waitedCell(iso) {
  const node = timeElement(iso);
  node.textContent = waitedFor(iso);
  node.title = `since ${when(iso)}`;
  return node;
}

function argumentsText(raw) {
  const text = String(raw ?? "");
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}

// a listing shown a page at a time: the first page, then `more` follows its Link header (the
// button hidden on the last page) and moves the focus to the first added row's `focusClass`
function paged(tableId, moreId, rowsOf, focusClass) {
  const list = { next: null, count: 0 };
  const added = ({ body, next }) => {
    const rows = rowsOf(body);
    list.next = next;
    list.count += rows.length;
    $(moreId).hidden = next === null;
    return rows;
  };
  list.first = async (path, empty) => {
    Object.assign(list, { next: null, count: 0 });
    $(moreId).hidden = true;
    await load($(tableId).tBodies[0], async () => added(await apiPage(path)), empty);
  };
  list.more = async () => {
    const rows = added(await apiPage(list.next));
    $(tableId).tBodies[0].append(...rows);
    rows[0]?.querySelector(`.${focusClass}`)?.focus();
  };
  return list;
}

const waitingRow = (d) => row(
  waitedCell(d.createdAt),
  element("span", customerText(d.identities), "id"),
  element("span", d.sessionKey, "id"),
  d.tool,
  element("code", argumentsText(d.arguments)),
  button("Decide in Playground", guarded(() => decideInPlayground(d)), "open-decision"),
);

const sessionRow = (s) => row(
  timeElement(s.updatedAt),
  s.kind,
  element("span", s.key, "id"),
  customerOf(s) === null ? "—" : element("span", customerOf(s), "id"),
  s.turns,
  button("Open", guarded(() => openSession(s)), "open-session"),
);

const waiting = paged(
  "waiting-list", "waiting-more", (body) => body.decisions.map(waitingRow), "open-decision");
const sessions = paged(
  "sessions-list", "sessions-more", (body) => body.sessions.map(sessionRow), "open-session");

// the filter's customer as a query parameter ("" when it names none)
function onlyCustomer() {
  const customer = $("sessions-customer").value.trim();
  return customer ? `&customer=${encodeURIComponent(customer)}` : "";
}

// the agent's pending decisions, of the filter's customer; a key without the decisions scope:
// said so, the list hidden
async function loadWaiting(only) {
  const query = `agent=${encodeURIComponent(state.agent)}&status=pending&limit=100${only}`;
  const empty = only ? "Nothing of this customer is waiting for a decision."
    : "Nothing is waiting for a decision.";
  try {
    await waiting.first(`/api/chat/decisions?${query}`, empty);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 403)) throw error;
    $("waiting-region").hidden = true;
    $("waiting-note").hidden = false;
    return;
  }
  $("waiting-region").hidden = false;
  $("waiting-note").hidden = true;
}

function counted() {
  const more = (list) => (list.next ? " shown, more follow" : "");
  const listed = `${sessions.count} session(s)${more(sessions)}`;
  if (!waiting.count) return `${listed}.`;
  return `${listed}; ${waiting.count} call(s) waiting for a decision${more(waiting)}.`;
}

export async function loadSessions() {
  $("sessions-agent").textContent = state.agent;
  $("session").hidden = true;
  const only = onlyCustomer();
  await loadWaiting(only);
  const empty = only ? "No chat sessions of this customer." : "No chat sessions for this agent yet.";
  await sessions.first(sessionsPath(`?limit=100${only}`), empty);
  show(counted());
}

const moreOf = (list) => async () => {
  await list.more();
  show(counted());
};

function turnPart(label, text) {
  const part = element("div", undefined, "turn-part");
  part.append(element("strong", label), text ?? "");
  return part;
}

function turnItem(turn) {
  const item = element("li");
  const tokens = `${turn.promptTokens ?? "?"} in / ${turn.completionTokens ?? "?"} out tokens`;
  const duration = turn.durationMs === null ? "duration unknown" : `${Math.round(turn.durationMs)} ms`;
  item.append(
    element("div", `Turn ${turn.position + 1} · ${when(turn.createdAt)} · ${tokens} · ${duration}`, "meta"),
    turnPart("User", turn.userMessage),
  );
  const calls = turn.run?.toolCalls ?? [];
  if (calls.length) {
    const part = turnPart(`Tool calls (${calls.length})`, "");
    part.append(toolCallList(calls));
    item.append(part);
  }
  item.append(turnPart("Reply", turn.reply));
  return item;
}

let opened = null; // the session shown
let openedTurns = [];

async function openSession(summary) {
  opened = summary;
  openedTurns = [];
  $("session-confirm").hidden = true;
  $("session-continue").hidden = summary.kind !== "session";
  $("session-continue-note").hidden = summary.kind === "session";
  $("session-key").textContent = summary.key;
  $("session").hidden = false;
  loading($("turns"));
  const { session, turns } = await api("GET", sessionsPath(`/${encodeURIComponent(summary.sessionId)}`));
  const customer = customerOf(session) === null ? "no customer" : `customer ${customerOf(session)}`;
  $("session-meta").textContent =
    `${session.kind} · ${customer} · started ${when(session.createdAt)} · ${session.turns} turn(s)`;
  openedTurns = turns;
  fill($("turns"), turns.map(turnItem), "No turns recorded.");
  $("session-title").focus();
  show(`${turns.length} turn(s).`);
}

async function deleteSession() {
  const gone = opened;
  await api("DELETE", sessionsPath(`/${encodeURIComponent(gone.sessionId)}`));
  await loadSessions();
  show(`Deleted the session ${gone.key}.`);
  $("sessions-title").focus();
}

// onContinue(agent, session, turns): the Playground takes the session's thread over
export function bindSessions(onContinue) {
  continueIn = onContinue;
  $("session-continue").addEventListener("click", () => {
    if (opened) onContinue(state.agent, opened, openedTurns);
  });
  $("sessions-refresh").addEventListener("click", guarded(loadSessions));
  $("sessions-filter").addEventListener("submit", (event) => {
    event.preventDefault();
    guarded(loadSessions)();
  });
  $("sessions-more").addEventListener("click", guarded(moreOf(sessions)));
  $("waiting-more").addEventListener("click", guarded(moreOf(waiting)));
  $("session-delete").addEventListener("click", () => {
    $("session-confirm").hidden = false;
    $("session-confirm-button").focus();
  });
  $("session-cancel").addEventListener("click", () => { $("session-confirm").hidden = true; });
  $("session-confirm-button").addEventListener("click", guarded(deleteSession));
}
