// The live feed: memory.ops events of the chosen agent as they happen. Read with fetch() and a
// ReadableStream (EventSource cannot send the bearer header) from GET /api/memory/ops/stream;
// the last event id is kept, and after a drop the feed reconnects from it, so nothing is missed
// and nothing is shown twice. A server without the stream route (404) is polled instead on
// GET /api/memory/ops with the same cursor. Each event is told to the other views ("op").
import { api, stream } from "./api.js";
import { $, button, element, when } from "./dom.js";
import { EventParser } from "./sse.js";
import { emit, state } from "./state.js";

const SHOWN = 100; // events kept on screen
const RETRY_MS = [1000, 2000, 5000, 10000];
const POLL_MS = 2000;
const feed = { agent: null, cursor: 0, controller: null, paused: false, polling: false };
let openCustomer = () => {};

function setState(text, kind) {
  $("feed-state").textContent = `Live feed: ${text}`;
  $("feed-dot").className = `dot ${kind}`;
  $("live-cursor").textContent = feed.cursor ? `Last event: ${feed.cursor}` : "";
}

function opText(op) {
  const text = op.text === null ? "" : ` “${op.text}”`;
  return `${op.op}${text}`;
}

function eventItem(event) {
  const item = element("li");
  const at = event.ops.length ? when(event.ops[0].valid_from) : "";
  const contact = button(event.contact, () => openCustomer(event.contact), "link id");
  contact.setAttribute("aria-label", `Open customer ${event.contact}`);
  item.append(
    element("div", `#${event.id} · ${at} · ${event.final ? "final" : "during the call"} · ${event.model}`, "meta"),
    contact,
    element("div", event.ops.map(opText).join("; ") || "no change"),
  );
  item.dataset.eventId = String(event.id);
  return item;
}

function received(event) {
  if (event.agent_id !== feed.agent || event.id <= feed.cursor) return; // never twice
  feed.cursor = event.id;
  const list = $("live-events");
  list.querySelector(".state")?.remove();
  list.prepend(eventItem(event));
  setState(feed.polling ? "polling the ops log" : "connected", "on");
  while (list.children.length > SHOWN) list.lastElementChild.remove();
  emit("op", event);
}

async function readStream(response, signal) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const parser = new EventParser();
  signal.addEventListener("abort", () => reader.cancel().catch(() => {}), { once: true });
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    for (const event of parser.push(value)) {
      if (event.event === "op") received(JSON.parse(event.data));
    }
  }
}

async function pollOnce(signal) {
  const query = new URLSearchParams({ agentId: feed.agent, after: String(feed.cursor), limit: "500" });
  const page = await api("GET", `/api/memory/ops?${query}`);
  if (signal.aborted) return;
  page.events.forEach(received);
  if (page.events.length === 0) await sleep(POLL_MS, signal);
}

const sleep = (ms, signal) => new Promise((resolve) => {
  const timer = setTimeout(resolve, ms);
  signal.addEventListener("abort", () => { clearTimeout(timer); resolve(); }, { once: true });
});

async function connectOnce(signal) {
  if (feed.polling) return pollOnce(signal);
  const query = new URLSearchParams({ agentId: feed.agent, after: String(feed.cursor) });
  try {
    const response = await stream(`/api/memory/ops/stream?${query}`, signal);
    setState("connected", "on");
    await readStream(response, signal);
  } catch (error) {
    if (error.status !== 404) throw error;
    feed.polling = true; // this server has no stream route: poll the ops log
    setState("polling the ops log", "on");
  }
}

// where to go on after a 410 cursor_expired: the id its message says to read after (retention
// deleted the events before it; an open customer is redrawn from memory itself)
export function resumePoint(error) {
  const found = error.code === "cursor_expired" && /after=(\d+)\D*$/.exec(error.message);
  return found ? Number(found[1]) : null;
}

async function run(signal) {
  let failures = 0;
  while (!signal.aborted) {
    try {
      await connectOnce(signal);
      if (!feed.polling && !signal.aborted) { // the server ended the stream: resume from the cursor
        failures = 0;
        setState(`ended; reconnecting from event ${feed.cursor}`, "retry");
        await sleep(RETRY_MS[0], signal);
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error.status === 401 || error.status === 403) return setState(`stopped: ${error.message}`, "");
      const resume = resumePoint(error);
      if (resume !== null) {
        feed.cursor = resume;
        if (state.customer) emit("op", { agent_id: feed.agent, contact: state.customer, id: resume });
        continue;
      }
      const wait = RETRY_MS[Math.min(failures, RETRY_MS.length - 1)];
      failures += 1;
      setState(`dropped; reconnecting in ${wait / 1000} s from event ${feed.cursor}`, "retry");
      await sleep(wait, signal);
    }
  }
}

function start() {
  feed.controller?.abort();
  if (!feed.agent || feed.paused) return;
  feed.controller = new AbortController();
  setState("connecting", "retry");
  run(feed.controller.signal);
}

export function stopFeed() {
  feed.controller?.abort();
  feed.controller = null;
  setState("off", "");
}

export function followAgent(agent) {
  if (feed.agent !== agent) {
    feed.agent = agent;
    feed.cursor = 0;
    feed.polling = false;
    $("live-events").replaceChildren(element("li", "No memory changes yet.", "state empty"));
  }
  $("live-agent").textContent = agent;
  start();
}

function toggle() {
  feed.paused = !feed.paused;
  $("live-toggle").textContent = feed.paused ? "Resume" : "Pause";
  if (feed.paused) {
    stopFeed();
    setState(`paused after event ${feed.cursor}`, "");
  } else start();
}

export function bindLive(open) {
  openCustomer = open;
  $("live-toggle").addEventListener("click", toggle);
}
