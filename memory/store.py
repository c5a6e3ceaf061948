"""Postgres access for memory: the only module in `memory/` that runs SQL.

Database exceptions become typed memory failures here, once: a missing schema is
`SchemaMissing`, a failed read `Unavailable`, a failed write `PersistFailed`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import asyncpg

from memory.database import Executor
from memory.db_errors import translated
from memory.errors import (
    CapabilityUnavailable,
    Conflict,
    PersistFailed,
    SchemaMissing,
    Unavailable,
)
from memory.models import AddOutcome, CallMetadata, CallRecord, Fact, Recall
from memory.operations import Plan

CAPABILITY = "memory.basic"
_S = "stackbone_platform"

_FACTS = f"""array(select row(id::text, content, created_at, updated_at) from {_S}.memory_facts
    where agent_id = $1 and user_id = $2 order by seq)"""
_CALL_COLUMNS = "id::text, started_at, duration_seconds, outcome, run_id, summary, created_at"

_RECALL = f"""select {_FACTS} as facts,
    array(select row({_CALL_COLUMNS}) from {_S}.memory_calls
          where agent_id = $1 and user_id = $2
          order by started_at desc, seq desc limit $3) as calls"""

_SNAPSHOT = f"""select
    (select revision from {_S}.memory_revisions where agent_id = $1 and user_id = $2) as revision,
    {_FACTS} as facts, s.model, s.reasoning_effort, s.guidance_published
  from (select 1) as one left join {_S}.memory_extraction_settings s on true"""

_CAPABILITY = f"""select to_regclass('{_S}.memory_calls') is not null as schema_ok,
    to_regclass('{_S}.capabilities') is not null
      and exists(select 1 from {_S}.capabilities where name = $1) as capability_ok"""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """What an add reads before calling the model."""

    revision: int
    facts: tuple[Fact, ...]
    model: str | None
    reasoning_effort: str | None
    guidance: str | None


def _fact(row: Sequence[Any]) -> Fact:
    # ids arrive as text and columns in field order: positional construction keeps recall cheap
    return Fact(*row)


def _call(row: Sequence[Any]) -> CallRecord:
    return CallRecord(*row)


class MemoryStore:
    """Facts, call records and revisions of (agent, user) pairs in one Postgres pool."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._capable = False

    async def ensure_capability(self) -> None:
        """Check once per process that the schema is applied and advertises memory.basic."""
        if self._capable:
            return
        async with translated(Unavailable, "capability check"):
            row = await self._pool.fetchrow(_CAPABILITY, CAPABILITY)
        assert row is not None
        if not row["schema_ok"]:
            raise SchemaMissing("the memory schema migration has not been applied")
        if not row["capability_ok"]:
            raise CapabilityUnavailable(f"the database does not advertise {CAPABILITY}")
        self._capable = True

    async def recall(self, agent_id: str, user_id: str, calls: int) -> Recall:
        async with translated(Unavailable, "recall"):
            row = await self._pool.fetchrow(_RECALL, agent_id, user_id, calls)
        assert row is not None
        return Recall(tuple(map(_fact, row["facts"])), tuple(map(_call, row["calls"])))

    async def snapshot(self, agent_id: str, user_id: str) -> Snapshot:
        async with translated(Unavailable, "memory read"):
            row = await self._pool.fetchrow(_SNAPSHOT, agent_id, user_id)
        assert row is not None
        return Snapshot(
            revision=row["revision"] or 0,
            facts=tuple(map(_fact, row["facts"])),
            model=row["model"],
            reasoning_effort=row["reasoning_effort"],
            guidance=row["guidance_published"],
        )

    async def write(
        self, agent_id: str, user_id: str, revision: int, plan: Plan, call: CallMetadata
    ) -> AddOutcome:
        """Apply a validated plan and one call record if the revision is still `revision`."""
        async with (
            translated(PersistFailed, "memory write"),
            self._pool.acquire() as conn,
            conn.transaction(),
        ):
            await _lock_revision(conn, agent_id, user_id, revision)
            await _apply(conn, agent_id, user_id, plan)
            record = await conn.fetchrow(
                f"""insert into {_S}.memory_calls (agent_id, user_id, started_at,
                    duration_seconds, outcome, run_id, summary, created_at)
                values ($1, $2, coalesce($3, now()), $4, $5, $6, $7, now())
                returning {_CALL_COLUMNS}""",
                agent_id,
                user_id,
                call.started_at,
                call.duration_seconds,
                call.outcome,
                call.run_id,
                plan.summary,
            )
            facts = await conn.fetchval(f"select {_FACTS}", agent_id, user_id)
            await conn.execute(
                f"update {_S}.memory_revisions set revision = revision + 1"
                " where agent_id = $1 and user_id = $2",
                agent_id,
                user_id,
            )
        assert record is not None
        return AddOutcome(facts=tuple(map(_fact, facts)), call=_call(tuple(record.values())))

    async def delete_all(self, agent_id: str, user_id: str) -> int:
        """Erase one pair's facts and call records; bump (never drop) its revision."""
        async with (
            translated(Unavailable, "erasure"),
            self._pool.acquire() as conn,
            conn.transaction(),
        ):
            # the revision row is locked first, so an add committing meanwhile is either
            # fully before this erasure (and erased) or conflicts afterwards
            await conn.execute(
                f"""insert into {_S}.memory_revisions as r (agent_id, user_id, revision)
                values ($1, $2, 1) on conflict (agent_id, user_id)
                do update set revision = r.revision + 1""",
                agent_id,
                user_id,
            )
            count = await conn.fetchval(
                f"""with f as (delete from {_S}.memory_facts
                        where agent_id = $1 and user_id = $2 returning 1),
                     c as (delete from {_S}.memory_calls
                        where agent_id = $1 and user_id = $2 returning 1)
                select (select count(*) from f) + (select count(*) from c)""",
                agent_id,
                user_id,
            )
        return int(count)


async def _lock_revision(conn: Executor, agent_id: str, user_id: str, read: int) -> None:
    await conn.execute(
        f"insert into {_S}.memory_revisions (agent_id, user_id) values ($1, $2)"
        " on conflict do nothing",
        agent_id,
        user_id,
    )
    current = await conn.fetchval(
        f"select revision from {_S}.memory_revisions"
        " where agent_id = $1 and user_id = $2 for update",
        agent_id,
        user_id,
    )
    if current != read:
        raise Conflict("memory changed while the model request was in flight")


async def _apply(conn: Executor, agent_id: str, user_id: str, plan: Plan) -> None:
    if plan.deletes:
        await conn.execute(
            f"delete from {_S}.memory_facts where agent_id = $1 and user_id = $2"
            " and id = any($3::uuid[])",
            agent_id,
            user_id,
            list(plan.deletes),
        )
    if plan.updates:
        await conn.execute(
            f"""update {_S}.memory_facts f set content = u.content, updated_at = now()
            from unnest($3::uuid[], $4::text[]) as u(id, content)
            where f.id = u.id and f.agent_id = $1 and f.user_id = $2""",
            agent_id,
            user_id,
            [fact_id for fact_id, _ in plan.updates],
            [content for _, content in plan.updates],
        )
    if plan.adds:
        await conn.execute(
            f"""insert into {_S}.memory_facts (agent_id, user_id, content, created_at, updated_at)
            select $1, $2, t.content, now(), now()
            from unnest($3::text[]) with ordinality as t(content, n) order by t.n""",
            agent_id,
            user_id,
            list(plan.adds),
        )
