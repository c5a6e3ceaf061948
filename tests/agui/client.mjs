// The official AG-UI client (`@ag-ui/client`, HttpAgent) against the service's AG-UI wire.
// Run by tests/agui/test_official_client.py with BASE (the wire's URL up to the agent), KEY (a
// chat key) and CUSTOMER; prints one JSON object with what each scenario saw.
import { HttpAgent, buildResumeArray } from "@ag-ui/client";

const { BASE, KEY, CUSTOMER } = process.env;
const forwardedProps = { customerId: CUSTOMER };

function agent(threadId, text) {
  const a = new HttpAgent({
    url: BASE,
    threadId,
    headers: { Authorization: `Bearer ${KEY}` },
    initialMessages: [{ id: `${threadId}-u1`, role: "user", content: text }],
  });
  const seen = [];
  a.subscribe({ onEvent: ({ event }) => seen.push(event.type) });
  return { a, seen };
}

function said(messages) {
  return messages.map((m) => ({ role: m.role, content: m.content ?? null,
    toolCalls: (m.toolCalls ?? []).map((c) => c.function.name) }));
}

async function streamed() {
  const { a, seen } = agent("node-streamed", "Where is order A-1?");
  const deltas = [];
  const results = [];
  const { newMessages } = await a.runAgent({ forwardedProps }, {
    onTextMessageContentEvent: ({ event }) => { deltas.push(event.delta); },
    onToolCallResultEvent: ({ event }) => { results.push(event.content); },
  });
  return { events: seen, deltas, results, messages: said(newMessages) };
}

async function held() {
  const { a, seen } = agent("node-held", "Refund 10 on A-1");
  let outcome = null;
  await a.runAgent({ forwardedProps }, {
    onRunFinishedEvent: (p) => { outcome = p.outcome; },
  });
  const interrupts = a.pendingInterrupts.map((i) => ({ id: i.id, reason: i.reason,
    toolCallId: i.toolCallId, tool: i.metadata?.tool }));
  let refused = null;  // a second client on the same thread, without a resume: the server's 409
  try {
    await agent("node-held", "again").a.runAgent({ forwardedProps }, {
      onRunFailed: () => {},
    });
  } catch (error) {
    refused = error.status ?? String(error);
  }
  const answers = Object.fromEntries(a.pendingInterrupts.map((i) =>
    [i.id, { status: "resolved", payload: { approved: true } }]));
  const resume = buildResumeArray(a.pendingInterrupts, answers);
  const results = [];
  const { newMessages } = await a.runAgent({ forwardedProps, resume }, {
    onToolCallResultEvent: ({ event }) => { results.push(event.content); },
  });
  return { outcome, interrupts, refused, results, events: seen,
    pendingAfter: a.pendingInterrupts.length, messages: said(newMessages) };
}

async function clientTool() {
  const { a } = agent("node-client", "Ask me first");
  const tools = [{ name: "ask_user", description: "Ask the person a yes/no question",
    parameters: { type: "object", properties: { question: { type: "string" } } } }];
  let pending = [];
  await a.runAgent({ forwardedProps, tools }, {
    onRunFinishedEvent: (p) => { pending = p.pendingToolCallIds ?? []; },
  });
  for (const id of pending) a.addMessage({ id: `answer-${id}`, role: "tool", toolCallId: id, content: "yes" });
  const { newMessages } = await a.runAgent({ forwardedProps, tools });
  return { pending, messages: said(newMessages) };
}

const out = {};
for (const [name, scenario] of [["streamed", streamed], ["held", held], ["client", clientTool]]) {
  try {
    out[name] = await scenario();
  } catch (error) {
    out[name] = { error: String(error), status: error.status ?? null };
  }
}
process.stdout.write(JSON.stringify(out));
