// The CopilotKit runtime in front of the service's AG-UI wire, and the built page (dist/).
//   AGUI_URL  the service's base address, e.g. http://127.0.0.1:8080 (required)
//   AGUI_KEY  a `chat` API key of the service, held here, server-side (required)
//   AGENT_ID  the service's agent the page talks to (default: desk)
//   PORT      where to listen on 127.0.0.1 (default 3000; 0 for any free port)
// Prints one JSON line, {"port": N}, once it listens. Telemetry is off unless the environment
// turns it on.
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";

process.env.COPILOTKIT_TELEMETRY_DISABLED ??= "true";
process.env.DO_NOT_TRACK ??= "1";
process.env.SCARF_ANALYTICS ??= "false";

const { HttpAgent } = await import("@ag-ui/client");
const { CopilotRuntime } = await import("@copilotkit/runtime/v2");
const { createCopilotNodeListener } = await import("@copilotkit/runtime/v2/node");
const { AguiServiceRunner, PROPS_HEADER, connectPropsHook } = await import("./agui-runner.mjs");

const { AGUI_URL, AGUI_KEY, AGENT_ID = "desk", PORT = "3000" } = process.env;
if (!AGUI_URL || !AGUI_KEY) {
  console.error("AGUI_URL and AGUI_KEY are required (the service's address and a chat key)");
  process.exit(2);
}
const BASE_PATH = "/api/copilotkit";
const DIST = fileURLToPath(new URL("dist", import.meta.url));
const TYPES = { ".html": "text/html", ".js": "text/javascript", ".css": "text/css" };
const agentUrl = (agentId) => `${AGUI_URL.replace(/\/$/, "")}/agui/${encodeURIComponent(agentId)}`;

// The service's key is set here, on the server-side agent (a header the agent sets wins over the
// browser's). By default the runtime also forwards the browser's `authorization` and `x-*`
// headers to the agent; this allowlist forwards none of them, only the runner's own header.
const agent = new HttpAgent({ url: agentUrl(AGENT_ID), headers: { Authorization: `Bearer ${AGUI_KEY}` } });
const runtime = new CopilotRuntime({
  agents: { [AGENT_ID]: agent },
  runner: new AguiServiceRunner({ agentUrl }),
  forwardHeaders: { allow: [PROPS_HEADER] },
});
const copilot = createCopilotNodeListener({
  runtime,
  basePath: BASE_PATH,
  activateChannels: false,
  hooks: { onBeforeHandler: connectPropsHook },
});

async function serveStatic(request, response) {
  const path = new URL(request.url, "http://page").pathname;
  const name = path === "/" ? "index.html" : path.slice(1);
  if (!/^[\w.-]+$/.test(name)) return notFound(response);
  try {
    const body = await readFile(join(DIST, name));
    response.writeHead(200, { "Content-Type": TYPES[extname(name)] ?? "application/octet-stream" });
    response.end(body);
  } catch {
    notFound(response);
  }
}

function notFound(response) {
  response.writeHead(404, { "Content-Type": "text/plain" });
  response.end("not found");
}

const server = createServer((request, response) =>
  request.url.startsWith(`${BASE_PATH}/`) ? copilot(request, response) : serveStatic(request, response),
);
server.listen(Number(PORT), "127.0.0.1", () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => process.exit(0));
