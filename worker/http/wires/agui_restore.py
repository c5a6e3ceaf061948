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

from ag_ui.core import (
    AssistantMessage,
    DeveloperMessage,
    FunctionCall,
    Message,
    RunFinishedSuccessOutcome,
    SystemMessage,
    ToolCall,
    ToolMessage,
    UserMessage,
)

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


def _calls(message: dict[str, Any]) -> list[ToolCall] | None:
    calls = message.get("tool_calls") or []
    out = [
        ToolCall(
            id=c["id"],
            function=FunctionCall(name=c["function"]["name"], arguments=c["function"]["arguments"]),
        )
        for c in calls
    ]
    return out or None


def as_agui(kept: ThreadMessage) -> Message:
    """One stored message (Chat Completions' shape) as AG-UI's."""
    m, ident = kept.message, kept.id
    role = m.get("role")
    if role == "assistant":
        text = _text(m.get("content"))
        return AssistantMessage(id=ident, content=text or None, tool_calls=_calls(m))
    if role == "tool":
        return ToolMessage(
            id=ident, content=_text(m.get("content")), tool_call_id=m["tool_call_id"]
        )
    if role == "system":
        return SystemMessage(id=ident, content=_text(m.get("content")))
    if role == "developer":
        return DeveloperMessage(id=ident, content=_text(m.get("content")))
    return UserMessage(id=ident, content=_text(m.get("content")))


def snapshot(restored: Restored) -> list[Message]:
    return [as_agui(m) for m in restored.messages]


def outcome(restored: Restored) -> Outcome:
    """How the thread's last run ended, as a connect run ends again."""
    if restored.pending is not None:
        return interrupted(restored.pending.pending)
    waiting = open_calls([m.message for m in restored.messages])
    if waiting:
        return RunFinishedSuccessOutcome(pending_tool_call_ids=waiting)
    return RunFinishedSuccessOutcome()
