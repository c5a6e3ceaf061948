// Where a fact came from, in plain words: the channel and day of the conversation it was drawn
// from and the quote it rests on ("From the call of 3 December 2026: “always email me”"), then
// what the model said about it and who wrote it. Rows written before provenance have channel
// "unknown" and nothing else: they read as "Source unknown"; a write that named no channel but
// kept its writer or model reads as "From a conversation of ... (channel not recorded)". Words
// only, never an icon.
import { element, formatDay } from "./dom.js";

// "From the call of …" for the channels the product writes; any other (the add route's own
// names, e.g. "crm") is named as it is
const CHANNELS = {
  voice: "From the call of",
  chat: "From the chat of",
  agui: "From the AG-UI chat of",
  "livekit-text": "From the LiveKit text chat of",
  http: "Saved through the API on",
  cli: "Saved from the command line on",
};

// the day each recalled call started, by its call id (a voice call's job, the add route's run)
export function callDays(calls) {
  const days = new Map();
  for (const call of calls) {
    if (call.source && call.source.callId) days.set(call.source.callId, call.startedAt);
  }
  return days;
}

// the first sentence: channel, day and quote; `at` is the day of the call the version came from
// when it was recalled, else when the version was written
export function sourceSentence(source, at) {
  const quote = source && source.evidence ? `: “${source.evidence}”` : "";
  if (!source || (source.channel === "unknown" && !recorded(source))) {
    return `Source unknown${quote}.`;
  }
  const unnamed = source.channel === "unknown";
  const opening = unnamed
    ? "From a conversation of"
    : CHANNELS[source.channel] || `From the ${source.channel} channel on`;
  const gaps = [];
  if (unnamed) gaps.push("channel not recorded");
  if (!source.evidence) gaps.push("no quote kept");
  const noted = gaps.length ? ` (${gaps.join(", ")})` : "";
  return `${opening} ${formatDay(at)}${noted}${quote}.`;
}

// anything kept besides the channel: a write after provenance
function recorded(source) {
  const w = source.writer || {};
  return Boolean(source.model || source.evidence || source.callId || source.sessionId ||
    w.agent || w.job || w.key);
}

function writer(w) {
  if (w.key) return `by the API key ${w.key}`;
  if (w.job) return `by the job ${w.job}`;
  if (w.agent) return `by the agent ${w.agent}`;
  return null;
}

// the details: the model's kind and confidence, the writer, the extraction model
export function sourceDetails(source) {
  if (!source) return "";
  const parts = [];
  if (source.kind) parts.push(`kind: ${source.kind}`);
  if (source.confidence !== null && source.confidence !== undefined) {
    parts.push(`confidence ${Math.round(source.confidence * 100)}%`);
  }
  const by = writer(source.writer || {});
  if (by) parts.push(by);
  if (source.model) parts.push(`model ${source.model}`);
  return parts.join(" · ");
}

// the sentence, then the details on a line of their own (when there are any); `days`: callDays
export function sourceNode(source, writtenAt, days) {
  const at = (source && source.callId && days.get(source.callId)) || writtenAt;
  const node = element("div", null, "source");
  node.append(element("div", sourceSentence(source, at)));
  const details = sourceDetails(source);
  if (details) node.append(element("div", details, "meta"));
  return node;
}
