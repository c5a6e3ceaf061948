"""The agents a process knows: the registry in Postgres, with the definitions it could load.

The web process loads the definitions `AGENTS` names (its `Catalog`) and registers them when it
starts; workers register theirs (`callmemory.registration`). `AgentDirectory` is what the
routes, the console and the keys read: every registered agent (even one this process cannot
import), in registration order, each with its registry facts, and the loaded definition where
there is one. The registry is read again at most every `REFRESH_SECONDS`, so an agent a worker
registers after the web process started is found within about a second.

For the memory defaults the registry's row wins over this process's definition (last
registration wins, in every process alike). An agent that is loaded here but not (yet) in the
registry is listed from its definition.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import ClassVar, Final

import asyncpg
import structlog

from callmemory import registration
from callmemory.definition import AgentDefinition
from memory.contract import CodedError, MemoryFailure
from memory.settings import CodeDefaults
from memory.store import RegisteredAgent, registered, unregister
from worker.catalog import Catalog, UnknownAgent

REFRESH_SECONDS: Final = 1.0
log = structlog.get_logger(__name__)


class AgentNotLoaded(CodedError, LookupError):
    """The agent is registered, but this process has no definition of it to run (503)."""

    code: ClassVar[str] = "agent_not_loaded"

    def __init__(self, agent_id: str, agents_path: str) -> None:
        super().__init__(
            f"model: agent {agent_id} is registered (declared by an attached worker) but this"
            f" process cannot load its definition: it is not in AGENTS={agents_path}",
            field="model",
        )


@dataclass(frozen=True, slots=True)
class AgentEntry:
    """One agent as the routes see it."""

    name: str
    memory: CodeDefaults
    tools: tuple[str, ...]
    collections: tuple[str, ...]
    declared_in: str
    source: str  # "module" or "worker"
    first_seen: datetime | None
    last_seen: datetime | None
    conflict_with: str | None
    loaded: bool
    held: tuple[tuple[str, tuple[str, ...]], ...] = ()


def _entry(row: RegisteredAgent, loaded: bool) -> AgentEntry:
    return AgentEntry(
        row.agent_id,
        row.memory,
        row.tools,
        row.collections,
        row.declared_in,
        row.source,
        row.first_seen,
        row.last_seen,
        row.conflict_with,
        loaded,
        row.held,
    )


def _from_definition(agent: AgentDefinition, agents_path: str) -> AgentEntry:
    return AgentEntry(
        agent.name,
        agent.memory,
        agent.tool_names,
        agent.collections,
        f"AGENTS={agents_path}",
        "module",
        None,
        None,
        None,
        True,
        registration.declared(agent).held,
    )


def merge(
    rows: Sequence[RegisteredAgent], catalog: Catalog, agents_path: str
) -> dict[str, AgentEntry]:
    """The directory's entries: registry rows first (their order), then loaded-only agents."""
    loaded = {agent.name for agent in catalog}
    entries = {row.agent_id: _entry(row, row.agent_id in loaded) for row in rows}
    for agent in catalog:
        entries.setdefault(agent.name, _from_definition(agent, agents_path))
    return entries


class AgentDirectory:
    """Registered and loaded agents of this process, refreshed from the registry on use."""

    def __init__(self, catalog: Catalog, agents_path: str) -> None:
        self.catalog = catalog
        self.agents_path = agents_path
        self._entries = merge((), catalog, agents_path)
        self._read_at = -float("inf")
        self._lock = asyncio.Lock()

    async def refresh(self, pool: asyncpg.Pool, max_age: float = REFRESH_SECONDS) -> None:
        """Read the registry again when the last read is older than `max_age` seconds."""
        if time.monotonic() - self._read_at < max_age:
            return
        async with self._lock:
            if time.monotonic() - self._read_at < max_age:
                return
            rows = await registered(pool)
            self._entries = merge(rows, self.catalog, self.agents_path)
            self._read_at = time.monotonic()

    def due(self, max_age: float = REFRESH_SECONDS) -> bool:
        """Whether `refresh` with that `max_age` reads the registry."""
        return time.monotonic() - self._read_at >= max_age

    def postpone(self) -> None:
        """Keep the entries as they are for another `REFRESH_SECONDS` (a registry that cannot
        be read now is not asked again by every request meanwhile)."""
        self._read_at = time.monotonic()

    def get(self, name: str) -> AgentEntry:
        try:
            return self._entries[name]
        except KeyError:
            raise UnknownAgent() from None

    def knows(self, name: str) -> bool:
        return name in self._entries

    def entries(self) -> list[AgentEntry]:
        return list(self._entries.values())

    def names(self) -> list[str]:
        return list(self._entries)

    async def register(self, pool: asyncpg.Pool) -> None:
        """Record the loaded definitions in the registry, then read it; a failure (a database
        without the migration) is logged and the loaded agents are served from their code."""
        started = time.perf_counter()
        declared = [registration.declared(agent) for agent in self.catalog]
        try:
            await registration.register_agents(
                pool, declared, f"AGENTS={self.agents_path}", "module"
            )
            await self.refresh(pool, max_age=0)
        except MemoryFailure as failure:
            log.error("web.agents_register_failed", error_code=failure.code)
            return
        duration_ms = round((time.perf_counter() - started) * 1000, 1)
        log.info("web.agents_registered", agents=len(self._entries), duration_ms=duration_ms)

    async def remove(self, pool: asyncpg.Pool, name: str) -> bool:
        """Remove the agent from the registry (never its memory) and read it again."""
        removed = await unregister(pool, name)
        await self.refresh(pool, max_age=0)
        return removed

    def definition(self, name: str) -> AgentDefinition:
        """The loaded definition of a registered agent; `AgentNotLoaded` when there is none."""
        self.get(name)
        try:
            return self.catalog.get(name)
        except UnknownAgent:
            raise AgentNotLoaded(name, self.agents_path) from None
