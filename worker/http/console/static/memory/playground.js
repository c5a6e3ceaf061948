// The Playground: talk to the chosen agent over its own AG-UI wire (POST /agui/{agent}), the
// reply streaming in, each tool call shown as it happens, a held tool decided inline (the next
// run carries `resume`). Every conversation is a session whose key is the thread id; "New
// conversation" starts a fresh thread, "Continue in Playground" (Sessions view) reopens one and
// "Decide in Playground" opens a held call's stored thread with its stored customer (read-only).
import { ApiError, api } from "./api.js";
import { $, element, fail, show } from "./dom.js";
import { newId, run, runInput } from "./agui.js";
import {
  addUser, apply, conversation, decide, history, resumeEntries, resumed, undecided, withPending,
} from "./conversation.js";
import { customerText, decisionPanel } from "./decision.js";
import { bindPrompt, loadPrompt, triesDraft } from "./prompt.js";
import { toolCallNode } from "./toolcalls.js";
import { state } from "./state.js";

let conv = null; // the conversation on screen
let controller = null; // the run in flight, to stop it
const drawn = new Map(); // item id -> {item, node}: what the log shows

const STATES = {
  calling: "calling…", running: "running…", held: "held", decided: "decision sent",
  unanswered: "no result",
};

function messageNode(item, earlier = false) {
  const node = element("li", undefined, `msg ${item.kind}`);
  const who = item.kind === "user" ? "You" : conv.agent;
  node.append(element("strong", earlier ? `${who} · earlier` : who), item.text);
  return node;
}

// the customer's message that led to a held call: stored with a pending decision, else the
// last message this page sent before the call
function messageBefore(item) {
  const at = conv.items.indexOf(item);
  const sent = conv.items.slice(0, at).filter((i) => i.kind === "user");
  return sent.length ? sent[sent.length - 1].text : null;
}

function itemNode(item) {
  if (item.kind !== "tool") return messageNode(item);
  const node = toolCallNode({ ...item, arguments: item.args }, STATES[item.state]);
  const interrupt = conv.interrupts.find((i) => i.toolCallId === item.id);
  if (item.state === "held" && interrupt) {
    const context = { identities: interrupt.identities ?? conv.identities,
      userMessage: interrupt.userMessage ?? messageBefore(item) };
    node.append(decisionPanel(interrupt, item, context, (d) => decided(interrupt.id, d),
      (draft) => invalid(interrupt.id, draft), conv.drafts?.[interrupt.id]));
  }
  return node;
}

// a decision that did not go through, kept as typed with its error; its call's panel redrawn
function withDraft(from, interruptId, draft) {
  const callId = from.interrupts.find((i) => i.id === interruptId)?.toolCallId;
  return { ...from, drafts: { ...from.drafts, [interruptId]: draft },
    items: from.items.map((item) => (item.id === callId ? { ...item } : item)) };
}

function focusInvalid() {
  $("playground-log").querySelector('.decision [aria-invalid="true"]')?.focus();
}

function invalid(interruptId, draft) {
  conv = withDraft(conv, interruptId, draft);
  draw();
  fail({ message: draft.error, field: "editedArgs" });
  focusInvalid();
}

function draw() {
  const log = $("playground-log");
  for (const item of conv.items) {
    const seen = drawn.get(item.id);
    if (seen && seen.item === item) continue;
    const node = itemNode(item);
    if (seen) seen.node.replaceWith(node);
    else log.append(node);
    drawn.set(item.id, { item, node });
  }
}

function earlierNodes(turns) {
  return turns.flatMap((turn) => [
    messageNode({ kind: "user", text: turn.userMessage }, true),
    ...(turn.run?.toolCalls ?? []).map((call) => toolCallNode(call, "earlier")),
    messageNode({ kind: "assistant", text: turn.reply }, true),
  ]).map((node) => {
    node.classList.add("earlier");
    return node;
  });
}

