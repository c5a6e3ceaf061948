// The inline decision on a held tool call: Approve, Edit arguments (then approve them) or Reject
// (with a message fed to the model as the tool's error), as many of the three as the agent
// allows for that tool (the interrupt's `metadata.allowed`).
import { button, element } from "./dom.js";
import { readable } from "./toolcalls.js";

const ALL = ["approve", "edit", "reject"];
let count = 0;

function field(id, label, value, rows) {
  const box = element("div", undefined, "decision-field");
  const labelNode = element("label", label);
  labelNode.htmlFor = id;
  const input = element("textarea");
  input.id = id;
  input.rows = rows;
  input.value = value;
  input.spellcheck = false;
  box.append(labelNode, input);
  return { box, input };
}

// a hidden panel with one field and its two buttons; `open()` shows it and focuses the field
function subPanel(fieldNode, confirmText, confirm, cancel) {
  const panel = element("div", undefined, "decision-more");
  panel.hidden = true;
  const row = element("div", undefined, "row");
  row.append(button(confirmText, confirm, "primary"), button("Cancel", cancel));
  panel.append(fieldNode.box, row);
  return panel;
}

function parseArguments(text) {
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { error: `The edited arguments are not JSON: ${error.message}` };
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    return { error: "The edited arguments must be a JSON object." };
  }
  return { value };
}

// onDecide({kind, arguments?, message?}); onInvalid(message) when edited arguments do not parse
export function decisionPanel(interrupt, call, onDecide, onInvalid) {
  const n = ++count;
  const tool = interrupt.metadata?.tool ?? call.name;
  const allowed = ALL.filter((k) => (interrupt.metadata?.allowed ?? ALL).includes(k));
  const box = element("div", undefined, "decision");
  box.setAttribute("role", "group");
  box.setAttribute("aria-labelledby", `decision-${n}-title`);
  const title = element("p", `${tool} is waiting for your decision.`, "decision-title");
  title.id = `decision-${n}-title`;
  box.append(title);
  if (interrupt.message) box.append(element("p", interrupt.message, "note"));

  const edit = field(`decision-${n}-arguments`, "Arguments (JSON, replacing the model's)",
    readable(call.args), 6);
  const reject = field(`decision-${n}-message`, "Message to the agent (why not)", "", 2);
  const buttons = element("div", undefined, "row decision-actions");
  const close = (panel) => {
    panel.hidden = true;
    buttons.hidden = false;
    buttons.querySelector("button").focus();
  };
  const open = (panel, input) => () => {
    panel.hidden = false;
    buttons.hidden = true;
    input.focus();
  };
  const editPanel = subPanel(edit, "Approve with these arguments", () => {
    const parsed = parseArguments(edit.input.value);
    if (parsed.error) onInvalid(parsed.error);
    else onDecide({ kind: "edit", arguments: parsed.value });
  }, () => close(editPanel));
  const rejectPanel = subPanel(reject, "Reject the call",
    () => onDecide({ kind: "reject", message: reject.input.value.trim() || null }),
    () => close(rejectPanel));

  const actions = {
    approve: button("Approve", () => onDecide({ kind: "approve" }), "primary"),
    edit: button("Edit arguments…", open(editPanel, edit.input)),
    reject: button("Reject…", open(rejectPanel, reject.input), "danger"),
  };
  buttons.append(...allowed.map((k) => actions[k]));
  box.append(buttons);
  if (allowed.includes("edit")) box.append(editPanel);
  if (allowed.includes("reject")) box.append(rejectPanel);
  return box;
}
