// The inline decision on a held tool call: whom it acts for (the customer's identities) and the
// customer's message that led to it, then Approve, Edit arguments (then approve them) or Reject
// (with a message fed to the model as the tool's error), as many of the three as the agent
// allows for that tool (the interrupt's `metadata.allowed`). A decision refused (edited
// arguments that do not parse, or that the server refused) comes back as a draft: the panel
// reopens with the text as typed and the error beside it.
import { button, element } from "./dom.js";
import { readable } from "./toolcalls.js";

const ALL = ["approve", "edit", "reject"];
let count = 0;
const numbers = new Map(); // interrupt id -> its panel's number

// a labelled textarea; `error` (text) is shown beside it and named by the field
function field(id, label, value, rows, error) {
  const box = element("div", undefined, "decision-field");
  const labelNode = element("label", label);
  labelNode.htmlFor = id;
  const input = element("textarea");
  input.id = id;
  input.rows = rows;
  input.value = value;
  input.spellcheck = false;
  box.append(labelNode, input);
  if (error) {
    const said = element("p", error, "field-error error-text");
    said.id = `${id}-error`;
    said.setAttribute("role", "alert");
    input.setAttribute("aria-invalid", "true");
    input.setAttribute("aria-describedby", said.id);
    box.append(said);
  }
  return { box, input };
}

export const customerText = (identities) => {
  const named = Object.entries(identities ?? {}).map(([key, value]) => `${key}: ${value}`);
  return named.length ? named.join(", ") : "no customer named";
};

// whom the call acts for and what they said: {identities, userMessage}
function whose(context) {
  const box = element("dl", undefined, "decision-whose");
  box.append(element("dt", "For"), element("dd", customerText(context.identities), "id"));
  if (context.userMessage) {
    const quote = element("blockquote", context.userMessage);
    const dd = element("dd");
    dd.append(quote);
    box.append(element("dt", "Their message"), dd);
  }
  return box;
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

export function parseArguments(text) {
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

// onDecide({kind, arguments?, text?, message?}); onInvalid(draft) when edited arguments do not
// parse. `context`: {identities, userMessage}; `draft`: {kind, text, message, error} of a
// decision refused, shown open with its text and error.
export function decisionPanel(interrupt, call, context, onDecide, onInvalid, draft = null) {
  if (!numbers.has(interrupt.id)) numbers.set(interrupt.id, ++count);
  const n = numbers.get(interrupt.id); // the same ids when a refused decision is redrawn
  const tool = interrupt.metadata?.tool ?? call.name;
  const allowed = ALL.filter((k) => (interrupt.metadata?.allowed ?? ALL).includes(k));
  const box = element("div", undefined, "decision");
  box.setAttribute("role", "group");
  box.setAttribute("aria-labelledby", `decision-${n}-title`);
  const title = element("p", `${tool} is waiting for your decision.`, "decision-title");
  title.id = `decision-${n}-title`;
  box.append(title, whose(context));
  if (interrupt.message) box.append(element("p", interrupt.message, "note"));

  const edited = draft?.kind === "edit" ? draft : null;
  const rejected = draft?.kind === "reject" ? draft : null;
  const edit = field(`decision-${n}-arguments`, "Arguments (JSON, replacing the model's)",
    edited ? edited.text : readable(call.args), 6, edited?.error);
  const reject = field(`decision-${n}-message`, "Message to the agent (why not)",
    rejected?.message ?? "", 2, rejected?.error);
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
    const text = edit.input.value;
    const parsed = parseArguments(text);
    if (parsed.error) onInvalid({ kind: "edit", text, error: parsed.error });
    else onDecide({ kind: "edit", arguments: parsed.value, text });
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
  if (edited && allowed.includes("edit")) open(editPanel, edit.input)();
  if (rejected && allowed.includes("reject")) open(rejectPanel, reject.input)();
  return box;
}
