// The key and the public HTTP API. The key lives in sessionStorage (this tab only: gone when the
// tab closes, never localStorage or a cookie; a sign-in address's `#key=` is read once and removed
// from the address bar, see screen.js) and travels in the Authorization header.
const KEY_STORAGE = "memoryScreen.apiKey";

export const key = {
  get: () => sessionStorage.getItem(KEY_STORAGE),
  set: (value) => sessionStorage.setItem(KEY_STORAGE, value),
  clear: () => sessionStorage.removeItem(KEY_STORAGE),
};

export class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || `HTTP ${status}`);
    this.status = status;
    this.code = error.code;
    this.field = error.field;
  }
}

export function authHeaders(extra = {}) {
  return { Authorization: `Bearer ${key.get() || ""}`, ...extra };
}

async function send(method, path, init) {
  const response = await fetch(path, { method, ...init });
  if (!response.ok) {
    const body = await response.json().catch(() => null);
    throw new ApiError(response.status, body);
  }
  return response;
}

// JSON in, JSON out
export async function api(method, path, body) {
  const init = { headers: authHeaders() };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return (await send(method, path, init)).json();
}

// a listing's page: its JSON and the next page's path from the Link header (null: the last)
export async function apiPage(path) {
  const response = await send("GET", path, { headers: authHeaders() });
  const found = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get("Link") || "");
  return { body: await response.json(), next: found ? found[1] : null };
}

// a file's own bytes as the body, its type in Content-Type
export async function upload(path, file, contentType) {
  const init = { headers: authHeaders({ "Content-Type": contentType }), body: file };
  return (await send("POST", path, init)).json();
}

export async function download(path) {
  return (await send("GET", path, { headers: authHeaders() })).blob();
}

// JSON in, a document out as a file's bytes (a streamed answer read whole)
export async function downloadPosted(path, body) {
  const headers = authHeaders({ "Content-Type": "application/json" });
  return (await send("POST", path, { headers, body: JSON.stringify(body) })).blob();
}

// a streaming GET: the response, its body still to be read
export async function stream(path, signal) {
  return send("GET", path, { headers: authHeaders({ Accept: "text/event-stream" }), signal });
}
