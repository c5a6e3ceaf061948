"""Declaring agents to the registry in Postgres, from the web process and from a worker.

The web process registers the definitions `AGENTS` names when it starts (`source` "module"); a
worker that attaches memory to its own agent registers that agent from its main process, once,
before it serves calls (`CallerMemory.from_env`, `source` "worker"). Last registration wins for
the code's memory defaults; a registration that replaced other defaults is logged as
`agents.registry_conflict` (agent id and both places, no values). A worker whose registration
fails (no database yet, the migration not applied) logs `agents.register_failed` and serves
anyway: its calls do not depend on the registry.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

import asyncpg
import structlog

from callmemory.definition import AgentDefinition
from chat import ordered
from memory.contract import MemoryFailure
from memory.settings import CodeDefaults
from memory.store import DB_ERRORS, AgentSource, Declared, register

log = structlog.get_logger(__name__)
REGISTER_SECONDS = 5.0
"""How long a worker's main process waits for its one registration before serving without it."""


def declared(definition: AgentDefinition) -> Declared:
    held = tuple((tool, ordered(kinds)) for tool, kinds in definition.interrupt_on.items())
    return Declared(
        definition.name, definition.memory, definition.tool_names, definition.collections, held
    )


async def register_agents(
    pool: asyncpg.Pool | asyncpg.Connection,
    agents: Sequence[Declared],
    declared_in: str,
    source: AgentSource,
) -> list[str]:
    """Record the agents; logs and returns the ids whose stored defaults were replaced."""
    replaced = await register(pool, agents, declared_in, source)
    for agent_id in replaced:
        log.warning(
            "agents.registry_conflict", agent_id=agent_id, declared_in=declared_in, rule="last_wins"
        )
    log.info("agents.registered", agents=len(agents), source=source, declared_in=declared_in)
    return replaced


def register_worker_agent(
    url: str, agent_id: str, memory: CodeDefaults, definition: AgentDefinition | None, where: str
) -> None:
    """A worker's main process declares its agent (blocking, outside any event loop)."""
    agent = declared(definition) if definition is not None else Declared(agent_id, memory, (), ())
    try:
        asyncio.run(_register_once(url, agent, where))
    except (MemoryFailure, *DB_ERRORS) as exc:
        log.warning("agents.register_failed", agent_id=agent_id, error_type=type(exc).__name__)


async def _register_once(url: str, agent: Declared, where: str) -> None:
    async with asyncio.timeout(REGISTER_SECONDS):
        conn = await asyncpg.connect(url)
        try:
            await register_agents(conn, [agent], where, "worker")
        finally:
            await conn.close()
