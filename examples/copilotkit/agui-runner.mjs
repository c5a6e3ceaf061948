// An AgentRunner for the CopilotKit runtime that keeps nothing of a thread: every run goes to
// the service's AG-UI route (POST /agui/{agentId}) and a restore (`connect`) asks the service
// for the thread again with a connect run (no new message, no resume): RUN_STARTED, one
// MESSAGES_SNAPSHOT and RUN_FINISHED, with the pending interrupt again while a decision waits.
// The runtime can restart, or run as several replicas, and a reloaded page still gets its
// thread back. The only thing held in memory is the run in flight (for isRunning and stop).
import { randomUUID } from "node:crypto";
import { HttpAgent } from "@ag-ui/client";
import { AgentRunner, finalizeRunEvents } from "@copilotkit/runtime/v2";
import { Observable } from "rxjs";

// The runtime hands `connect` only the threadId, the agentId and the forwardable headers, not
// the request's `forwardedProps`; the service needs them (a thread's address includes the
// customer's identities). `connectPropsHook` copies them from the connect request's body into
// this header (an `x-*` header, so the runtime passes it to `connect`); `connect` takes it out
// again, so it never reaches the service. A copy the browser sent itself is always dropped.
export const PROPS_HEADER = "x-agui-runner-forwarded-props";

export const connectPropsHook = async ({ request, route }) => {
  const connect = route.method === "agent/connect";
  if (!connect && !request.headers.has(PROPS_HEADER)) return undefined;
  const headers = new Headers(request.headers);
  headers.delete(PROPS_HEADER);
  if (connect) {
    const body = await request.clone().json().catch(() => ({}));
    const props = JSON.stringify(body?.forwardedProps ?? {});
    headers.set(PROPS_HEADER, Buffer.from(props).toString("base64url"));
  }
  const body = ["GET", "HEAD"].includes(request.method) ? undefined : await request.arrayBuffer();
  return new Request(request.url, { method: request.method, headers, body, signal: request.signal });
};

function takeProps(headers) {
  const forward = {};
  let props = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() !== PROPS_HEADER) forward[name] = value;
    else props = JSON.parse(Buffer.from(value, "base64url").toString("utf8"));
  }
  return { forward, props };
}

// The events of one HTTP run of `agent`; a failure (the service's 4xx/5xx, a stream cut before
// its last event) ends it as the in-memory runner does: what was open closed, then a RUN_ERROR.
// Unsubscribing (the browser went away) cancels the request, so the service keeps nothing of
// the turn, as with any client that goes away mid-run. `held` hears when it starts and ends.
function relay(agent, input, held = {}) {
  return new Observable((subscriber) => {
    held.start?.();
    const seen = [];
    const finish = (error) => {
      const options = error === undefined ? {} : { interruptionMessage: String(error?.message ?? error) };
      for (const event of finalizeRunEvents(seen, options)) subscriber.next(event);
      subscriber.complete();
    };
    const inner = agent.run(input).subscribe({
      next: (event) => {
        seen.push(event);
        subscriber.next(event);
      },
      error: finish,
      complete: () => finish(),
    });
    return () => {
      inner.unsubscribe();
      held.done?.();
    };
  });
}

export class AguiServiceRunner extends AgentRunner {
  #running = new Map(); // threadId -> { runId, agent }: the run in flight only

  /** @param {{ agentUrl: (agentId: string) => string }} options */
  constructor({ agentUrl }) {
    super();
    this.agentUrl = agentUrl;
  }

  run({ threadId, agent, input }) {
    if (this.#running.has(threadId)) throw new Error("Thread already running");
    const run = { runId: input.runId, agent };
    return relay(agent, input, {
      start: () => this.#running.set(threadId, run),
      done: () => this.#running.get(threadId) === run && this.#running.delete(threadId),
    });
  }

  connect({ threadId, agentId, headers }) {
    const { forward, props } = takeProps(headers);
    const agent = new HttpAgent({ url: this.agentUrl(agentId), headers: forward, threadId });
    const input = {
      threadId,
      runId: randomUUID(),
      state: {},
      messages: [],
      tools: [],
      context: [],
      forwardedProps: props,
    };
    return relay(agent, input);
  }

  async isRunning({ threadId }) {
    return this.#running.has(threadId);
  }

  async stop({ threadId, runId }) {
    const running = this.#running.get(threadId);
    if (!running || (runId !== undefined && running.runId !== runId)) return false;
    running.agent.abortRun();
    return true;
  }
}
