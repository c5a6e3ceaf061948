// A server-sent events parser for a fetch() body (EventSource cannot send the bearer header).
// Pure: text in, events out; it keeps the unfinished tail between chunks.
export class EventParser {
  constructor() {
    this.buffer = "";
  }

  // the complete events in `text` (and what came before it): [{id, event, data}]
  push(text) {
    this.buffer += text.replace(/\r\n?/g, "\n");
    const blocks = this.buffer.split("\n\n");
    this.buffer = blocks.pop();
    return blocks.map(parseBlock).filter((e) => e !== null);
  }
}

function parseBlock(block) {
  const event = { id: null, event: "message", data: [] };
  for (const line of block.split("\n")) {
    if (line === "" || line.startsWith(":")) continue; // a comment: keep-alive
    const colon = line.indexOf(":");
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "id") event.id = value;
    else if (field === "event") event.event = value;
    else if (field === "data") event.data.push(value);
  }
  if (event.data.length === 0) return null;
  return { ...event, data: event.data.join("\n") };
}
