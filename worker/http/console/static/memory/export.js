// The customer's export: the same JSON document the export route streams (facts with every
// version and its source, calls, ops events, chat sessions, reads, ...), saved as a file on the
// operator's machine. The document is checked to be whole JSON first: an export the server cut
// short (its JSON does not close) is refused with a message, never saved as if complete. The
// file name names the agent and a safe form of the customer's id; it is never logged.
import { downloadPosted } from "./api.js";
import { element } from "./dom.js";

const NAME_CHARS = 64;

// letters and digits of any script, `_` and `-`; every other run (spaces, `+`, `/`, dots) is
// one `_`: "+34 611 22 33 44" -> "34_611_22_33_44"
export function safeName(text, fallback) {
  const kept = text.normalize("NFKC").replace(/[^\p{L}\p{N}_-]+/gu, "_").replace(/^_+|_+$/g, "");
  return Array.from(kept).slice(0, NAME_CHARS).join("") || fallback;
}

export function exportFileName(agent, userId) {
  return `memory-export-${safeName(agent, "agent")}-${safeName(userId, "customer")}.json`;
}

function save(blob, name) {
  const link = element("a");
  link.href = URL.createObjectURL(blob);
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10000);
}

// fetch, check and save the export of `userId` under `agent`; the document read and its size
export async function exportCustomer(agent, userId) {
  const path = `/api/memory/customers/${encodeURIComponent(agent)}/export`;
  const blob = await downloadPosted(path, { userId });
  let exported;
  try {
    exported = JSON.parse(await blob.text());
  } catch {
    throw new Error("The export was cut short by the server; nothing was saved. Try again.");
  }
  save(blob, exportFileName(agent, userId));
  return { exported, bytes: blob.size };
}
