// Small DOM helpers shared by the views: elements (data only ever set as textContent), dates in
// the agent's time zone, the status line, and the empty / loading / error states of a list.
export const $ = (id) => document.getElementById(id);

export function element(tag, text, className) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
}

export function button(text, onClick, className) {
  const node = element("button", text, className);
  node.type = "button";
  node.addEventListener("click", onClick);
  return node;
}

let zone = "UTC";

export function setZone(name) {
  zone = name || "UTC";
}

// ISO-like text with the zone: "2026-12-03 18:54 UTC" (or the agent's zone, e.g. Europe/Madrid)
export function formatDate(iso, timeZone = zone) {
  if (!iso) return "—";
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  let format;
  try {
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone, year: "numeric", month: "2-digit", day: "2-digit",
      hour: "2-digit", minute: "2-digit", hourCycle: "h23",
    });
  } catch {
    return formatDate(iso, "UTC"); // an unknown zone: UTC, said so
  }
  const p = Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute} ${timeZone}`;
}

export const when = (iso) => formatDate(iso);

// the day alone, in words, in the agent's time zone: "3 December 2026"
export function formatDay(iso, timeZone = zone) {
  const date = new Date(iso);
  if (!iso || Number.isNaN(date.getTime())) return "an unknown day";
  const day = { timeZone, day: "numeric", month: "long", year: "numeric" };
  try {
    return new Intl.DateTimeFormat("en-GB", day).format(date);
  } catch {
    return formatDay(iso, "UTC"); // an unknown zone: UTC
  }
}

export function timeElement(iso) {
  const node = element("time", when(iso));
  if (iso) node.dateTime = iso;
  return node;
}

export function show(message) {
  $("status").textContent = message;
  $("error").textContent = "";
}

export function fail(error) {
  const field = error.field ? ` (field: ${error.field})` : "";
  $("error").textContent = `${error.message}${field}`;
}

// run an action; its failures are shown, never thrown at the console
export const guarded = (action) => async (...args) => {
  show("Working…");
  try {
    await action(...args);
  } catch (error) {
    fail(error);
  }
};

// one row or item standing for the whole list: loading, empty or failed
function stateNode(container, text, kind) {
  const table = container.tagName === "TBODY";
  const node = element(table ? "tr" : "li", table ? undefined : text, `state ${kind}`);
  if (table) {
    const cell = element("td", text, `state ${kind}`);
    cell.colSpan = container.closest("table").tHead.rows[0].cells.length;
    node.append(cell);
  }
  return node;
}

export function loading(container, text = "Loading…") {
  container.replaceChildren(stateNode(container, text, "loading"));
  container.setAttribute("aria-busy", "true");
}

export function fill(container, nodes, emptyText) {
  container.removeAttribute("aria-busy");
  if (nodes.length === 0) container.replaceChildren(stateNode(container, emptyText, "empty"));
  else container.replaceChildren(...nodes);
}

export function failed(container, error) {
  container.removeAttribute("aria-busy");
  container.replaceChildren(stateNode(container, `Could not load: ${error.message}`, "failed"));
}

// load into a list: the loading state, then the items or the empty state; a failure shows there
export async function load(container, fetchNodes, emptyText) {
  loading(container);
  try {
    fill(container, await fetchNodes(), emptyText);
  } catch (error) {
    failed(container, error);
    throw error;
  }
}

export function row(...cells) {
  const tr = element("tr");
  for (const cell of cells) {
    const td = element("td");
    td.append(cell instanceof Node ? cell : String(cell ?? "—"));
    tr.append(td);
  }
  return tr;
}
