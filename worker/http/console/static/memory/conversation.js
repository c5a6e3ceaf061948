// The Playground's conversation as plain values, and what each AG-UI event does to it. Pure:
// `apply(conversation, event)` returns a new conversation in which the items that changed are
// new objects and the others the same ones, so the view redraws only what changed.
//
// Items, in order: {kind: "user", id, text}, {kind: "assistant", id, text, streaming} and
// {kind: "tool", id (the tool call's), name, args (JSON text), parent, state, result, error,
// durationMs, decision}, with state "calling" (arguments streaming), "running" (the call is
// complete, its result not yet back), "held" (waiting for a person), "decided" (a decision sent,
// the result still to come), "done", "unanswered" (the run ended without its result).

export function conversation(agent, threadId, identities = {}, earlier = []) {
  return { agent, threadId, identities, earlier, items: [], interrupts: [], decisions: {},
    running: false, error: null };
}

const replace = (conv, id, change) => ({
  ...conv,
  items: conv.items.map((item) => (item.id === id ? { ...item, ...change(item) } : item)),
});

const has = (conv, id) => conv.items.some((item) => item.id === id);

export function addUser(conv, id, text) {
  return { ...conv, items: [...conv.items, { kind: "user", id, text }], error: null };
}

function toolItem(id, name, parent) {
  return { kind: "tool", id, name, args: "", parent, state: "calling", result: null,
    error: null, durationMs: null, decision: null };
}

function textEvent(conv, event) {
  const id = event.messageId;
  if (!has(conv, id)) {
    conv = { ...conv, items: [...conv.items,
      { kind: "assistant", id, text: "", streaming: true }] };
  }
  if (event.type === "TEXT_MESSAGE_END") return replace(conv, id, () => ({ streaming: false }));
  return replace(conv, id, (item) => ({ text: item.text + (event.delta ?? "") }));
}

function toolResult(conv, event) {
  const id = event.toolCallId;
  if (!has(conv, id)) conv = { ...conv, items: [...conv.items, toolItem(id, "tool", null)] };
  const metadata = event.metadata ?? {};
  const content = typeof event.content === "string" ? event.content : JSON.stringify(event.content);
  return replace(conv, id, () => ({
    state: "done", result: content, resultId: event.messageId,
    durationMs: typeof metadata.durationMs === "number" ? metadata.durationMs : null,
    error: metadata.error ?? null,
  }));
}

function finished(conv, event) {
  const outcome = event.outcome ?? { type: "success" };
  const interrupts = outcome.type === "interrupt" ? outcome.interrupts ?? [] : [];
  const held = new Set(interrupts.map((i) => i.toolCallId));
  const items = conv.items.map((item) => {
    if (item.kind !== "tool") return item;
    if (held.has(item.id)) return { ...item, state: "held" };
    if (item.state === "calling" || item.state === "running") {
      return { ...item, state: "unanswered" };
    }
    return item;
  });
  return { ...conv, items, interrupts, decisions: {}, running: false };
}

export function apply(conv, event) {
  switch (event.type) {
    case "RUN_STARTED":
      return { ...conv, running: true, error: null };
    case "TEXT_MESSAGE_START":
    case "TEXT_MESSAGE_CONTENT":
    case "TEXT_MESSAGE_CHUNK":
    case "TEXT_MESSAGE_END":
      return textEvent(conv, event);
    case "TOOL_CALL_START":
      if (has(conv, event.toolCallId)) return conv;
      return { ...conv, items: [...conv.items,
        toolItem(event.toolCallId, event.toolCallName, event.parentMessageId ?? null)] };
    case "TOOL_CALL_ARGS":
      return replace(conv, event.toolCallId, (item) => ({ args: item.args + event.delta }));
    case "TOOL_CALL_END":
      return replace(conv, event.toolCallId, () => ({ state: "running" }));
    case "TOOL_CALL_RESULT":
      return toolResult(conv, event);
    case "RUN_FINISHED":
      return finished(conv, event);
    case "RUN_ERROR":
      return { ...conv, running: false, error: event.message || "The run failed." };
    default:
      return conv; // steps, state, reasoning...: nothing the Playground shows
  }
}

// A person's decision on one held call: {kind: "approve"} | {kind: "edit", arguments} |
// {kind: "reject", message}. The run resumes once every open interrupt has one.
export function decide(conv, interruptId, decision) {
  const interrupt = conv.interrupts.find((i) => i.id === interruptId);
  const decided = { ...conv, decisions: { ...conv.decisions, [interruptId]: decision } };
  return interrupt?.toolCallId
    ? replace(decided, interrupt.toolCallId, () => ({ state: "decided", decision }))
    : decided;
}

export const undecided = (conv) => conv.interrupts.filter((i) => !(i.id in conv.decisions));

// the resume entries answering every open interrupt (AG-UI: a denial is "resolved" with
// approved false; edited arguments replace the model's whole)
export function resumeEntries(conv) {
  return conv.interrupts.map((interrupt) => {
    const decision = conv.decisions[interrupt.id];
    const payload = { approved: decision.kind !== "reject" };
    if (decision.kind === "edit") payload.editedArgs = decision.arguments;
    if (decision.kind === "reject" && decision.message) payload.message = decision.message;
    return { interruptId: interrupt.id, status: "resolved", payload };
  });
}

export const resumed = (conv) => ({ ...conv, interrupts: [], decisions: {} });

// the messages of this page's conversation as AG-UI messages (what @ag-ui/client's HttpAgent
// sends on each run: the whole history it saw); earlier turns of a continued session are the
// server's already and are not sent again
export function history(conv) {
  const messages = [];
  const assistant = (id) => {
    let message = messages.find((m) => m.id === id && m.role === "assistant");
    if (!message) {
      message = { id, role: "assistant", content: "" };
      messages.push(message);
    }
    return message;
  };
  for (const item of conv.items) {
    if (item.kind === "user") messages.push({ id: item.id, role: "user", content: item.text });
    else if (item.kind === "assistant") assistant(item.id).content += item.text;
    else {
      const message = assistant(item.parent ?? `assistant-${item.id}`);
      message.toolCalls = [...(message.toolCalls ?? []),
        { id: item.id, type: "function", function: { name: item.name, arguments: item.args } }];
      if (item.result !== null) {
        messages.push({ id: item.resultId ?? `result-${item.id}`, role: "tool",
          toolCallId: item.id, content: item.result });
      }
    }
  }
  return messages;
}

// A decision already pending on the thread (found through GET /api/chat/decisions, e.g. a
// session continued from the Sessions view): its call shown held, its interrupt open, as if
// this page had seen the run that parked it; the interrupt keeps whom it acts for and the
// customer's message behind it, as stored.
export function withPending(conv, pending) {
  if (conv.interrupts.some((i) => i.id === pending.id)) return conv;
  const call = { kind: "tool", id: pending.toolCallId, name: pending.tool, args: pending.arguments,
    parent: null, state: "held", result: null, error: null, durationMs: null, decision: null };
  const items = conv.items.some((i) => i.id === call.id)
    ? conv.items.map((i) => (i.id === call.id ? { ...i, state: "held" } : i))
    : [...conv.items, call];
  const interrupt = { id: pending.id, reason: "tool_call", toolCallId: pending.toolCallId,
    metadata: { tool: pending.tool, allowed: pending.allowed },
    identities: pending.identities, userMessage: pending.userMessage };
  return { ...conv, items, interrupts: [...conv.interrupts, interrupt] };
}
