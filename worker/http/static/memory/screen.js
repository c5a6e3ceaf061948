// The Memory screen: plain DOM code over the public HTTP API. The key the operator types lives in
// sessionStorage (this tab only) and travels in the Authorization header; customer identifiers
// travel in JSON bodies exactly as stored, never in a URL. Data is only ever set as textContent.
"use strict";

(() => {
  const KEY_STORAGE = "memoryScreen.apiKey";
  const FIELDS = ["read", "save", "instructions", "remember", "forget"];
  const $ = (id) => document.getElementById(id);
  const state = { agent: null, customer: null, settings: null };

  class ApiError extends Error {
    constructor(status, body) {
      const error = (body && body.error) || {};
      super(error.message || `HTTP ${status}`);
      this.status = status;
      this.code = error.code;
      this.field = error.field;
    }
  }

  async function api(method, path, body) {
    const headers = { Authorization: `Bearer ${sessionStorage.getItem(KEY_STORAGE) || ""}` };
    const init = { method, headers };
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    const answer = await response.json().catch(() => null);
    if (!response.ok) throw new ApiError(response.status, answer);
    return answer;
  }

  const agentPath = (suffix) => `/api/memory/${suffix}/${encodeURIComponent(state.agent)}`;

  function show(message) {
    $("status").textContent = message;
    $("error").textContent = "";
  }

  function fail(error) {
    const field = error.field ? ` (field: ${error.field})` : "";
    $("error").textContent = `${error.message}${field}`;
  }

  // run an action; its failures are shown, never thrown at the console
  const guarded = (action) => async (...args) => {
    show("Working…");
    try {
      await action(...args);
    } catch (error) {
      fail(error);
    }
  };

  function when(iso) {
    return iso ? new Date(iso).toLocaleString() : "—";
  }

  function element(tag, text, className) {
    const node = document.createElement(tag);
    if (text !== undefined) node.textContent = text;
    if (className) node.className = className;
    return node;
  }

  // --- key and agent
  async function connect() {
    const typed = $("api-key").value.trim();
    if (typed) sessionStorage.setItem(KEY_STORAGE, typed);
    $("api-key").value = "";
    const { agents } = await api("GET", "/api/memory/agents");
    const select = $("agent");
    select.replaceChildren(...agents.map((a) => element("option", a.agentId)));
    await chooseAgent(select.value);
    show(`${agents.length} agent(s). Choose one, then search or open a customer.`);
  }

  async function chooseAgent(name) {
    state.agent = name;
    state.customer = null;
    $("customer").hidden = true;
    $("results").replaceChildren();
    $("search-note").textContent = "";
    await loadSettings();
    $("settings-agent").textContent = name;
  }

  // --- tabs
  function showTab(name) {
    for (const tab of ["customers", "settings", "extraction"]) {
      $(tab).hidden = tab !== name;
      $(`tab-${tab}`).setAttribute("aria-pressed", String(tab === name));
    }
    if (name === "extraction") guarded(loadExtraction)();
  }

  // --- search and customers
  async function search() {
    const query = $("search-query").value;
    const mode = $("search-mode").value;
    const found = await api("POST", `${agentPath("customers")}/search`, { query, mode, k: 50 });
    $("search-note").textContent =
      mode !== "identifier" && found.lexicalOnly
        ? `Lexical matches only${found.reason ? `: ${found.reason}` : ""}.`
        : "";
    const items = found.items.map((hit) => {
      const item = element("li");
      const open = element("button", hit.contact, "id result");
      open.type = "button";
      open.addEventListener("click", guarded(() => openCustomer(hit.contact)));
      item.append(open);
      if (hit.text !== null) item.append(" ", element("span", hit.text));
      return item;
    });
    $("results").replaceChildren(...items);
    show(`${items.length} result(s).`);
  }

  async function openCustomer(userId) {
    const body = { userId, calls: 20 };
    const memory = await api("POST", `${agentPath("customers")}/recall`, body);
    const past = await api("POST", `${agentPath("customers")}/history`, { userId });
    state.customer = userId;
    $("customer-id").textContent = userId;
    $("facts").tBodies[0].replaceChildren(
      ...memory.facts.map((f) => {
        const row = element("tr");
        row.append(
          element("td", f.content),
          element("td", when(f.createdAt)),
          element("td", when(f.updatedAt)),
        );
        return row;
      }),
    );
    const calls = [...memory.calls].sort((a, b) =>
      (b.startedAt || b.createdAt).localeCompare(a.startedAt || a.createdAt),
    );
    $("calls").replaceChildren(...calls.map(callItem));
    $("history").replaceChildren(...past.versions.map(versionItem));
    $("customer").hidden = false;
    closeDelete();
    $("delete-result").textContent = "";
    show(`${memory.facts.length} fact(s), ${calls.length} call(s).`);
  }

  function callItem(call) {
    const item = element("li");
    const duration =
      call.durationSeconds === null ? "duration unknown" : `${Math.round(call.durationSeconds)} s`;
    const outcome = call.outcome === null ? "no outcome" : call.outcome;
    item.append(
      element("div", `${when(call.startedAt || call.createdAt)} · ${outcome} · ${duration}`, "meta"),
      element("div", call.summary || ""),
    );
    return item;
  }

  function versionItem(version) {
    const item = element("li");
    const until = version.validTo ? `until ${when(version.validTo)} (${version.endedBy})` : "current";
    item.append(
      element("span", version.content),
      " ",
      element("span", `from ${when(version.validFrom)}, ${until}`, "meta"),
    );
    return item;
  }

  // --- delete all, confirmed by typing both names
  function closeDelete() {
    $("delete-confirm").hidden = true;
    $("confirm-user").value = "";
    $("confirm-agent").value = "";
    $("delete-confirm-button").disabled = true;
  }

  function checkDelete() {
    const typed = $("confirm-user").value === state.customer && $("confirm-agent").value === state.agent;
    $("delete-confirm-button").disabled = !typed;
  }

  async function deleteAll() {
    checkDelete();
    if ($("delete-confirm-button").disabled) return;
    const userId = state.customer;
    const outcome = await api("POST", `${agentPath("customers")}/delete-all`, { userId });
    closeDelete();
    $("customer").hidden = true;
    $("results").replaceChildren();
    $("delete-result").textContent = "";
    show(`Deleted ${outcome.deleted} item(s) for ${userId} (agent ${outcome.agentId}).`);
  }

  // --- the per-agent Memory tab
  const ORIGINS = { studio: "set here", code: "from the agent's code", default: "platform default" };
  const lines = (text) => text.split("\n").map((s) => s.trim()).filter(Boolean);

  function controlValue(field) {
    const control = $(`setting-${field}`);
    if (control.type === "checkbox") return control.checked;
    if (field === "instructions") return control.value;
    return lines(control.value);
  }

  function drawSettings(settings) {
    state.settings = settings;
    for (const field of FIELDS) {
      const value = settings.value[field];
      const control = $(`setting-${field}`);
      if (control.type === "checkbox") control.checked = value;
      else control.value = Array.isArray(value) ? value.join("\n") : value || "";
      $(`origin-${field}`).textContent = `Origin: ${ORIGINS[settings.origins[field]]}`;
    }
    const binding = settings.binding;
    $("identity-current").textContent = binding
      ? `Fixed as ${binding.identityKey} (${binding.source === "code" ? "by the agent's code" : "here"}, ${when(binding.fixedAt)}).`
      : "Not chosen yet: memory is off for this agent until an identity key is fixed.";
    $("identity-choose").hidden = binding !== null;
    $("identity-confirm").hidden = true;
  }

  async function loadSettings() {
    const agent = state.agent;
    const settings = await api("GET", agentPath("settings"));
    if (state.agent !== agent) return; // another agent was chosen meanwhile
    drawSettings(settings);
    $("identity-message").textContent = "";
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

  // --- extraction guidance and model, shared by all agents
  function drawExtraction(extraction) {
    const guidance = extraction.guidance;
    $("guidance-draft").value = guidance.draft ?? "";
    $("guidance-state").textContent = guidance.usesBuiltIn
      ? "Running: the built-in guidance."
      : `Running: the guidance published ${when(guidance.publishedAt)}.`;
    const effort = $("effort");
    effort.replaceChildren(
      element("option", "platform default", ""),
      ...extraction.reasoningEfforts.map((e) => element("option", e)),
    );
    effort.options[0].value = "";
    effort.value = extraction.reasoningEffort ?? "";
    $("model").value = extraction.model ?? "";
    const fallback = extraction.platformDefault;
    $("model-default").textContent =
      `Platform default: ${fallback.model}, effort ${fallback.reasoningEffort}. Empty means the default.`;
  }

  async function loadExtraction() {
    drawExtraction(await api("GET", "/api/memory/extraction"));
  }

  async function extractionAction(method, suffix, body, message) {
    drawExtraction(await api(method, `/api/memory/extraction${suffix}`, body));
    show(message);
  }

  function bind() {
    $("connect").addEventListener("click", guarded(connect));
    $("agent").addEventListener("change", guarded(() => chooseAgent($("agent").value)));
    for (const tab of ["customers", "settings", "extraction"]) {
      $(`tab-${tab}`).addEventListener("click", () => showTab(tab));
    }
    $("search").addEventListener("click", guarded(search));
    $("open").addEventListener("click", guarded(() => openCustomer($("open-user").value)));
    $("delete-start").addEventListener("click", () => { $("delete-confirm").hidden = false; });
    $("delete-cancel").addEventListener("click", closeDelete);
    $("confirm-user").addEventListener("input", checkDelete);
    $("confirm-agent").addEventListener("input", checkDelete);
    $("delete-confirm-button").addEventListener("click", guarded(deleteAll));
    $("settings-save").addEventListener("click", guarded(saveSettings));
    for (const button of document.querySelectorAll("button.reset")) {
      button.addEventListener("click", guarded(() => resetField(button.dataset.field)));
    }
    $("identity-next").addEventListener("click", proposeIdentity);
    $("identity-cancel").addEventListener("click", () => { $("identity-confirm").hidden = true; });
    $("identity-confirm-button").addEventListener("click", guarded(fixIdentity));
    $("guidance-save").addEventListener("click", guarded(() =>
      extractionAction("PUT", "/guidance/draft", { text: $("guidance-draft").value }, "Draft saved; it does not run until published.")));
    $("guidance-publish").addEventListener("click", guarded(() =>
      extractionAction("POST", "/guidance/publish", undefined, "Draft published.")));
    $("guidance-reset").addEventListener("click", guarded(() =>
      extractionAction("DELETE", "/guidance", undefined, "Guidance reset to the built-in text.")));
    $("model-save").addEventListener("click", guarded(() =>
      extractionAction("PUT", "/model", {
        model: $("model").value.trim() || null,
        reasoningEffort: $("effort").value || null,
      }, "Model selection saved.")));
  }

  bind();
  window.memoryScreen = { ready: true };
  if (sessionStorage.getItem(KEY_STORAGE)) guarded(async () => {
    const { agents } = await api("GET", "/api/memory/agents");
    $("agent").replaceChildren(...agents.map((a) => element("option", a.agentId)));
    await chooseAgent($("agent").value);
    show("Key kept for this tab. Search or open a customer.");
  })();
})();