function describeThread() {
  const who = Object.entries(conv.identities).map(([k, v]) => `${k}: ${v}`).join(", ");
  const earlier = conv.earlier.length ? `continued: ${conv.earlier.length} earlier turn(s)` : null;
  const origin = conv.deciding ? `stored thread, a held call to decide${earlier ? ` · ${earlier}` : ""}`
    : earlier ?? "new conversation";
  $("playground-thread").textContent = `Thread ${conv.threadId} · ${origin}${who ? ` · ${who}` : ""}`;
}

const identityKey = () => state.settings?.binding?.identityKey ?? "customerId";

// the customer field: editable until the conversation has a turn (a thread's identities never
// change: other identities would address another session); a stored thread shows its own
function drawCustomer() {
  const field = $("playground-customer");
  field.disabled = conv.items.length > 0 || conv.earlier.length > 0 || Boolean(conv.deciding);
  if (field.disabled) field.value = Object.values(conv.identities).join(", ");
  $("playground-identity-key").textContent = identityKey();
}

function takeCustomer() {
  const value = $("playground-customer").value.trim();
  if (conv.items.length || conv.earlier.length || !value) return;
  conv = { ...conv, identities: { [identityKey()]: value } };
  describeThread();
}

function start(next) {
  controller?.abort();
  if (conv && (conv.deciding || conv.earlier.length)) $("playground-customer").value = "";
  conv = next;
  drawn.clear();
  drawCustomer();
  $("playground-agent").textContent = conv.agent;
  $("playground-log").replaceChildren(...earlierNodes(conv.earlier));
  describeThread();
  drawUnloaded();
  running(false);
}

export function newConversation() {
  start(conversation(state.agent, newId()));
  show(`New conversation with ${conv.agent}.`);
  $("playground-message").focus();
}

// the Sessions view's "Continue in Playground": the session's thread and identities, its turns.
// "Decide in Playground" passes the pending decision: its stored customer, the call held.
export function continueSession(agent, session, turns, pending = null) {
  const identities = pending?.identities ?? session.identities ?? {};
  start({ ...conversation(agent, session.key, identities, turns), deciding: Boolean(pending) });
  if (!pending) {
    showPending().catch(() => {}); // a key without the decisions scope: nothing to show
    return;
  }
  conv = withPending(conv, pending);
  draw();
  announce();
}

// a decision already pending on this thread (parked on another wire, or by an earlier page):
// shown held, decided here like one this page saw
async function showPending() {
  const mine = conv;
  const query = `agent=${encodeURIComponent(mine.agent)}&status=pending`;
  const { decisions } = await api("GET", `/api/chat/decisions?${query}`);
  if (conv.threadId !== mine.threadId) return;
  const found = decisions.filter((d) => d.sessionKey === mine.threadId);
  if (!found.length) return;
  for (const pending of found) conv = withPending(conv, pending);
  conv = { ...conv, deciding: true };
  drawCustomer();
  describeThread();
  draw();
  const tools = found.map((d) => d.tool).join(", ");
  show(`${tools} is waiting for your decision: the session takes no new message until then.`);
}

export async function loadPlayground() {
  if (!conv || conv.agent !== state.agent) start(conversation(state.agent, newId()));
  await loadPrompt();
  if (undecided(conv).length) return announce(); // the view's switch cleared the status line
  show(conv.earlier.length
    ? `Continuing the session ${conv.threadId}: your next message goes on its thread.`
    : `Talking to ${conv.agent}.`);
}

// an agent declared only by an attached worker: this process cannot run its turns
function unloaded() {
  const listed = state.agents[conv.agent];
  return listed && !listed.loaded ? listed : null;
}

function drawUnloaded() {
  const listed = unloaded();
  const note = $("playground-unloaded");
  note.hidden = !listed;
  note.textContent = listed
    ? `${listed.agentId} cannot be run from this process: it was declared by ${listed.declaredIn}`
      + " and its definition is not in this process's AGENTS. Add its module to AGENTS to talk to it here."
    : "";
}

