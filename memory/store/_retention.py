"""Retention per agent: the stored days of each kind of record, and the batches that delete
what is older.

Each batch is one statement in a short transaction that carries the long-operation limits the
migrations use (`infra.long_ops`: a short `lock_timeout`, the long `statement_timeout`), so a
batch never queues for long behind a call's transaction: a lock wait that times out is tried
again after `retry_delay`, `lock_attempts` times in all. A batch takes the agent's oldest rows
past the window, at most `batch` of them, skipping rows another pass holds. Facts and their
versions are never touched here (`memory.settings._retention` says why).
"""

from __future__ import annotations

import asyncio
from typing import Final

import asyncpg

from infra.long_ops import LongOpLimits, retry_delay
from memory.contract import PersistFailed, Unavailable
from memory.settings import RETENTION_KINDS, Retention, RetentionKind, RetentionUpdate
from memory.store._activity import Queryable, record_activity
from memory.store._db_errors import translated

_S = "stackbone_platform"
DEFAULT_BATCH: Final = 1000
DEFAULT_PAUSE_SECONDS: Final = 0.05
LONG_OPS: Final = LongOpLimits()
"""The defaults of a long operation, as the migrations have them without configuration."""
_COLUMNS = ", ".join(f"{kind}_days" for kind in RETENTION_KINDS)

_READ = f"select {_COLUMNS} from {_S}.memory_retention where agent_id = $1"
_VALUES = ", ".join(f"${n}" for n in range(2, len(RETENTION_KINDS) + 2))
_SETS = ", ".join(f"{kind}_days = excluded.{kind}_days" for kind in RETENTION_KINDS)
_WRITE = f"""insert into {_S}.memory_retention as r (agent_id, {_COLUMNS}, updated_at)
    values ($1, {_VALUES}, now()) on conflict (agent_id) do update set
    {_SETS}, updated_at = now()"""
_BOUNDED = f"""select agent_id, {_COLUMNS} from {_S}.memory_retention
    where num_nonnulls({_COLUMNS}) > 0 order by agent_id"""
_LIMITS = "select set_config('lock_timeout', $1, true), set_config('statement_timeout', $2, true)"

_WINDOW = "now() - make_interval(days => $2)"


def _by_age(table: str, at: str, also: str = "") -> str:
    """Up to $3 of agent $1's rows of `table` older than $2 days by `at`, oldest first, deleted
    (rows another transaction holds wait for the next pass); how many."""
    return f"""with doomed as (
            select id from {_S}.{table} where agent_id = $1 and {at} < {_WINDOW}{also}
            order by {at} limit $3 for update skip locked
        ), gone as (
            delete from {_S}.{table} t using doomed d where t.id = d.id returning 1
        ) select count(*) from gone"""


EXPIRE: Final[dict[RetentionKind, str]] = {
    "calls": _by_age("memory_calls", "created_at"),
    # a session goes whole (its turns and decisions by cascade) once unused for the window;
    # one a turn holds right now waits for the next pass
    "sessions": _by_age(
        "chat_sessions", "updated_at", " and (busy_until is null or busy_until < now())"
    ),
    # as the log's own retention (`_ops_retention`): the agent's head, the mark raised with it
    "ops": f"""with head as (
            select id, created_at from {_S}.memory_ops where agent_id = $1
            order by id limit $3 for update skip locked
        ), doomed as (
            select id from head where created_at < {_WINDOW}
        ), gone as (
            delete from {_S}.memory_ops o using doomed d where o.id = d.id returning o.id
        ), marks as (
            insert into {_S}.memory_ops_expired as m (agent_id, through_id)
            select $1, max(id) from gone having count(*) > 0
            on conflict (agent_id) do update
                set through_id = greatest(m.through_id, excluded.through_id)
        ) select count(*) from gone""",
    "reads": _by_age("memory_reads", "at"),
    "journals": _by_age("call_journals", "started_at"),
}


def _retention(row: asyncpg.Record | None) -> Retention:
    if row is None:
        return Retention()
    return Retention(*(row[f"{kind}_days"] for kind in RETENTION_KINDS))


async def load_retention(db: Queryable, agent_id: str) -> Retention:
    """The agent's retention (every kind kept until deleted when none was set)."""
    async with translated(Unavailable, "retention read"):
        return _retention(await db.fetchrow(_READ, agent_id))


async def save_retention(
    pool: asyncpg.Pool, agent_id: str, update: RetentionUpdate, actor: str
) -> Retention:
    """Apply a validated PUT and log who changed which kinds (never the values), in one
    transaction; the kinds it does not name keep their days."""
    async with (
        translated(PersistFailed, "retention write"),
        pool.acquire() as conn,
        conn.transaction(),
    ):
        current = _retention(await conn.fetchrow(_READ + " for update", agent_id))
        saved = update.applied_to(current)
        await conn.execute(_WRITE, agent_id, *(saved.days(k) for k in RETENTION_KINDS))
        if update.given:
            await record_activity(conn, actor, agent_id, "save", update.field_names())
    return saved


async def bounded_agents(db: Queryable) -> list[tuple[str, Retention]]:
    """Every agent that limits some kind, with its retention."""
    async with translated(Unavailable, "retention read"):
        rows = await db.fetch(_BOUNDED)
    return [(row["agent_id"], _retention(row)) for row in rows]


async def expire_batch(
    pool: asyncpg.Pool,
    agent_id: str,
    kind: RetentionKind,
    days: int,
    *,
    batch: int = DEFAULT_BATCH,
    limits: LongOpLimits = LONG_OPS,
) -> int:
    """Delete up to `batch` of the agent's records of `kind` older than `days`; how many."""
    settings = limits.server_settings()
    for attempt in range(1, limits.lock_attempts + 1):
        try:
            async with (
                translated(Unavailable, "retention"),
                pool.acquire() as conn,
                conn.transaction(),
            ):
                await conn.execute(_LIMITS, settings["lock_timeout"], settings["statement_timeout"])
                return int(await conn.fetchval(EXPIRE[kind], agent_id, days, batch))
        except Unavailable as failure:
            locked = isinstance(failure.__cause__, asyncpg.LockNotAvailableError)
            if not locked or attempt == limits.lock_attempts:
                raise
        await asyncio.sleep(retry_delay(attempt))
    raise AssertionError("unreachable: the last attempt returns or raises")


async def expire_records(
    pool: asyncpg.Pool,
    agent_id: str,
    kind: RetentionKind,
    days: int,
    *,
    batch: int = DEFAULT_BATCH,
    limits: LongOpLimits = LONG_OPS,
    pause_seconds: float = DEFAULT_PAUSE_SECONDS,
) -> int:
    """Batches until one comes back short; how many records of `kind` were deleted."""
    total = 0
    while True:
        deleted = await expire_batch(pool, agent_id, kind, days, batch=batch, limits=limits)
        total += deleted
        if deleted < batch:
            return total
        await asyncio.sleep(pause_seconds)
