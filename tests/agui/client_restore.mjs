// A page that reloads, with the official AG-UI client (`@ag-ui/client`, HttpAgent): a thread
// parked on a held tool, then a fresh HttpAgent on the same threadId and no messages (a connect
// run) gets the thread and the pending interrupt back from the server and resumes it; another
// fresh one that sends a new message meets the 409 with the pending call. Run by
// tests/agui/test_official_client.py with BASE, KEY and CUSTOMER; prints one JSON object.
import { HttpAgent, buildResumeArray } from "@ag-ui/client";

const { BASE, KEY, CUSTOMER } = process.env;
const forwardedProps = { customerId: CUSTOMER };
const THREAD = "node-restore";

function agent(initialMessages = []) {
  return new HttpAgent({ url: BASE, threadId: THREAD, initialMessages,
    headers: { Authorization: `Bearer ${KEY}` } });
}

function said(messages) {
  return messages.map((m) => ({ role: m.role, content: m.content ?? null,
    toolCalls: (m.toolCalls ?? []).map((c) => c.function.name),
    toolCallIds: (m.toolCalls ?? []).map((c) => c.id), toolCallId: m.toolCallId ?? null }));
}

const first = agent([{ id: "u1", role: "user", content: "Refund 10 on A-1" }]);
await first.runAgent({ forwardedProps });
const parked = first.pendingInterrupts.map((i) => ({ id: i.id, toolCallId: i.toolCallId }));

const reloaded = agent();  // the page after a reload: no local state
const seen = [];
await reloaded.runAgent({ forwardedProps }, { onEvent: ({ event }) => { seen.push(event.type); } });
const restored = { events: seen, messages: said(reloaded.messages),
  interrupts: reloaded.pendingInterrupts.map((i) => ({ id: i.id, toolCallId: i.toolCallId,
    reason: i.reason, tool: i.metadata?.tool })) };

let refused = null;
try {
  await agent([{ id: "u9", role: "user", content: "Hello?" }]).runAgent({ forwardedProps },
    { onRunFailed: () => {} });
} catch (error) {
  refused = { status: error.status ?? null, error: error.payload?.error ?? String(error) };
}

const answers = Object.fromEntries(reloaded.pendingInterrupts.map((i) =>
  [i.id, { status: "resolved", payload: { approved: true } }]));
const results = [];
await reloaded.runAgent({ forwardedProps, resume: buildResumeArray(reloaded.pendingInterrupts, answers) },
  { onToolCallResultEvent: ({ event }) => { results.push(event.content); } });

const later = agent();
await later.runAgent({ forwardedProps });
process.stdout.write(JSON.stringify({ parked, restored, refused, results,
  after: said(later.messages), pendingAfter: later.pendingInterrupts.length }));
