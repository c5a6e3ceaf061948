"""One text turn on any chat wire, whatever its shape: the agent, its settings, the customer, the
session, the bounded tool loop, the record.

A wire (OpenAI Chat Completions in `wires.openai`, Anthropic Messages in `wires.anthropic`) reads
its own body and headers into a `WireTurn`: the agent id, the new messages in Chat Completions'
shape, the checked identities, the session header and the model options. `take_turn` then
resolves the agent's current effective settings, selects the customer under its fixed identity
key, offers the memory tools of the settings table, holds the session (a second turn at once is
`SessionBusy`), runs the turn (`chat.run_turn`, streamed through `relay` when given) and records
it. A turn is recorded only when the model's answer is complete, and only before its deadline on
the database's clock (`chat.turn_record`); what it did before that is kept as it goes
(`chat.journal`), so a turn that failed, or whose client went away mid-stream, leaves its
progress for the same request sent again (or, for another one, a cut turn) and releases the
session. A turn
that calls a held tool (`interrupt_on`) parks instead: `finish` stores the decision with the
turn so far and marks the session pending (`chat.park`); `worker.http.wires.decision_turns` goes on
with it once a person decided. An `observer` hears each tool call and result as they happen
(the AG-UI wire's events).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, Final

import asyncpg
import structlog
from aiohttp import web

from callmemory.definition import AgentDefinition
from callmemory.documents import docs_text_tool
from callmemory.function_tools import text_tool
from chat import (
    RESERVED,
    ChatConfig,
    Claim,
    ConversationModel,
    HeldTurn,
    Relay,
    Tool,
    ToolContext,
    ToolObserver,
    ToolScope,
    TurnInput,
    TurnRecord,
    TurnResult,
    kept_lease,
    memory_tools,
    offered_tools,
    park,
    record,
    release,
    run_json,
    run_turn,
    select_customer,
)
from chat.journal import (
    CallNote,
    Journal,
    KeptTurn,
    SessionJournal,
    cut_record,
    kept_json,
    kept_of,
    request_digest,
    settled,
)
from chat.turn_record import record_cut
from memory.contract import InvalidRequest
from memory.settings import CallSettings
from worker.agent_directory import AgentEntry
from worker.catalog import UnknownAgent
from worker.http.server.context import (
    DATABASE_DEADLINE,
    DIRECTORY,
    DOCUMENTS,
    MEMORY,
    POOL,
    bounded,
    database_bound,
    find_agent,
    request_deadline,
)
from worker.http.server.errors import NO_RETRY
from worker.http.server.failures import ModelNotFound
from worker.http.wires.openai_body import SessionHeader
from worker.http.wires.opening import open_wire_turn

CHAT_CONFIG = web.AppKey("chat_config", ChatConfig)
CHAT_MODEL = web.AppKey("chat_model", ConversationModel)
log = structlog.get_logger(__name__)
Message = dict[str, Any]
RECORD_MARGIN: Final = 0.2
"""The share of the database deadline left for a record's answer to travel back: the database
records the turn only before the rest of the deadline has passed on its own clock."""


@dataclass(frozen=True, slots=True)
class WireTurn:
    """What a wire read from its request, in one shape."""

    agent: str  # the agent id (`model` on both wires)
    messages: list[Message]  # the new messages, Chat Completions' shape
    identities: dict[str, str]  # checked, the wire's own identity field folded in
    header: SessionHeader | None
    options: dict[str, Any] = field(default_factory=dict)  # temperature, max_tokens, ...
    client_tools: tuple[Tool, ...] = ()  # tools the client offered (`chat.client_tool`)
    # the new messages given the session's thread, for a wire whose client resends its whole
    # history (AG-UI); None: `messages` are the new ones
    reconcile: Callable[[list[Message]], list[Message]] | None = None


async def model_agent(request: web.Request, name: str) -> AgentEntry:
    """The agent `model` names, if the key reaches it; otherwise the wires' unknown model."""
    try:
        return await find_agent(request, name)
    except UnknownAgent:
        raise ModelNotFound() from None


def turn_tools(
    request: web.Request, definition: AgentDefinition, scope: ToolScope | None
) -> tuple[Tool, ...]:
    """The turn's tools: memory (per the settings, their database steps within the route's
    deadline), the agent's own, `search_docs`."""
    bound = database_bound(request)
    memory = [] if scope is None else memory_tools(request.app[MEMORY], scope, bound)
    docs = definition.collections
    search = [docs_text_tool(request.app[DOCUMENTS], docs)] if docs else []
    return (*memory, *own_tools(definition), *search)


