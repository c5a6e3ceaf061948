// What the screen has open, shared by the views, and the bus they tell each other on:
// "agent" (an agent was chosen), "op" (a memory.ops event arrived), "signout".
// `agents`: the listing of GET /api/memory/agents by id (whether this process runs each one).
export const state = { agent: null, agents: {}, customer: null, settings: null, view: "customers" };
export const bus = new EventTarget();

export function emit(name, detail) {
  bus.dispatchEvent(new CustomEvent(name, { detail }));
}

export function on(name, handler) {
  bus.addEventListener(name, (event) => handler(event.detail));
}

export const agentPath = (suffix) => `/api/memory/${suffix}/${encodeURIComponent(state.agent)}`;
