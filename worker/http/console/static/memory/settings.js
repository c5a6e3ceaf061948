// The per-agent Memory tab: read, save, instructions, remember, forget and the time zone, each
// with its origin and a Reset; how long each kind of record is kept; the identity key chosen
// once behind a confirmation.
import { api } from "./api.js";
import { $, fail, guarded, setZone, show, when } from "./dom.js";
import { agentPath, state } from "./state.js";

const FIELDS = ["read", "save", "instructions", "remember", "forget", "timeZone"];
const ORIGINS = { studio: "set here", code: "from the agent's code", default: "platform default" };
const KINDS = ["calls", "sessions", "ops", "reads", "journals"];
const lines = (text) => text.split("\n").map((s) => s.trim()).filter(Boolean);

function controlValue(field) {
  const control = $(`setting-${field}`);
  if (control.type === "checkbox") return control.checked;
  if (field === "instructions") return control.value;
  if (field === "timeZone") return control.value.trim();
  return lines(control.value);
}

function drawSettings(settings) {
  state.settings = settings;
  setZone(settings.value.timeZone);
  for (const field of FIELDS) {
    const value = settings.value[field];
    const control = $(`setting-${field}`);
    if (control.type === "checkbox") control.checked = value;
    else control.value = Array.isArray(value) ? value.join("\n") : value || "";
    const origin = settings.origins[field];
    $(`origin-${field}`).textContent = origin ? `Origin: ${ORIGINS[origin]}` : "";
  }
  const binding = settings.binding;
  $("identity-current").textContent = binding
    ? `Fixed as ${binding.identityKey} (${binding.source === "code" ? "by the agent's code" : "here"}, ${when(binding.fixedAt)}).`
    : "Not chosen yet: memory is off for this agent until an identity key is fixed.";
  $("identity-choose").hidden = binding !== null;
  $("identity-confirm").hidden = true;
}

function drawRetention(retention) {
  state.retention = retention;
  for (const kind of KINDS) $(`retention-${kind}`).value = retention[kind] ?? "";
}

// empty keeps the kind until deleted; anything but a whole number goes as typed, so the API's
// refusal names the kind and its rule
function retentionValue(kind) {
  const typed = $(`retention-${kind}`).value.trim();
  if (typed === "") return null;
  return /^\d+$/.test(typed) ? Number(typed) : typed;
}

async function saveRetention() {
  const changed = {};
  for (const kind of KINDS) {
    const now = retentionValue(kind);
    if (now !== state.retention[kind]) changed[kind] = now;
  }
  if (Object.keys(changed).length === 0) return show("Nothing changed.");
  drawRetention(await api("PUT", `${agentPath("settings")}/retention`, changed));
  show(`Saved retention: ${Object.keys(changed).join(", ")}.`);
}

export async function loadSettings() {
  const agent = state.agent;
  const [settings, retention] = await Promise.all([
    api("GET", agentPath("settings")),
    api("GET", `${agentPath("settings")}/retention`),
  ]);
  if (state.agent !== agent) return; // another agent was chosen meanwhile
  drawSettings(settings);
  drawRetention(retention);
  $("identity-message").textContent = "";
  $("settings-agent").textContent = agent;
}

async function saveSettings() {
  const changed = {};
  for (const field of FIELDS) {
    const now = controlValue(field);
    if (JSON.stringify(now) !== JSON.stringify(state.settings.value[field] ?? "")) changed[field] = now;
  }
  if (Object.keys(changed).length === 0) return show("Nothing changed.");
  drawSettings(await api("PUT", agentPath("settings"), changed));
  show(`Saved: ${Object.keys(changed).join(", ")}.`);
}

async function resetField(field) {
  const path = `${agentPath("settings")}?field=${encodeURIComponent(field)}`;
  drawSettings(await api("DELETE", path));
  show(`Reset ${field}.`);
}

function proposeIdentity() {
  const key = $("identity-key").value.trim();
  if (!key) return fail(new Error("Type an identity key first."));
  $("identity-proposed").textContent = key;
  $("identity-confirm").hidden = false;
  $("identity-confirm-button").focus();
}

async function fixIdentity() {
  const identityKey = $("identity-proposed").textContent;
  try {
    drawSettings(await api("PUT", agentPath("settings"), { identityKey }));
    show(`Identity key fixed as ${identityKey}.`);
  } catch (error) {
    if (error.status !== 409) throw error;
    await loadSettings();
    const fixed = state.settings.binding ? state.settings.binding.identityKey : "another key";
    $("identity-message").textContent =
      `Not changed: this agent's identity key was already fixed as ${fixed}, ` +
      "and an identity key can never change once chosen (memory is kept under it).";
  }
}

export function bindSettings() {
  $("settings-save").addEventListener("click", guarded(saveSettings));
  $("retention-save").addEventListener("click", guarded(saveRetention));
  for (const reset of document.querySelectorAll("button.reset")) {
    reset.addEventListener("click", guarded(() => resetField(reset.dataset.field)));
  }
  $("identity-next").addEventListener("click", proposeIdentity);
  $("identity-cancel").addEventListener("click", () => { $("identity-confirm").hidden = true; });
  $("identity-confirm-button").addEventListener("click", guarded(fixIdentity));
}
