"""A text turn as plain values: the agent it runs (`TurnAgent`), what a wire read from its
request (`TurnRequest`), and the pure decisions between them: the customer under the agent's
fixed identity key, the memory tools the settings offer, the tools a client may add, the turn
the tool loop takes and what a session records of it.

Every wire (OpenAI, Anthropic, AG-UI, a decision's continuation) reads its own shape into these
values; `chat.turns.ChatTurns` runs them. Nothing here does I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final, Protocol

import structlog

from chat.customer import SessionKind, select_customer
from chat.held import DecisionKind
from chat.memory_tools import CHAT_ORIGIN, RESERVED, Origin, ToolScope, offered_tools
from chat.progress import run_json
from chat.tool_loop import TurnInput
from chat.toolbox import Tool, ToolContext
from chat.turn_record import TurnRecord
from chat.turn_result import Message, TurnResult
from memory.contract import InvalidRequest
from memory.settings import CallSettings, CodeDefaults

log = structlog.get_logger(__name__)
SEARCH_DOCS = "search_docs"
MAX_MESSAGES: Final = 256
"""Messages in one request (on every wire)."""
MAX_MESSAGE_CHARS: Final = 100_000
"""Characters of one message's text."""
MAX_SESSION_KEY_CHARS: Final = 200
"""Characters of a session's key (printable ASCII)."""


@dataclass(frozen=True, slots=True)
class SessionRef:
    """Which session a turn keeps (`session`: the thread on the server) or only groups under
    (`conversation`), by the client's key."""

    kind: SessionKind
    key: str


@dataclass(frozen=True, slots=True)
class TurnAgent:
    """What a turn needs of its agent: its id, code defaults, instructions, its own tools and
    `search_docs` (as text tools), the model it names, and its held tools."""

    name: str
    code: CodeDefaults
    instructions: str
    own: tuple[Tool, ...] = ()
    search: tuple[Tool, ...] = ()  # `search_docs` over its collections, if it has any
    model: str | None = None
    interrupt_on: Mapping[str, frozenset[DecisionKind]] = field(default_factory=dict)


class TurnAgents(Protocol):
    """The agents turns run, by id (the web process: its registry and loaded definitions);
    an unknown id raises the caller's own failure."""

    async def __call__(self, agent_id: str) -> TurnAgent: ...


@dataclass(frozen=True, slots=True)
class TurnRequest:
    """What a wire read from its request, in one shape."""

    agent: str  # the agent's id (`model` on the OpenAI and Anthropic wires)
    messages: list[Message]  # the new messages, Chat Completions' shape
    identities: dict[str, str]  # checked, the wire's own identity field folded in
    session: SessionRef | None
    options: dict[str, Any] = field(default_factory=dict)  # temperature, max_tokens, ...
    client_tools: tuple[Tool, ...] = ()  # tools the client offered (`chat.client_tool`)
    # the new messages given the session's thread, for a wire whose client resends its whole
    # history (AG-UI); None: `messages` are the new ones
    reconcile: Callable[[list[Message]], list[Message]] | None = None
    origin: Origin = CHAT_ORIGIN  # the wire's channel and the key's name (the session: its turn)
    prompt: str | None = None  # the text to run instead of the published prompt (a draft tried)


@dataclass(frozen=True, slots=True)
class TurnFacts:
    """Who a turn acts for and what it was sent: from the wire, or from a parked turn's row."""

    agent: str
    identities: dict[str, str]
    new: list[Message]
    options: dict[str, Any]
    settings: CallSettings
    client_tools: tuple[Tool, ...] = ()
    origin: Origin = CHAT_ORIGIN  # where its memory saves come from


def memory_scope(
    agent: str, settings: CallSettings, identities: Mapping[str, str]
) -> ToolScope | None:
    """Whom the memory tools act for, and which the settings offer (None: none this turn)."""
    key = None if settings.binding is None else settings.binding.identity_key
    found = select_customer(key, dict(identities))
    offered = offered_tools(settings.read, settings.save, customer_known=found.user_id is not None)
    if found.user_id is None:
        if settings.read or settings.save:  # memory is on but this turn has nobody to bind
            log.info("chat.no_memory", agent_id=agent, reason=found.reason)
        return None
    if not offered:
        return None
    return ToolScope(agent, found.user_id, settings, offered)


def customer_of(settings: CallSettings, identities: Mapping[str, str]) -> str | None:
    """The turn's customer under the agent's fixed identity key, memory on or off."""
    key = None if settings.binding is None else settings.binding.identity_key
    return select_customer(key, dict(identities)).user_id


def _text(message: Message) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(part.get("text", "") for part in content or ())


def last_user_text(messages: list[Message]) -> str:
    users = [m for m in messages if m.get("role") == "user"]
    return _text(users[-1]) if users else ""


def client_tools(agent: TurnAgent, client: tuple[Tool, ...]) -> tuple[Tool, ...]:
    """The client's tools, none named like a server tool the agent may offer (its own, the
    memory tools, `search_docs`): such a clash is a 400 naming `tools[i].name`."""
    taken = {*RESERVED, SEARCH_DOCS, *(tool.name for tool in agent.own)}
    for i, tool in enumerate(client):
        if tool.name in taken:
            field_name = f"tools[{i}].name"
            raise InvalidRequest(f"{field_name}: names a tool of the server's", field=field_name)
    return client


def turn_input(
    agent: TurnAgent,
    facts: TurnFacts,
    memory: Callable[[ToolScope], list[Tool]],
    *,
    earlier: list[Message],
    can_park: bool,
) -> TurnInput:
    """The turn as the tool loop takes it: instructions, thread, tools (memory per the
    settings, built by `memory`; the agent's own; `search_docs`; the client's), who it acts
    for."""
    settings, identities = facts.settings, facts.identities
    scope = memory_scope(facts.agent, settings, identities)
    if scope is not None:
        scope = replace(scope, origin=facts.origin)
    user = scope.user_id if scope is not None else customer_of(settings, identities)
    tools = (
        *([] if scope is None else memory(scope)),
        *agent.own,
        *agent.search,
        *client_tools(agent, facts.client_tools),
    )
    options = facts.options if agent.model is None else {**facts.options, "model": agent.model}
    return TurnInput(
        facts.agent,
        agent.instructions,
        earlier,
        facts.new,
        ToolContext(facts.agent, user),
        tools,
        options,
        agent.interrupt_on,
        can_park,
    )


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
        len(turn.new) if keep_thread else 0,
        result.finish_reason,
    )
