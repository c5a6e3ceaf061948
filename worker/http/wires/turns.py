"""A wire's turn on the web process: the agent its request names, as the turn runs it, and the
app's one `chat.ChatTurns` that runs it.

A wire (OpenAI Chat Completions in `wires.openai`, Anthropic Messages in `wires.anthropic`,
AG-UI in `wires.agui`, a decision in `wires.decisions`) reads its own body and headers into a
`chat.TurnRequest` with `turn_request` and hands it to `chat_turns(request).take`; a decision
goes on with `continue_turn`. Everything between (settings, customer, session, tool loop,
held calls, record) is `chat.turns`. Here the agent is resolved through the key's guard
(`model` names it: an agent the key does not reach is the wires' unknown model) and its
definition becomes a `chat.TurnAgent`: its function tools as text tools (built once per
definition) and `search_docs` over its collections.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import asyncpg
from aiohttp import web

from callmemory.definition import AgentDefinition
from callmemory.documents import docs_text_tool
from chat import (
    ChatTurns,
    Decision,
    DecisionNotFound,
    DecisionRow,
    Origin,
    Relay,
    SessionRef,
    Tool,
    ToolObserver,
    TurnAgent,
    TurnRequest,
    TurnResult,
)
from chat.memory_tools import Channel
from infra.deadline import Deadline, Late, within
from memory.contract import Unavailable
from memory.documents import Documents
from worker.agent_directory import AgentDirectory, AgentEntry
from worker.catalog import UnknownAgent
from worker.http.server.context import actor, agent_of, reaches
from worker.http.server.failures import ModelNotFound

CHAT_TURNS = web.AppKey("chat_turns", ChatTurns)
Message = dict[str, Any]


def chat_turns(request: web.Request) -> ChatTurns:
    return request.app[CHAT_TURNS]


def turn_request(  # noqa: PLR0917
    request: web.Request,
    agent: str,
    messages: list[Message],
    identities: dict[str, str],
    session: SessionRef | None,
    options: dict[str, Any] | None = None,
    *,
    client_tools: tuple[Tool, ...] = (),
    reconcile: Callable[[list[Message]], list[Message]] | None = None,
    channel: Channel = "chat",
) -> TurnRequest:
    """The turn a wire read, for the agent `agent` names if the key reaches it (otherwise the
    wires' unknown model; `DirectoryAgents` answers the same for an agent nobody registered).
    Its memory saves come from `channel`, written by the request's key."""
    if not reaches(request, agent):
        raise ModelNotFound()
    origin = Origin(channel, key=actor(request))
    return TurnRequest(
        agent, messages, identities, session, options or {}, client_tools, reconcile, origin
    )


class DirectoryAgents:
    """The web process's agents as turns run them (`chat.TurnAgents`): the registry, read
    again when it does not know the id yet (a worker may have registered it since), and each
    loaded definition as a `chat.TurnAgent`."""

    def __init__(
        self, directory: AgentDirectory, pool: asyncpg.Pool, documents: Documents, seconds: float
    ) -> None:
        self.directory, self.pool, self.documents, self.seconds = (
            directory,
            pool,
            documents,
            seconds,
        )

    async def __call__(self, agent_id: str) -> TurnAgent:
        if not self.directory.knows(agent_id):
            try:
                refreshed = self.directory.refresh(self.pool, max_age=0)
                await within(Deadline.after(self.seconds), refreshed, step="chat.agents")
            except Late:
                raise Unavailable("the database did not answer within the deadline") from None
        try:
            entry = self.directory.get(agent_id)
        except UnknownAgent:
            raise ModelNotFound() from None
        return self.of(entry)

    def of(self, agent: AgentEntry) -> TurnAgent:
        """A registered agent as a turn runs it (`AgentNotLoaded` when this process cannot
        load its definition)."""
        definition = self.directory.definition(agent.name)
        docs = definition.collections
        search = (docs_text_tool(self.documents, docs),) if docs else ()
        return TurnAgent(
            agent.name,
            agent.memory,
            definition.instructions,
            own_tools(definition),
            search,
            definition.model,
            definition.interrupt_on,
        )


TURN_AGENTS = web.AppKey("turn_agents", DirectoryAgents)


@functools.lru_cache(maxsize=1024)
def own_tools(definition: AgentDefinition) -> tuple[Tool, ...]:
    """The agent's function tools as text tools, built once per definition (their schemas come
    from the functions' signatures, which is not free). livekit's tool machinery is imported
    here, by the first agent with tools (the team's code has imported livekit by then)."""
    from callmemory.function_tools import text_tool  # noqa: PLC0415

    return tuple(text_tool(fn, definition.tool_seconds) for fn in definition.tools)


async def reachable_decision(request: web.Request, decision_id: str) -> DecisionRow:
    """The decision, if the caller's key reaches its agent; else `DecisionNotFound`."""
    row = await chat_turns(request).read_decision(decision_id)
    try:
        agent_of(request, row.turn.agent_id)
    except UnknownAgent:
        raise DecisionNotFound() from None
    return row


async def continue_turn(
    request: web.Request,
    decision_id: str,
    decision: Decision,
    relay: Relay | None = None,
    observer: ToolObserver | None = None,
    *,
    channel: Channel | None = None,
) -> TurnResult:
    """Decide a pending call and run the rest of its turn (`chat.ChatTurns.resume`), with the
    agent its row names as the caller's key reaches it; its memory saves come from `channel`
    (None: the wire that parked the turn, as the decision routes continue it) and the caller's
    key."""

    row = await reachable_decision(request, decision_id)

    turns = chat_turns(request)
    agents = request.app[TURN_AGENTS]

    def stored_agent(name: str) -> TurnAgent:
        return agents.of(agent_of(request, name))

    origin = Origin(channel or row.turn.channel, key=actor(request))
    return await turns.resume(row, decision, stored_agent, relay, observer, origin=origin)
