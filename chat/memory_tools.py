"""The two memory tools of a text turn: which are offered, what they say, and what they do.

Which tools a turn offers is a pure decision from the agent's effective settings, resolved for
that turn, and whether the customer is known: read → `memory_read`, save → `memory_save`, both,
or none. The agent and the customer are bound by the server when the turn starts; a tool call's
arguments can never name either (they are ignored, except `memory_save`'s `content`).
`memory_save` answers only `{"saved": true}` (or `false` with an error code), so a save-only
agent never sees what is stored. A save records where it came from (`Origin`: the wire's
channel, the chat session, the API key's name, the LiveKit job) on its call record, its facts'
sources and its `memory.ops` event.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal

from chat.toolbox import Tool, ToolContext
from infra.deadline import Bound, unbounded
from memory.api import Memory
from memory.contract import CodedError, Recall, strict_json
from memory.settings import CallSettings
from memory.store import Read

ToolName = Literal["memory_read", "memory_save"]
MEMORY_READ: Final = "memory_read"
MEMORY_SAVE: Final = "memory_save"
RESERVED: Final = frozenset({MEMORY_READ, MEMORY_SAVE})
RECENT_CALLS: Final = 5


class ReservedToolName(CodedError, ValueError):
    """An agent declares a tool whose name the memory tools reserve."""

    code = "reserved_tool_name"

    def __init__(self, name: str, field: str = "tools") -> None:
        super().__init__(f"{field}: the tool name {name} is reserved for memory", field=field)


def offered_tools(read: bool, save: bool, *, customer_known: bool) -> tuple[ToolName, ...]:
    """The memory tools of a turn: the settings table, and none without a customer."""
    if not customer_known:
        return ()
    chosen: list[ToolName] = []
    if read:
        chosen.append("memory_read")
    if save:
        chosen.append("memory_save")
    return tuple(chosen)


def check_reserved(names: Iterable[str], *, memory_enabled: bool, field: str = "tools") -> None:
    """Refuse an agent's own tool named like a memory tool while memory is enabled."""
    if not memory_enabled:
        return
    for name in names:
        if name in RESERVED:
            raise ReservedToolName(name, field)


_SPECS: Mapping[str, dict[str, Any]] = {
    MEMORY_READ: {
        "description": "Read what is remembered about the person in this conversation: "
        "their saved facts and summaries of recent conversations.",
        "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
    },
    MEMORY_SAVE: {
        "description": "Save something worth remembering about the person in this "
        "conversation. Pass the relevant conversation text as content.",
        "parameters": {
            "type": "object",
            "properties": {"content": {"type": "string", "description": "conversation text"}},
            "required": ["content"],
            "additionalProperties": False,
        },
    },
}


def tool_specs(names: Iterable[ToolName]) -> list[dict[str, Any]]:
    """The tools in Chat Completions' `tools` shape."""
    return [{"type": "function", "function": {"name": n, **_SPECS[n]}} for n in names]


Channel = Literal["chat", "agui", "livekit-text"]


@dataclass(frozen=True, slots=True)
class Origin:
    """Where a turn's saves come from: the wire's channel (`chat`: OpenAI and Anthropic), the
    chat session's id, the API key's name, the LiveKit job (a LiveKit text session)."""

    channel: Channel = "chat"
    session_id: str | None = None
    key: str | None = None
    job_id: str | None = None

    def read(self, agent_id: str, user_id: str, found: Recall) -> Read:
        """The record of a `memory_read` that returned `found` (counts only): read by the
        key, else the job."""
        returned = {"facts": len(found.facts), "calls": len(found.calls)}
        reader = self.key or self.job_id
        return Read(agent_id, user_id, reader, self.channel, MEMORY_READ, returned)

    def call(self) -> dict[str, object]:
        """The call fields `Memory.add` records them under. The job is never the run id: a
        write with a run id settles that run's call journal (`memory.store._journal`)."""
        fields = {"session_id": self.session_id, "key": self.key, "job_id": self.job_id}
        return {"channel": self.channel} | {k: v for k, v in fields.items() if v is not None}


CHAT_ORIGIN: Final = Origin()
"""A save's origin when nothing else is known: the chat channel."""


@dataclass(frozen=True, slots=True)
class ToolScope:
    """Who the tools act for: fixed by the server when the turn starts."""

    agent_id: str
    user_id: str
    settings: CallSettings
    offered: tuple[ToolName, ...]
    origin: Origin = CHAT_ORIGIN


def _arguments(raw: str) -> dict[str, Any] | None:
    try:
        value = json.loads(raw or "{}")
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


async def run_tool(
    memory: Memory,
    scope: ToolScope,
    name: str,
    raw_arguments: str,
    database: Bound = unbounded,
) -> str:
    """One tool call's result as the JSON text fed back to the model (never logged).
    `database` bounds each database step of the call (an HTTP route's deadline); past it the
    model reads `memory_unavailable`. A save's extraction model call keeps its own timeout."""
    if name not in scope.offered:
        return json.dumps({"error": "unknown_tool"})
    if name == MEMORY_READ:
        return await _read(memory, scope, database)
    arguments = _arguments(raw_arguments)
    content = None if arguments is None else arguments.get("content")
    if not isinstance(content, str) or not content.strip():
        return json.dumps({"saved": False, "error": "content: must be a non-empty string"})
    result = await memory.add(
        content,
        scope.agent_id,
        scope.user_id,
        scope.origin.call(),
        instructions=scope.settings.instructions,
        brief=scope.settings.brief,
        database=database,
    )
    if result.error is not None:
        return json.dumps({"saved": False, "error": result.error.code})
    return json.dumps({"saved": True})


async def _read(memory: Memory, scope: ToolScope, database: Bound) -> str:
    result = await memory.recall(scope.agent_id, scope.user_id, RECENT_CALLS, database=database)
    if result.error is not None or result.data is None:
        code = "memory_unavailable" if result.error is None else result.error.code
        return json.dumps({"error": code})
    found = result.data
    await memory.note_read(scope.origin.read(scope.agent_id, scope.user_id, found))
    calls = [{"summary": c.summary, "at": c.started_at.isoformat()} for c in found.calls]
    facts = [f.content for f in found.facts]
    # a lone surrogate a model wrote travels as its JSON escape: no UTF-8 request holds one
    return strict_json.utf8_json({"facts": facts, "recentCalls": calls})


MEMORY_TOOL_SECONDS: Final = 30.0
"""A memory tool's deadline (a save is one extraction call)."""


def memory_tools(memory: Memory, scope: ToolScope, database: Bound = unbounded) -> list[Tool]:
    """The memory tools of a turn as `Tool`s, bound to `scope` (the context is not read);
    `database` bounds each database step of their calls (the chat route's deadline)."""

    def bound(name: ToolName) -> Tool:
        async def call(_: ToolContext, raw_arguments: str) -> str:
            return await run_tool(memory, scope, name, raw_arguments, database)

        spec = _SPECS[name]
        return Tool(
            name, spec["description"], spec["parameters"], call, MEMORY_TOOL_SECONDS, "memory"
        )

    return [bound(name) for name in scope.offered]
