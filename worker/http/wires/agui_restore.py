"""A connect run on AG-UI: a run with no new message and no `resume` gives the client its
thread back from the server (`chat.ChatTurns.restore`), with no model request and nothing
claimed.

The run answers `RUN_STARTED`, one `MESSAGES_SNAPSHOT` with the thread as AG-UI messages (user,
system and developer messages with their text, assistant messages with their text and tool
calls, tool results under their call's id; ids `{position}.{index}`, stable across reads) and
`RUN_FINISHED` whose outcome is the one the thread's last run ended with: the same interrupt
(`agui_resume.interrupted`) while a decision is pending, so the client can resume it; success
with `pendingToolCallIds` while the client's own tool calls wait for its answers; else success.
A thread nobody opened yet is an empty snapshot.

No `STATE_SNAPSHOT` is sent: the wire keeps no AG-UI state (it never reads `state`), the
pending decision travels as the interrupt, and the customer's memory stays behind the memory
tools (facts reach a conversation only when the model reads them).
"""

from __future__ import annotations

import json
from typing import Any

from ag_ui.core import RunFinishedSuccessOutcome

from chat.restore import Restored, ThreadMessage
from worker.http.wires.agui_body import open_calls
from worker.http.wires.agui_resume import interrupted
from worker.http.wires.agui_stream import Outcome


def _text(content: Any) -> str:
    """A stored message's text (parts of another wire's request: their text, joined)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return "" if content is None else json.dumps(content, ensure_ascii=False)


def _calls(message: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {
            "id": c["id"],
            "type": "function",
            "function": {"name": c["function"]["name"], "arguments": c["function"]["arguments"]},
        }
        for c in message.get("tool_calls") or []
    ]


def as_agui(kept: ThreadMessage) -> dict[str, Any]:
    """One stored message (Chat Completions' shape) as AG-UI's message, in its wire names
    (built as JSON directly: the package's models cost ~20 µs a message to encode, which a
    thread of 800 messages would pay on every reload; the tests read them back with them)."""
    m, ident = kept.message, kept.id
    role = m.get("role")
    text = _text(m.get("content"))
    if role == "assistant":
        out: dict[str, Any] = {"id": ident, "role": "assistant"}
        if text:
            out["content"] = text
        if calls := _calls(m):
            out["toolCalls"] = calls
        return out
    if role == "tool":
        return {"id": ident, "role": "tool", "content": text, "toolCallId": m["tool_call_id"]}
    if role in {"system", "developer"}:
        return {"id": ident, "role": role, "content": text}
    return {"id": ident, "role": "user", "content": text}


def snapshot(restored: Restored) -> list[dict[str, Any]]:
    return [as_agui(m) for m in restored.messages]


def outcome(restored: Restored) -> Outcome:
    """How the thread's last run ended, as a connect run ends again."""
    if restored.pending is not None:
        return interrupted(restored.pending.pending)
    waiting = open_calls([m.message for m in restored.messages])
    if waiting:
        return RunFinishedSuccessOutcome(pending_tool_call_ids=waiting)
    return RunFinishedSuccessOutcome()
