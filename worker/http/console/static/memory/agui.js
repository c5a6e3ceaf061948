// The AG-UI wire as the Playground speaks it: POST /agui/{agent} with a RunAgentInput, the answer
// a text/event-stream whose `data:` frames each hold one JSON event (RUN_STARTED, TEXT_MESSAGE_*,
// TOOL_CALL_*, RUN_FINISHED, RUN_ERROR...). `fetch` and a stream reader rather than EventSource,
// which can neither POST nor send the bearer header.
import { ApiError, authHeaders } from "./api.js";
import { EventParser } from "./sse.js";

export class WireError extends Error {}

// Pure: text in, AG-UI events out; the unfinished tail is kept for the next chunk.
export class EventDecoder {
  constructor() {
    this.frames = new EventParser();
  }

  push(text) {
    return this.frames.push(text).map((frame) => decodeFrame(frame.data));
  }
}

export function decodeFrame(data) {
  let event;
  try {
    event = JSON.parse(data);
  } catch {
    throw new WireError("The agent's stream sent a frame that is not JSON.");
  }
  if (!event || typeof event.type !== "string") {
    throw new WireError("The agent's stream sent a frame without an event type.");
  }
  return event;
}

// a uuid4 text from the browser's random source (crypto.randomUUID needs a secure context; the
// console may be served over plain http on a private address)
export function newId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// The RunAgentInput of one run: the thread, the history so far, identities as forwarded props
// (and `prompt: "draft"` when the agent's prompt draft is tried) and, when it answers held
// tools, the resume entries.
export function runInput({ threadId, messages, identities, resume, draft = false }) {
  const forwardedProps = identities && Object.keys(identities).length ? { identities } : {};
  if (draft) forwardedProps.prompt = "draft";
  const input = {
    threadId, runId: newId(), state: {}, messages, tools: [], context: [], forwardedProps,
  };
  if (resume && resume.length) input.resume = resume;
  return input;
}

const TERMINAL = new Set(["RUN_FINISHED", "RUN_ERROR"]);

// Run once: each event is handed to `onEvent` as it arrives. An answer refused before the stream
// (400, 404, 409...) throws ApiError with the API's code and field; a stream that ends before the
// run finished throws WireError.
export async function run(agent, input, onEvent, signal) {
  const response = await fetch(`/agui/${encodeURIComponent(agent)}`, {
    method: "POST",
    headers: authHeaders({ "Content-Type": "application/json", Accept: "text/event-stream" }),
    body: JSON.stringify(input),
    signal,
  });
  if (!response.ok) {
    throw new ApiError(response.status, await response.json().catch(() => null));
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const decoder = new EventDecoder();
  let finished = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    for (const event of decoder.push(value)) {
      finished ||= TERMINAL.has(event.type);
      onEvent(event);
    }
  }
  if (!finished) throw new WireError("The agent's stream ended before the run finished.");
}
