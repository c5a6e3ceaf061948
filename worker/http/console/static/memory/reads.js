// Who has read the open customer's memory: when, who (the API key's name, the job, `cli`), the
// channel, the route or tool, and what it returned as counts, never content (the reads route,
// newest first). Opening a customer here is itself a read (its recall and history).
import { api } from "./api.js";
import { fill, row, timeElement } from "./dom.js";
import { agentPath } from "./state.js";

export const READS_SHOWN = 50;

// {"facts": 2, "calls": 5} as "facts: 2, calls: 5"
export function returnedText(counts) {
  const parts = Object.entries(counts || {}).map(([name, count]) => `${name}: ${count}`);
  return parts.length ? parts.join(", ") : "nothing";
}

function readRow(read) {
  const who = read.reader === null ? "unknown" : read.reader;
  return row(timeElement(read.at), who, read.channel, read.route, returnedText(read.returned));
}

// the person's newest reads, as rows (drawn by the caller, once it knows the person is still open)
export async function readRows(userId) {
  const found = await api("POST", `${agentPath("customers")}/reads`, { userId, limit: READS_SHOWN });
  return found.reads.map(readRow);
}

export function drawReads(tbody, rows) {
  fill(tbody, rows, "No reads recorded.");
}
