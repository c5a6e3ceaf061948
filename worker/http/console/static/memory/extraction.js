// The Extraction view, shared by all agents: guidance draft / publish / reset to built-in, and
// the model with its reasoning effort (empty means the platform default).
import { api } from "./api.js";
import { $, element, guarded, show, when } from "./dom.js";

function drawExtraction(extraction) {
  const guidance = extraction.guidance;
  $("guidance-draft").value = guidance.draft ?? "";
  $("guidance-state").textContent = guidance.usesBuiltIn
    ? "Running: the built-in guidance."
    : `Running: the guidance published ${when(guidance.publishedAt)}.`;
  const effort = $("effort");
  effort.replaceChildren(
    element("option", "platform default"),
    ...extraction.reasoningEfforts.map((e) => element("option", e)),
  );
  effort.options[0].value = "";
  effort.value = extraction.reasoningEffort ?? "";
  $("model").value = extraction.model ?? "";
  const fallback = extraction.platformDefault;
  $("model-default").textContent =
    `Platform default: ${fallback.model}, effort ${fallback.reasoningEffort}. Empty means the default.`;
}

export async function loadExtraction() {
  drawExtraction(await api("GET", "/api/memory/extraction"));
}

async function act(method, suffix, body, message) {
  drawExtraction(await api(method, `/api/memory/extraction${suffix}`, body));
  show(message);
}

export function bindExtraction() {
  $("guidance-save").addEventListener("click", guarded(() =>
    act("PUT", "/guidance/draft", { text: $("guidance-draft").value }, "Draft saved; it does not run until published.")));
  $("guidance-publish").addEventListener("click", guarded(() =>
    act("POST", "/guidance/publish", undefined, "Draft published.")));
  $("guidance-reset").addEventListener("click", guarded(() =>
    act("DELETE", "/guidance", undefined, "Guidance reset to the built-in text.")));
  $("model-save").addEventListener("click", guarded(() =>
    act("PUT", "/model", {
      model: $("model").value.trim() || null,
      reasoningEffort: $("effort").value || null,
    }, "Model selection saved.")));
}
