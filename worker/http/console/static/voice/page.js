// The test-call page: ask the API for a room, join it with livekit-client, show the transcript.
// Identity names and values are sent exactly as typed (no trimming): they are opaque.
"use strict";

const $ = (id) => document.getElementById(id);
const TRANSCRIPTION_TOPIC = "lk.transcription";
let room = null;

function say(text) { $("status").textContent = text; }
function fail(text) { $("error").textContent = text; }

function headers() {
  return { "Authorization": "Bearer " + $("api-key").value, "Content-Type": "application/json" };
}

async function api(method, path, body) {
  const response = await fetch(path, {
    method, headers: headers(), body: body === undefined ? undefined : JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = answer.error || {};
    throw new Error((error.code || response.status) + ": " + (error.message || "request failed"));
  }
  return answer;
}

function addIdentityRow(name = "", value = "") {
  const row = document.createElement("div");
  row.className = "row identity";
  row.innerHTML = '<input class="identity-name" placeholder="name, e.g. contact.email">' +
    '<input class="identity-value" placeholder="value">' +
    '<button type="button" class="remove">Remove</button>';
  row.querySelector(".identity-name").value = name;
  row.querySelector(".identity-value").value = value;
  row.querySelector(".remove").addEventListener("click", () => row.remove());
  $("identities").appendChild(row);
}

function identities() {
  const map = {};
  for (const row of document.querySelectorAll("#identities .identity")) {
    const name = row.querySelector(".identity-name").value;
    const value = row.querySelector(".identity-value").value;
    if (name === "" && value === "") continue;  // an untouched row; the API names other problems
    if (Object.hasOwn(map, name)) throw new Error("identity names must be unique: " + name);
    map[name] = value;
  }
  return map;
}

function showIdentityKey() {
  const option = $("agent").selectedOptions[0];
  const key = option ? option.dataset.identityKey : "";
  $("identity-key").textContent = key
    ? "This agent remembers people by the identity field \u201c" + key + "\u201d."
    : "This agent has no identity key: calls run without memory.";
}

async function loadAgents() {
  fail("");
  try {
    const answer = await api("GET", "/api/voice/agents");
    $("agent").replaceChildren(...answer.agents.map((agent) => {
      const option = new Option(agent.agentId, agent.agentId);
      option.dataset.identityKey = agent.identityKey || "";
      return option;
    }));
    showIdentityKey();
    $("start").disabled = !window.LivekitClient || answer.agents.length === 0;
    say("Pick an agent, add identities, and start a call.");
  } catch (error) {
    fail(error.message);
  }
}

function transcriptLine(id, who) {
  let line = document.querySelector('#transcript p[data-segment="' + CSS.escape(id) + '"]');
  if (!line) {
    line = document.createElement("p");
    line.dataset.segment = id;
    line.innerHTML = '<span class="speaker"></span> <span class="text"></span>';
    line.querySelector(".speaker").textContent = who + ":";
    $("transcript").appendChild(line);
  }
  return line.querySelector(".text");
}

async function onTranscription(reader, participant) {
  const who = room && participant.identity === room.localParticipant.identity ? "You" : "Agent";
  const attributes = reader.info.attributes || {};
  const text = transcriptLine(attributes["lk.segment_id"] || reader.info.id, who);
  let received = "";
  for await (const chunk of reader) {
    received += chunk;
    text.textContent = received;
  }
}

function joinedRoom(LK) {
  const joined = new LK.Room();
  joined.registerTextStreamHandler(TRANSCRIPTION_TOPIC, onTranscription);
  joined.on(LK.RoomEvent.TrackSubscribed, (track) => {
    if (track.kind === "audio") document.body.appendChild(track.attach());
  });
  joined.on(LK.RoomEvent.Disconnected, () => endCall("Call ended."));
  return joined;
}

function describeMemory(memory) {
  if (memory.enabled) return "Memory: on, by " + memory.identityKey + ".";
  return "Memory: off for this call (" + memory.reason + ").";
}

async function startCall() {
  fail("");
  $("transcript").replaceChildren();
  $("start").disabled = true;
  try {
    const body = { agentId: $("agent").value, identities: identities() };
    const answer = await api("POST", "/api/voice/rooms", body);
    $("memory").textContent = describeMemory(answer.memory);
    say("Room " + answer.roomName + " is ready; connecting to LiveKit\u2026");
    $("end").disabled = false;
    room = joinedRoom(window.LivekitClient);
    await room.connect(answer.url, answer.token);
    await room.localParticipant.setMicrophoneEnabled(true);
    say("In call (room " + answer.roomName + "). Speak to the agent.");
  } catch (error) {
    fail("Could not start the call: " + error.message);
    await endCall("Not connected.");
  }
}

async function endCall(message) {
  const leaving = room;
  room = null;
  if (leaving) await leaving.disconnect();
  document.querySelectorAll("body > audio").forEach((element) => element.remove());
  $("end").disabled = true;
  $("start").disabled = !window.LivekitClient || $("agent").options.length === 0;
  say(message || "Call ended.");
}

function checkLibrary() {
  if (window.LivekitClient) return;
  $("install").textContent = window.LIVEKIT_CLIENT_MISSING ||
    "The livekit-client library did not load: run `npm ci` in the repository root.";
}

$("load-agents").addEventListener("click", loadAgents);
$("agent").addEventListener("change", showIdentityKey);
$("add-identity").addEventListener("click", () => addIdentityRow());
$("start").addEventListener("click", startCall);
$("end").addEventListener("click", () => endCall("Call ended."));
addIdentityRow();
checkLibrary();
window.testCallPage = { ready: true };
