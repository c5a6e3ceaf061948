"""Caller memory on a LiveKit text session: the two memory tools, bound each turn.

A session whose room options turn audio input off (`RoomOptions(audio_input=False, ...)`,
livekit's text mode: the user writes on the `lk.chat` text stream topic) gets the text
behaviour of the chat wire, not the voice lifecycle: nothing is recalled before a greeting and
nothing is saved when the session closes. Each user message first resolves the agent's current
effective settings, reads who the turn is about from the sending participant's attributes (an
identities map, checked by the same rules as the `x-stackbone-identities` header; only the
agent's fixed identity key selects a value), and offers the memory tools of the settings table
on the running agent (`chat.bind_turn`); then livekit's own text handling (or the agent's)
answers. The tools act for the agent and the customer bound at the turn's start: no tool
argument can name either. Without a customer the turn runs without memory tools and a reason
code is logged (`text.turn_tools`), never the value. When the settings cannot be read (the
database down or late) memory is not silently left out: the sender's client gets one
`memory.error` packet on the room's data channel (`unavailable_notice`), and the turn offers
both memory tools, each answering the model a tool error (`memory_unavailable`).
`memory_search()` among the agent's own tools searches for the same agent and customer, from
the turn's binding (`search_binding`): nobody's memory without read on and a customer, the
same tool error when the settings could not be read.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
import json
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Final

import structlog
from livekit import rtc
from livekit.agents import Agent, AgentSession, llm
from livekit.agents.voice.room_io import RoomOptions, TextInputEvent, TextInputOptions

from callmemory.caller_search import CallSearch, forget_call, register_search
from callmemory.runtime import Runtime
from chat import (
    MEMORY_READ,
    MEMORY_SAVE,
    RESERVED,
    Origin,
    ToolName,
    TurnBinding,
    attribute_identities,
    bind_turn,
    check_reserved,
    run_tool,
    tool_specs,
)
from chat.binding import SETTINGS_UNAVAILABLE
from infra import tracing
from infra.deadline import Deadline, Late, within
from lifecycle.snapshot import bound_snapshot
from memory.config import ConfigError
from memory.contract import MemoryFailure
from memory.settings import CallSettings, CodeDefaults

log = structlog.get_logger(__name__)

SETTINGS_SECONDS: Final = 2.0
"""How long a turn waits for the agent's settings; later, its memory tools answer an error."""
ERROR_TOPIC: Final = "memory.error"
"""The data channel topic of the notice a text turn's client gets when memory is unavailable."""
UNAVAILABLE: Final = "memory is unavailable for this turn: the agent's settings could not be read"
_UNAVAILABLE_ERROR: Final = json.dumps({"error": "memory_unavailable", "message": UNAVAILABLE})
Run = Callable[[ToolName, Mapping[str, object]], Awaitable[str]]


def is_text_session(options: Mapping[str, Any]) -> bool:
    """Whether `session.start(**options)` starts livekit's text mode (no audio input)."""
    legacy = options.get("room_input_options")
    if legacy is not None and getattr(legacy, "audio_enabled", True) is False:
        raise ConfigError(
            "room_input_options: for a text session, pass"
            " room_options=RoomOptions(audio_input=False)"
        )
    room_options = options.get("room_options")
    return isinstance(room_options, RoomOptions) and room_options.get_audio_input_options() is None


def check_tools(agent: Agent, session: AgentSession[Any]) -> None:
    """Refuse an agent (or session) that declares a tool named like a memory tool."""
    check_reserved(_names([*session.tools, *agent.tools]), memory_enabled=True)


def _names(tools: Iterable[llm.Tool | llm.Toolset]) -> list[str]:
    return [t.id for t in llm.ToolContext(list(tools)).flatten()]


def _memory_tool(name: ToolName, run: Run) -> llm.RawFunctionTool[..., Any]:
    spec = tool_specs([name])[0]["function"]

    async def call(raw_arguments: dict[str, object]) -> str:
        return await run(name, raw_arguments)

    return llm.function_tool(call, raw_schema=spec)


def unavailable_notice(reason: str) -> bytes:
    """The packet the sender's client reads when the turn runs without memory (UTF-8 JSON)."""
    notice = {"type": ERROR_TOPIC, "code": "memory_unavailable", "reason": reason}
    return json.dumps({**notice, "message": UNAVAILABLE}).encode()


def _failed(task: asyncio.Task[None]) -> bool:
    return task.done() and (task.cancelled() or task.exception() is not None)