function running(yes) {
  $("playground-send").disabled = yes || Boolean(unloaded());
  $("playground-stop").hidden = !yes;
  $("playground-live").setAttribute("aria-busy", String(yes));
}

function announce() {
  const open = undecided(conv);
  if (conv.error) fail({ message: `The run failed: ${conv.error}` });
  else if (open.length) {
    const whom = conv.deciding ? `, for ${customerText(conv.identities)}` : "";
    show(`${open.map((i) => i.metadata?.tool ?? "A tool").join(", ")} is waiting for your decision${whom}.`);
  }
  else show("Reply complete.");
}

// one run on the wire; events redraw the log as they come. Refused before the stream (the API's
// error shape), it throws ApiError and nothing ran.
async function runOnce(resume) {
  const mine = conv;
  const input = runInput({ threadId: conv.threadId, messages: history(conv), identities: conv.identities,
    resume, draft: triesDraft() });
  controller = new AbortController();
  running(true);
  try {
    await run(conv.agent, input, (event) => {
      if (conv.threadId !== mine.threadId) return;
      conv = apply(conv, event);
      draw();
    }, controller.signal);
    announce();
  } finally {
    if (conv.threadId === mine.threadId) running(false);
  }
}

async function attempt(resume, undo) {
  try {
    await runOnce(resume);
    const first = $("playground-log").querySelector(".decision button");
    if (first && document.activeElement === $("playground-message")) first.focus();
  } catch (error) {
    if (error.name === "AbortError") return show("Stopped: the reply so far is kept.");
    if (error instanceof ApiError && undo) undo(error);
    conv = { ...conv, running: false };
    fail(error);
    if (error.code === "decision_pending") await showPending().catch(() => {});
  }
}

async function send(text) {
  const id = newId();
  takeCustomer();
  conv = addUser(conv, id, text);
  drawCustomer();
  draw();
  show(`Sent to ${conv.agent}; the reply streams in below.`);
  await attempt(undefined, () => { // refused: nothing was recorded, the text goes back
    conv = { ...conv, items: conv.items.filter((item) => item.id !== id) };
    if (!conv.items.length && !conv.earlier.length) conv = { ...conv, identities: {} };
    describeThread();
    drawCustomer();
    drawn.get(id)?.node.remove();
    drawn.delete(id);
    $("playground-message").value = text;
  });
}

async function decided(interruptId, decision) {
  const before = conv;
  conv = decide(conv, interruptId, decision);
  draw();
  if (undecided(conv).length) return announce();
  const resume = resumeEntries(conv);
  conv = resumed(conv);
  show("Decision sent; the turn continues.");
  $("playground-message").focus();
  let refused = null;
  await attempt(resume, (error) => { // refused: still pending (unless decided elsewhere)
    if (error.code === "decision_taken") return;
    const field = error.field ? ` (field: ${error.field})` : "";
    refused = { kind: decision.kind, text: decision.text, message: decision.message,
      error: `${error.message}${field}` };
    conv = withDraft(before, interruptId, refused);
    draw();
  });
  if (!refused) return;
  $("status").textContent = "The decision was refused: nothing ran and the call is still held.";
  focusInvalid();
}

function submit(event) {
  event.preventDefault();
  const box = $("playground-message");
  const text = box.value.trim();
  if (!text || !conv || $("playground-send").disabled) return;
  if (undecided(conv).length) return fail({ message: "Decide the held tool call first: the session waits for it." });
  box.value = "";
  send(text);
}

export function bindPlayground() {
  $("playground-form").addEventListener("submit", submit);
  $("playground-message").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) submit(event);
  });
  $("playground-new").addEventListener("click", newConversation);
  $("playground-stop").addEventListener("click", () => controller?.abort());
  bindPrompt();
}