@functools.lru_cache(maxsize=1024)
def own_tools(definition: AgentDefinition) -> tuple[Tool, ...]:
    """The agent's function tools as text tools, built once per definition (their schemas come
    from the functions' signatures, which is not free)."""
    return tuple(text_tool(fn, definition.tool_seconds) for fn in definition.tools)


def _scope(agent: str, settings: CallSettings, identities: dict[str, str]) -> ToolScope | None:
    key = None if settings.binding is None else settings.binding.identity_key
    found = select_customer(key, identities)
    offered = offered_tools(settings.read, settings.save, customer_known=found.user_id is not None)
    if found.user_id is None:
        if settings.read or settings.save:  # memory is on but this turn has nobody to bind
            log.info("chat.no_memory", agent_id=agent, reason=found.reason)
        return None
    if not offered:
        return None
    return ToolScope(agent, found.user_id, settings, offered)


def _customer(settings: CallSettings, identities: dict[str, str]) -> str | None:
    """The turn's customer under the agent's fixed identity key, memory on or off."""
    key = None if settings.binding is None else settings.binding.identity_key
    return select_customer(key, identities).user_id


def _text(message: Message) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or ())


def last_user_text(messages: list[Message]) -> str:
    users = [m for m in messages if m.get("role") == "user"]
    return _text(users[-1]) if users else ""


def definition_of(request: web.Request, agent: AgentEntry) -> AgentDefinition:
    """The definition of an agent the guard resolved (`AgentNotLoaded` when this process
    cannot load it)."""
    definition: AgentDefinition = request.app[DIRECTORY].definition(agent.name)
    return definition


async def take_turn(
    request: web.Request,
    wire: WireTurn,
    relay: Relay | None,
    observer: ToolObserver | None = None,
) -> TurnResult:
    """Run one turn of a wire; the session (if any) is held for it and released after it, or
    marked pending when the turn parked on a held tool (`result.held`). A turn the session
    kept progress of (`chat.journal`) goes on from it."""
    agent = await model_agent(request, wire.agent)
    definition = definition_of(request, agent)
    pool, config = request.app[POOL], request.app[CHAT_CONFIG]
    header = wire.header
    opened = await open_wire_turn(
        request, agent, header, wire.identities, pool=pool, lease_seconds=config.lease_seconds
    )
    held, note = opened.claim, CallNote()
    try:
        new = wire.messages if wire.reconcile is None else wire.reconcile(opened.thread)
        facts = TurnFacts(
            agent.name, wire.identities, new, wire.options, opened.settings, wire.client_tools
        )
        turn = turn_input(
            request, definition, facts, earlier=opened.thread, can_park=held is not None
        )
        digest = request_digest(new, wire.options, wire.client_tools)
        turn, carried = await _found(request, held, header, turn, opened.progress, digest)
        journal = note if held is None else journal_of(request, held, facts, digest)
        result = await _answer(request, held, turn, (relay, observer, journal), carried)
        if held is not None and header is not None:
            await record_turn(request, held, header=header, facts=facts, turn=turn, result=result)
            held = None  # released by the record, or by parking
    except Exception:
        if note.acted:  # a call acted and nothing kept it: a retry would run it again
            request[NO_RETRY] = True
        raise
    finally:
        if held is not None:
            await release(pool, held)
    return result


def journal_of(request: web.Request, held: Claim, facts: TurnFacts, digest: str) -> Journal:
    kept = KeptTurn(digest, facts.new, last_user_text(facts.new), TurnResult())
    return SessionJournal(request.app[POOL], held, kept, request.app[DATABASE_DEADLINE])


async def _found(  # noqa: PLR0917
    request: web.Request,
    held: Claim | None,
    header: SessionHeader | None,
    turn: TurnInput,
    progress: dict[str, Any] | None,
    digest: str,
) -> tuple[TurnInput, KeptTurn | None]:
    """The kept progress this turn goes on from (the same request again), or the turn with a
    kept turn of another request first recorded as cut and added to its thread."""
    kept = kept_of(progress)
    if kept is None or held is None or header is None:
        return turn, None
    if kept.digest == digest:
        return turn, kept
    cut = cut_record(kept, header.kind == "session")
    if cut is None:
        return turn, None
    await bounded(request, record_cut(request.app[POOL], held, cut))
    return replace(turn, thread=[*turn.thread, *cut.messages]), None