class TextMemory:
    """Memory on one text session: `room_options` wraps the session's text input so each user
    message binds the turn's tools first. Built by `CallerMemory.attach_text`."""

    def __init__(
        self,
        agent_id: str,
        defaults: CodeDefaults,
        runtime: Runtime,
        session: AgentSession[Any],
        *,
        job_id: str | None = None,
        room: rtc.Room | None = None,
    ) -> None:
        self._agent_id, self._defaults, self._room = agent_id, defaults, room
        self._origin = Origin("livekit-text", job_id=job_id)  # where its saves come from
        self._runtime, self._session = runtime, session
        self._tools = {n: _memory_tool(n, self._run) for n in (MEMORY_READ, MEMORY_SAVE)}
        self._binding = TurnBinding(None)
        self._connect: asyncio.Task[None] | None = None

    @property
    def binding(self) -> TurnBinding:
        """The current turn's tools and scope, or why there are none."""
        return self._binding

    def room_options(self, options: RoomOptions) -> RoomOptions:
        """`options` with its text input answered after the turn's memory tools are bound."""
        text = options.get_text_input_options()
        if text is None:
            raise ConfigError("room_options.text_input: a text session needs text input")
        inner = text.text_input_cb

        async def on_text(session: AgentSession[Any], event: TextInputEvent) -> None:
            await self.begin_turn(event.participant)
            answered = inner(session, event)
            if inspect.isawaitable(answered):
                await answered

        return dataclasses.replace(options, text_input=TextInputOptions(text_input_cb=on_text))

    async def begin_turn(self, participant: rtc.RemoteParticipant | None) -> TurnBinding:
        """Resolve the settings and the customer, and offer the turn's tools on the agent."""
        attributes = {} if participant is None else dict(participant.attributes)
        binding = bind_turn(
            self._agent_id, await self._settings(), attribute_identities(attributes)
        )
        self._binding = binding
        offered = () if binding.scope is None else binding.scope.offered
        if binding.reason == SETTINGS_UNAVAILABLE:  # said, not left out: tools that say so
            offered = (MEMORY_READ, MEMORY_SAVE)
            await self._notify(participant, binding.reason)
        try:
            await self._offer(offered)
        except Exception as exc:  # the turn still gets its answer, without memory tools
            log.warning("text.tools_not_offered", agent_id=self._agent_id, error=type(exc).__name__)
            self._binding = binding = TurnBinding(None, "tools_not_offered")
        register_search(self.search_binding(binding))  # whom `memory_search()` searches
        log.info(
            "text.turn_tools", agent_id=self._agent_id, tools=list(offered), reason=binding.reason
        )
        return binding

    def search_binding(self, binding: TurnBinding) -> CallSearch:
        """Whose facts `memory_search()` finds this turn: the customer when read is on."""
        scope, memory, job = binding.scope, self._runtime.memory, self._origin.job_id
        user = scope.user_id if scope is not None and scope.settings.read else None
        refusal = _UNAVAILABLE_ERROR if binding.reason == SETTINGS_UNAVAILABLE else None
        return CallSearch(memory, self._agent_id, user, job, self._origin.channel, refusal)

    async def _notify(self, participant: rtc.RemoteParticipant | None, reason: str) -> None:
        """Tell the sender's client (only them) that this turn runs without memory."""
        if self._room is None or participant is None:
            return
        try:
            await self._room.local_participant.publish_data(
                unavailable_notice(reason),
                reliable=True,
                topic=ERROR_TOPIC,
                destination_identities=[participant.identity],
            )
        except Exception as exc:  # the turn still gets its answer
            log.warning("text.notice_not_sent", agent_id=self._agent_id, error=type(exc).__name__)

    async def _offer(self, offered: tuple[ToolName, ...]) -> None:
        agent = self._session.current_agent
        own = [t for t in agent.tools if t.id not in RESERVED]
        await agent.update_tools([*own, *(self._tools[n] for n in offered)])

    async def _settings(self) -> CallSettings | None:
        try:
            return await within(
                Deadline.after(SETTINGS_SECONDS), self._read_settings(), step="text_settings"
            )
        except Late:
            log.warning("text.settings_late", agent_id=self._agent_id)
            return None

    async def _read_settings(self) -> CallSettings | None:
        if self._connect is None or _failed(self._connect):
            self._connect = asyncio.ensure_future(self._runtime.connect())
        try:
            await asyncio.shield(self._connect)
        except MemoryFailure as failure:
            log.warning(
                "text.settings_unavailable", agent_id=self._agent_id, error_code=failure.code
            )
            return None
        return await bound_snapshot(self._runtime.pool, self._agent_id, self._defaults)

    async def _run(self, name: ToolName, raw_arguments: Mapping[str, object]) -> str:
        """One tool call, for the scope bound at the turn's start (never logged)."""
        scope = self._binding.scope
        if self._binding.reason == SETTINGS_UNAVAILABLE:
            raise llm.ToolError(_UNAVAILABLE_ERROR)
        if scope is None or name not in scope.offered:
            return json.dumps({"error": "unknown_tool"})
        scope = dataclasses.replace(scope, origin=self._origin)
        return await run_tool(self._runtime.memory, scope, name, json.dumps(dict(raw_arguments)))

    async def aclose(self) -> None:
        """At the job's end: the pool, then the spans (nothing is saved at close)."""
        forget_call(asyncio.get_running_loop())
        if self._connect is not None and not self._connect.done():
            self._connect.cancel()
        await self._runtime.aclose()
        await tracing.flush()
