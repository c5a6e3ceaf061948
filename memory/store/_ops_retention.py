"""Retention of the ops log: events older than the window are deleted in small batches.

Each batch is one statement (so one short transaction, fine through a transaction pooler and
under the pooled statement timeout): it looks at the head of the log (the `batch` lowest ids,
by the primary key, skipping rows another retention run holds), deletes those past the window
and raises each agent's mark in `memory_ops_expired` to the highest id it deleted, in the same
transaction. Ids grow with time, so the head is where the old rows are; a young row at the
head (a transaction that committed late) only ends the pass early, until the next one.
Writers only insert new rows, so a batch never blocks them; a read sees rows and mark from one
snapshot (`memory.store._ops_log`).
"""

from __future__ import annotations

import asyncio

import asyncpg

from memory.contract import Unavailable
from memory.store._db_errors import translated

DEFAULT_BATCH = 1000
DEFAULT_PAUSE_SECONDS = 0.05
"""Between two batches of one pass: the log's writers and readers go first."""

_EXPIRE = """with head as (
        select id, created_at from stackbone_platform.memory_ops
        order by id limit $2
        for update skip locked
    ), doomed as (
        select id from head where created_at < now() - make_interval(secs => $1)
    ), gone as (
        delete from stackbone_platform.memory_ops o using doomed d where o.id = d.id
        returning o.agent_id, o.id
    ), marks as (
        insert into stackbone_platform.memory_ops_expired as m (agent_id, through_id)
        select agent_id, max(id) from gone group by agent_id
        on conflict (agent_id) do update
            set through_id = greatest(m.through_id, excluded.through_id)
    )
    select count(*) from gone"""


async def expire_ops_batch(pool: asyncpg.Pool, older_than_seconds: float, batch: int) -> int:
    """Delete up to `batch` of the oldest events older than `older_than_seconds`; how many."""
    async with translated(Unavailable, "ops log retention"):
        return int(await pool.fetchval(_EXPIRE, older_than_seconds, batch))


async def expire_ops(
    pool: asyncpg.Pool,
    older_than_seconds: float,
    *,
    batch: int = DEFAULT_BATCH,
    pause_seconds: float = DEFAULT_PAUSE_SECONDS,
) -> int:
    """One pass: batches until one comes back short; returns how many events were deleted."""
    total = 0
    while True:
        deleted = await expire_ops_batch(pool, older_than_seconds, batch)
        total += deleted
        if deleted < batch:
            return total
        await asyncio.sleep(pause_seconds)
