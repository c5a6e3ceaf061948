// The agent's prompt (its conversation instruction), in the Playground: the draft saved,
// published or reset (the extraction guidance's pattern, per agent), what new calls and turns
// run now, and a switch to talk with the draft here before it is published
// (`forwardedProps.prompt: "draft"`). A key that cannot read the configuration sees a note.
import { ApiError, api } from "./api.js";
import { $, guarded, show, when } from "./dom.js";
import { state } from "./state.js";

const path = (suffix = "") =>
  `/api/memory/agents/${encodeURIComponent(state.agent)}/prompt${suffix}`;

function running(prompt) {
  if (prompt.runs === "code") return "Running: the instructions in the agent's code.";
  const by = prompt.publishedBy ? ` by ${prompt.publishedBy}` : "";
  return `Running: the prompt published${by} ${when(prompt.publishedAt)}.`;
}

function draw(prompt) {
  $("prompt-draft").value = prompt.draft ?? prompt.published ?? prompt.code ?? "";
  $("prompt-state").textContent = running(prompt);
  $("prompt-saved").textContent = prompt.draftSavedAt
    ? `Draft saved ${when(prompt.draftSavedAt)}.` : "No draft saved: the box shows the text that runs.";
}

export async function loadPrompt() {
  try {
    draw(await api("GET", path()));
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 403)) throw error;
    $("prompt-panel").hidden = true;
    $("prompt-note").hidden = false;
    return;
  }
  $("prompt-panel").hidden = false;
  $("prompt-note").hidden = true;
}

// whether the Playground's runs try the draft (sent as forwardedProps.prompt)
export const triesDraft = () => !$("prompt-panel").hidden && $("prompt-try").checked;

async function act(method, suffix, body, message) {
  draw(await api(method, path(suffix), body));
  show(message);
}

export function bindPrompt() {
  $("prompt-save").addEventListener("click", guarded(() => act("PUT", "/draft",
    { text: $("prompt-draft").value }, "Draft saved: only the Playground runs it until it is published.")));
  $("prompt-publish").addEventListener("click", guarded(() => act("POST", "/publish", undefined,
    "Draft published: new calls and conversations run it; open calls keep theirs.")));
  $("prompt-reset").addEventListener("click", guarded(() => act("DELETE", "", undefined,
    "Prompt reset: the instructions in the agent's code run again.")));
}
