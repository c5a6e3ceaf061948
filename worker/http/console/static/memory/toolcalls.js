// One tool call drawn the same way in the Playground (as it happens) and in a session's run
// detail (as recorded): its name, arguments, result or error, duration and the decision a person
// took on it.
import { element } from "./dom.js";

const DECIDED = { approve: "approved", edit: "approved with edited arguments", reject: "rejected" };

// JSON text shown indented when it is JSON, as written otherwise
export function readable(value) {
  if (value === null || value === undefined) return "";
  if (typeof value !== "string") return JSON.stringify(value, null, 2);
  try {
    return JSON.stringify(JSON.parse(value), null, 2);
  } catch {
    return value;
  }
}

export function duration(ms) {
  if (typeof ms !== "number") return null;
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function part(label, text, className = "code") {
  const node = element("div", undefined, "turn-part");
  node.append(element("strong", label), element("pre", text, className));
  return node;
}

// call: {name, arguments, result, error, durationMs, decision (a kind, or {kind, message})}
// and, in the Playground, `state` ("calling", "running", "held", "decided", "done", "unanswered")
export function toolCallNode(call, stateText) {
  const node = element("li", undefined, "tool-call");
  const kind = typeof call.decision === "string" ? call.decision : call.decision?.kind;
  const meta = [duration(call.durationMs), kind ? DECIDED[kind] ?? kind : null, stateText]
    .filter(Boolean);
  const head = element("div", undefined, "meta tool-head");
  head.append(element("strong", `Tool ${call.name}`), meta.length ? ` · ${meta.join(" · ")}` : "");
  node.append(head, part("Arguments", readable(call.arguments) || "{}"));
  const message = typeof call.decision === "object" ? call.decision?.message : null;
  if (message) node.append(part("Message to the agent", message, "code"));
  if (call.error) node.append(part("Error", call.error, "code error-text"));
  if (call.result !== null && call.result !== undefined && call.result !== "") {
    node.append(part("Result", readable(call.result)));
  }
  return node;
}

export function toolCallList(calls) {
  const list = element("ol", undefined, "tool-calls");
  list.append(...calls.map((call) => toolCallNode(call)));
  return list;
}
