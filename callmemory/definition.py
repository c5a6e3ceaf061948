"""An agent declared once, in a team's own code: `define_agent(...)`.

    from livekit.agents import function_tool
    from callmemory import CodeDefaults, define_agent

    @function_tool
    async def lookup_order(order_id: str) -> str:
        '''Look up an order by its id.'''
        ...

    assistant = define_agent(
        name="front-desk",
        instructions="You are a friendly front-desk assistant.",
        memory=CodeDefaults(read=True, save=True, identity_key="phoneNumber"),
        tools=[lookup_order],
        collections=["help-center"],
    )

The same definition serves a voice worker (`CallerMemory.from_env(assistant, ...)`, the tools
on the livekit `Agent`) and text turns (the web process finds it through `AGENTS`). Tools are
livekit's own `@function_tool` functions. Everything is checked here, when the module defining
the agent is imported: a bad name, a duplicate tool, a tool named like a memory tool while
memory is on, or a tool named `search_docs` beside collections stops the process at start-up.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from chat import DEFAULT_TOOL_SECONDS, DecisionKind, allowed_kinds, check_reserved
from lifecycle.pass_schedule import CONSOLIDATE_MODES, DEFAULT_CONSOLIDATE, Consolidate
from memory.config import ConfigError
from memory.contract import limits
from memory.documents import NAMESPACE_PATTERN
from memory.settings import CodeDefaults

if TYPE_CHECKING:  # a definition without tools loads without livekit (the CLI's catalog)
    from livekit.agents import llm

SEARCH_DOCS = "search_docs"
"""The document search tool a definition with collections is offered on every channel."""
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
MAX_INSTRUCTIONS_CHARS = 100_000
MAX_TOOL_SECONDS = 300.0


class DefinitionError(ConfigError):
    """An agent definition breaks a rule; raised when it is defined (at start-up)."""


@dataclass(frozen=True, slots=True)
class AgentDefinition:
    """One agent: its id, conversation instructions, memory defaults, tools and collections.

    `model`: the conversation model of its text turns (None: `CHAT_MODEL`). `tool_seconds`:
    the deadline of one call of its own tools on a text turn. `consolidate`: when its calls
    write memory, "call.ended" (one save at the end) or "turn" (a pass after each agent reply,
    and the final one at the end).
    """

    name: str
    instructions: str
    memory: CodeDefaults = field(default_factory=CodeDefaults)
    tools: tuple[llm.FunctionTool[..., Any], ...] = ()
    collections: tuple[str, ...] = ()
    model: str | None = None
    tool_seconds: float = DEFAULT_TOOL_SECONDS
    consolidate: Consolidate = DEFAULT_CONSOLIDATE
    # held tools: a call waits for a person's decision (`chat.held`); not part of the hash
    interrupt_on: Mapping[str, frozenset[DecisionKind]] = field(
        default_factory=lambda: MappingProxyType({}), hash=False
    )

    @property
    def voice_tools(self) -> list[llm.Tool | llm.Toolset]:
        """The tools for a livekit `Agent` (a call, or livekit's text mode): the agent's own,
        each held one as a stand-in that refuses to run (`callmemory.held_in_calls`)."""
        from callmemory.held_in_calls import call_tools  # noqa: PLC0415  (livekit's, loaded)

        return call_tools(self.tools, self.interrupt_on, self.name)

    @property
    def tool_names(self) -> tuple[str, ...]:
        """The agent's own tools by name (`search_docs` is not one of them)."""
        return tuple(tool.info.name for tool in self.tools)


def define_agent(
    *,
    name: str,
    instructions: str,
    memory: CodeDefaults | None = None,
    tools: Iterable[Any] = (),
    collections: Iterable[str] = (),
    model: str | None = None,
    tool_seconds: float = DEFAULT_TOOL_SECONDS,
    interrupt_on: Iterable[str] | Mapping[str, Iterable[str]] = (),
    consolidate: Consolidate = DEFAULT_CONSOLIDATE,
) -> AgentDefinition:
    """An agent definition, checked now; `DefinitionError` names the field and the rule.

    `interrupt_on`: the agent's own tools whose calls wait for a person's decision, as a list
    (approve, edit and reject allowed) or a mapping of tool name to the decisions allowed.
    `consolidate`: "call.ended" (the default: one save when a call ends) or "turn" (live
    memory: a pass after each agent reply while the call runs, and a final one at its end)."""
    defaults = memory or CodeDefaults()
    definition = AgentDefinition(
        name=name,
        instructions=instructions,
        memory=defaults,
        tools=_tools(name, tuple(tools)),
        collections=tuple(collections),
        model=model,
        tool_seconds=tool_seconds,
        interrupt_on=_interrupt_on(name, interrupt_on),
        consolidate=consolidate,
    )
    check_definition(definition)
    return definition


def _interrupt_on(
    agent: str, given: Iterable[str] | Mapping[str, Iterable[str]]
) -> Mapping[str, frozenset[DecisionKind]]:
    """The held tools as a read-only mapping; each tool's decisions checked here."""
    if isinstance(given, str):
        raise DefinitionError(f"agent {agent!r}: interrupt_on: a list of tool names or a mapping")
    pairs = given.items() if isinstance(given, Mapping) else ((n, None) for n in given)
    held: dict[str, frozenset[DecisionKind]] = {}
    for tool, kinds in pairs:
        if not isinstance(tool, str):
            raise DefinitionError(f"agent {agent!r}: interrupt_on: tool names are strings")
        try:
            held[tool] = allowed_kinds([kinds] if isinstance(kinds, str) else kinds)
        except (ValueError, TypeError) as problem:
            raise DefinitionError(f"agent {agent!r}: interrupt_on.{tool}: {problem}") from None
    return MappingProxyType(held)


def _tools(agent: str, given: tuple[Any, ...]) -> tuple[llm.FunctionTool[..., Any], ...]:
    if not given:
        return ()
    from livekit.agents import llm  # noqa: PLC0415  (given tools: livekit is loaded)

    for tool in given:
        if not isinstance(tool, llm.FunctionTool):
            raise DefinitionError(
                f"agent {agent!r}: tools: each tool must be a livekit @function_tool function"
            )
    return given


def valid_name(name: str) -> bool:
    """Whether `name` may be an agent's id."""
    return len(name) <= limits.MAX_AGENT_ID_CHARS and _NAME.fullmatch(name) is not None


def check_definition(definition: AgentDefinition) -> None:
    """Every rule of a definition; the first broken one raised as `DefinitionError`."""
    name = definition.name
    if not isinstance(name, str) or not valid_name(name):
        raise DefinitionError(
            f"name: must match {_NAME.pattern}, at most {limits.MAX_AGENT_ID_CHARS} characters"
        )
    if not isinstance(definition.instructions, str) or not definition.instructions.strip():
        raise DefinitionError(f"agent {name!r}: instructions: must be non-empty text")
    if len(definition.instructions) > MAX_INSTRUCTIONS_CHARS:
        raise DefinitionError(
            f"agent {name!r}: instructions: at most {MAX_INSTRUCTIONS_CHARS} characters"
        )
    names = definition.tool_names
    if len(set(names)) != len(names):
        raise DefinitionError(f"agent {name!r}: tools: two tools have the same name")
    memory_on = bool(definition.memory.read or definition.memory.save)
    try:
        check_reserved(names, memory_enabled=memory_on)
    except ValueError as problem:
        raise DefinitionError(f"agent {name!r}: {problem}") from None
    if definition.collections and SEARCH_DOCS in names:
        raise DefinitionError(
            f"agent {name!r}: tools: the tool name {SEARCH_DOCS} is reserved for its collections"
        )
    for collection in definition.collections:
        if not isinstance(collection, str) or NAMESPACE_PATTERN.fullmatch(collection) is None:
            raise DefinitionError(
                f"agent {name!r}: collections: each must match {NAMESPACE_PATTERN.pattern}"
            )
    if not 0 < definition.tool_seconds <= MAX_TOOL_SECONDS:
        raise DefinitionError(
            f"agent {name!r}: tool_seconds: more than 0 and at most {MAX_TOOL_SECONDS:g}"
        )
    for tool in definition.interrupt_on:
        if tool not in names:
            raise DefinitionError(
                f"agent {name!r}: interrupt_on: {tool} is not one of the agent's own tools"
            )
    _check_choices(definition)


def _check_choices(definition: AgentDefinition) -> None:
    """The definition's model and how its calls write memory."""
    name = definition.name
    if definition.consolidate not in CONSOLIDATE_MODES:
        raise DefinitionError(
            f"agent {name!r}: consolidate: must be one of {', '.join(CONSOLIDATE_MODES)}"
        )
    if definition.model is not None and not definition.model.strip():
        raise DefinitionError(f"agent {name!r}: model: must be non-empty when given")