async def _answer(
    request: web.Request,
    held: Claim | None,
    turn: TurnInput,
    hearers: tuple[Relay | None, ToolObserver | None, Journal],
    carried: KeptTurn | None,
) -> TurnResult:
    """The turn's result: run under the session's lease, from the kept progress if any; a
    kept whole answer is given again without asking the model."""
    relay, observer, journal = hearers
    if carried is not None and carried.complete:
        if relay is not None and carried.result.reply:
            await relay(carried.result.reply)
        return carried.result
    pool, config = request.app[POOL], request.app[CHAT_CONFIG]
    carry = None if carried is None else settled(carried.result)
    async with kept_lease(pool, held, config.lease_seconds):
        return await run_turn(
            request.app[CHAT_MODEL],
            turn,
            config.max_tool_steps,
            relay,
            observer,
            journal=journal,
            carry=carry,
        )


async def record_turn(
    request: web.Request,
    held: Claim,
    *,
    header: SessionHeader,
    facts: TurnFacts,
    turn: TurnInput,
    result: TurnResult,
) -> None:
    """`finish` within the request's database deadline. The record is never cancelled: it
    lands whole or, reaching the database after the deadline (its clock), keeps the answer as
    the session's progress instead, so a client told the turn failed never finds it kept."""
    deadline = request_deadline(request)
    margin = RECORD_MARGIN * request.app[DATABASE_DEADLINE]
    until = held.server_time(deadline.at - margin)
    done = finish(
        request.app[POOL], held, header=header, facts=facts, turn=turn, result=result, until=until
    )
    await bounded(request, done, deadline=deadline, let_finish=True)


@dataclass(frozen=True, slots=True)
class TurnFacts:
    """Who a turn acts for and what it was sent: from the wire, or from a parked turn's row."""

    agent: str
    identities: dict[str, str]
    new: list[Message]
    options: dict[str, Any]
    settings: CallSettings
    client_tools: tuple[Tool, ...] = ()


async def finish(
    pool: asyncpg.Pool,
    held: Claim,
    *,
    header: SessionHeader,
    facts: TurnFacts,
    turn: TurnInput,
    result: TurnResult,
    until: datetime | None = None,
) -> None:
    """Record the turn (freeing the session; by `until`, the database's clock, or it is kept
    as the session's progress), or park it on its held call (marking the session pending);
    either way the claim is given up."""
    if result.parked is None:
        digest = request_digest(facts.new, facts.options, facts.client_tools)
        done = turn_record(turn, result, facts.new, header.kind == "session", digest)
        late = KeptTurn(digest, facts.new, done.user_message, result, complete=True)
        await record(pool, held, done, until=until, late=kept_json(late))
        return
    parked = HeldTurn(
        held.session_id,
        header.key,
        facts.agent,
        facts.identities,
        turn.context.user_id,
        facts.settings,
        facts.new,
        facts.options,
        last_user_text(facts.new),
        facts.client_tools,
    )
    result.held = await park(pool, held, parked, result)


def turn_input(
    request: web.Request,
    definition: AgentDefinition,
    facts: TurnFacts,
    *,
    earlier: list[Message],
    can_park: bool,
) -> TurnInput:
    """The turn as the tool loop takes it: instructions, thread, tools, who it acts for."""
    settings, identities = facts.settings, facts.identities
    scope = _scope(facts.agent, settings, identities)
    user = scope.user_id if scope is not None else _customer(settings, identities)
    tools = (
        *turn_tools(request, definition, scope),
        *_client_tools(definition, facts.client_tools),
    )
    options = (
        facts.options if definition.model is None else {**facts.options, "model": definition.model}
    )
    context = ToolContext(facts.agent, user)
    return TurnInput(
        facts.agent,
        definition.instructions,
        earlier,
        facts.new,
        context,
        tools,
        options,
        definition.interrupt_on,
        can_park,
    )


def _client_tools(definition: AgentDefinition, client: tuple[Tool, ...]) -> tuple[Tool, ...]:
    """The client's tools, none named like a server tool the agent may offer (its own, the
    memory tools, `search_docs`): such a clash is a 400 naming `tools[i].name`."""
    taken = {*RESERVED, "search_docs", *(tool.name for tool in own_tools(definition))}
    for i, tool in enumerate(client):
        if tool.name in taken:
            field = f"tools[{i}].name"
            raise InvalidRequest(f"{field}: names a tool of the server's", field=field)
    return client


def turn_record(
    turn: TurnInput,
    result: TurnResult,
    new: list[Message],
    keep_thread: bool,
    digest: str | None = None,
) -> TurnRecord:
    """What a session keeps of a finished turn (a `conversation` keeps no thread)."""
    return TurnRecord(
        [*turn.new, *result.added] if keep_thread else [],
        last_user_text(new),
        result.reply,
        result.prompt_tokens,
        result.completion_tokens,
        result.duration_ms,
        [run_json(r) for r in result.run],
        digest,
    )
