"""The agents this project ships, declared as any team declares its own: `agents`.

`agents` is the default of `AGENTS` (`worker.catalog:agents`): a list of `define_agent(...)`
definitions, each with its conversation instructions from a prompt file under
`worker/prompts/` and its memory defaults. A process loads the definitions `AGENTS` names
(`callmemory.agent_import`) into a `Catalog`; a duplicate name stops the process there rather
than at the first call.

Deprecated, kept working: `AgentSpec(name, prompt_name, memory)` (use `define_agent`) and
`default_catalog()` (the catalog of `agents`); a `Catalog` given `AgentSpec`s turns each into a
definition.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import ClassVar

from callmemory.agent_import import load_agents
from callmemory.definition import AgentDefinition, define_agent
from memory.contract import CodedError, limits
from memory.settings import CodeDefaults

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
AGENT_ID_RULE = f"{_NAME.pattern}, at most {limits.MAX_AGENT_ID_CHARS} characters"


class CatalogError(ValueError):
    """The catalog declaration is invalid; raised at start-up."""


class UnknownAgent(CodedError, LookupError):
    """No agent of that name is declared."""

    code: ClassVar[str] = "agent_not_found"

    def __init__(self) -> None:
        super().__init__("agentId: no agent with this id is declared", field="agentId")


@cache
def prompt(name: str) -> str:
    """The text of `worker/prompts/<name>.md`."""
    path = resources.files("worker").joinpath("prompts", f"{name}.md")
    return path.read_text("utf-8").strip()


@dataclass(frozen=True, slots=True)
class AgentSpec:
    """Deprecated (use `define_agent`): one agent whose `prompt_name` names its prompt file."""

    name: str
    prompt_name: str
    memory: CodeDefaults = field(default_factory=CodeDefaults)

    @property
    def instructions(self) -> str:
        return prompt(self.prompt_name)

    def definition(self) -> AgentDefinition:
        return define_agent(name=self.name, instructions=self.instructions, memory=self.memory)


class Catalog:
    """Agent definitions by name; iteration keeps declaration order."""

    def __init__(self, agents: Iterable[AgentDefinition | AgentSpec]) -> None:
        self._agents: dict[str, AgentDefinition] = {}
        for given in agents:
            if isinstance(given, AgentSpec):
                _check(given)
            agent = given.definition() if isinstance(given, AgentSpec) else given
            if agent.name in self._agents:
                raise CatalogError(f"agent {agent.name!r} is registered twice")
            self._agents[agent.name] = agent

    def get(self, name: str) -> AgentDefinition:
        try:
            return self._agents[name]
        except KeyError:
            raise UnknownAgent() from None

    def __iter__(self) -> Iterator[AgentDefinition]:
        return iter(self._agents.values())

    def __len__(self) -> int:
        return len(self._agents)

    def identity_keys(self) -> dict[str, str]:
        """Agent id -> code-declared identity key, for agents that declare one."""
        return {a.name: a.memory.identity_key for a in self if a.memory.identity_key is not None}


def valid_agent_id(name: str) -> bool:
    """Whether `name` may be an agent's id (`AGENT_ID_RULE`): the catalog's one rule."""
    return len(name) <= limits.MAX_AGENT_ID_CHARS and _NAME.fullmatch(name) is not None


def _check(agent: AgentSpec) -> None:
    if not valid_agent_id(agent.name):
        raise CatalogError(f"agent name {agent.name!r} must match {_NAME.pattern}")
    try:
        prompt(agent.prompt_name)
    except (FileNotFoundError, OSError):
        raise CatalogError(f"agent {agent.name!r}: prompt file is missing") from None


agents = [
    define_agent(
        name="support",
        instructions=prompt("support"),
        memory=CodeDefaults(
            read=True,
            save=True,
            instructions=prompt("support_memory"),
            identity_key="phoneNumber",
        ),
    ),
]
"""The agents this project ships: the default of `AGENTS`."""


def load_catalog(path: str) -> Catalog:
    """The catalog of the definitions `AGENTS` names (`AgentsImportFailed` when it cannot)."""
    return Catalog(load_agents(path))


def default_catalog() -> Catalog:
    """Deprecated: the catalog of this project's `agents` (a process loads `AGENTS` instead)."""
    return Catalog(agents)
