"""The agent registry's SQL: declare agents, list them, remove one (never their memory).

A row holds the agent's tool names and, since migration 0027, which of them are held (a call
waits for a person's decision) with the decisions each allows.

`register` writes one row per declared agent in one statement: a new agent gets its first and
last seen now; a known one gets its new declaration and last seen now. Last registration wins
for the code's memory defaults: when the declaration's defaults differ from the row's, the row
takes the new ones and `conflict_with` records where the replaced declaration came from (and
when), so the console and the listing show it, and `register` returns the ids that conflicted
for the caller to log.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import asyncpg

from memory.contract import PersistFailed, Unavailable
from memory.settings import CodeDefaults
from memory.store._db_errors import translated

_S = "stackbone_platform"
Source = Literal["module", "worker"]
Held = tuple[tuple[str, tuple[str, ...]], ...]
"""Held tools and the decisions each allows, in the definition's order."""


@dataclass(frozen=True, slots=True)
class Declared:
    """One agent as a process declares it to the registry."""

    agent_id: str
    memory: CodeDefaults
    tools: tuple[str, ...]
    collections: tuple[str, ...]
    held: Held = ()


@dataclass(frozen=True, slots=True)
class RegisteredAgent:
    """One registry row."""

    agent_id: str
    memory: CodeDefaults
    tools: tuple[str, ...]
    collections: tuple[str, ...]
    declared_in: str
    source: Source
    first_seen: datetime
    last_seen: datetime
    conflict_with: str | None
    conflict_at: datetime | None
    held: Held = ()


def defaults_json(memory: CodeDefaults) -> str:
    """The code's memory defaults as stored (declared fields only, in a stable order)."""
    fields = {k: v for k, v in dataclasses.asdict(memory).items() if v is not None}
    return json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in fields.items()})


def held_json(held: Held) -> str:
    """Held tools as stored: an array, so the definition's order stays."""
    return json.dumps([{"tool": tool, "allowed": list(kinds)} for tool, kinds in held])


def held_of(stored: str | list[Any]) -> Held:
    data = json.loads(stored) if isinstance(stored, str) else stored
    return tuple((str(item["tool"]), tuple(str(k) for k in item["allowed"])) for item in data)


def defaults_of(stored: str | dict[str, Any]) -> CodeDefaults:
    data = json.loads(stored) if isinstance(stored, str) else stored
    known = {f.name for f in dataclasses.fields(CodeDefaults)}
    values: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in known
    }
    return CodeDefaults(**values)


_REGISTER = f"""
with given as (
    select agent_id, memory::jsonb as memory, tools, collections, held::jsonb as held
    from unnest($1::text[], $2::text[], $3::text[], $4::text[], $7::text[])
        as g(agent_id, memory, tools, collections, held)
), old as (
    select r.agent_id, r.memory, r.declared_in from {_S}.agent_registry r
    join given using (agent_id) for update of r
), written as (
    insert into {_S}.agent_registry as r
        (agent_id, memory, tools, collections, held, declared_in, source, first_seen, last_seen)
    select g.agent_id, g.memory, g.tools::text[], g.collections::text[], g.held, $5, $6,
        clock_timestamp(), clock_timestamp() from given g
    on conflict (agent_id) do update set
        memory = excluded.memory, tools = excluded.tools, collections = excluded.collections,
        held = excluded.held,
        declared_in = excluded.declared_in, source = excluded.source, last_seen = now(),
        conflict_with = case when r.memory <> excluded.memory then r.declared_in
            else r.conflict_with end,
        conflict_at = case when r.memory <> excluded.memory then now() else r.conflict_at end
    returning r.agent_id
)
select o.agent_id from old o join given g using (agent_id) where o.memory <> g.memory
"""


def _array(values: Sequence[str]) -> str:
    """A text[] literal for unnest (each element quoted)."""
    return "{" + ",".join(json.dumps(v, ensure_ascii=False) for v in values) + "}"


async def register(
    pool: asyncpg.Pool | asyncpg.Connection,
    agents: Sequence[Declared],
    declared_in: str,
    source: Source,
) -> list[str]:
    """Record `agents` as declared now; the ids whose stored defaults differed (replaced)."""
    async with translated(PersistFailed, "agent registry"):
        rows = await pool.fetch(
            _REGISTER,
            [a.agent_id for a in agents],
            [defaults_json(a.memory) for a in agents],
            [_array(a.tools) for a in agents],
            [_array(a.collections) for a in agents],
            declared_in[:500],
            source,
            [held_json(a.held) for a in agents],
        )
    return [row["agent_id"] for row in rows]


_LIST = f"""select agent_id, memory, tools, collections, held, declared_in, source,
    first_seen, last_seen, conflict_with, conflict_at from {_S}.agent_registry
    order by first_seen, agent_id"""


def _row(row: asyncpg.Record) -> RegisteredAgent:
    return RegisteredAgent(
        agent_id=row["agent_id"],
        memory=defaults_of(row["memory"]),
        tools=tuple(row["tools"]),
        collections=tuple(row["collections"]),
        declared_in=row["declared_in"],
        source=row["source"],
        first_seen=row["first_seen"],
        last_seen=row["last_seen"],
        conflict_with=row["conflict_with"],
        conflict_at=row["conflict_at"],
        held=held_of(row["held"]),
    )


async def registered(pool: asyncpg.Pool | asyncpg.Connection) -> list[RegisteredAgent]:
    """Every registered agent, oldest first."""
    async with translated(Unavailable, "agent registry"):
        rows = await pool.fetch(_LIST)
    return [_row(row) for row in rows]


async def unregister(pool: asyncpg.Pool, agent_id: str) -> bool:
    """Remove the agent from the registry (its memory and settings stay); whether it was there."""
    async with translated(PersistFailed, "agent registry"):
        status = await pool.execute(
            f"delete from {_S}.agent_registry where agent_id = $1", agent_id
        )
    return str(status).endswith(" 1")
