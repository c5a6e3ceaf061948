"""Reading the ops log (`memory_ops`): one agent's `memory.ops` events after a cursor, in order.

Rows are written by the add's one statement (`memory.store._write_statement`), erased with the
person (`MemoryStore.delete_all`) and deleted past the retention window
(`memory.store._ops_retention`), which records per agent the highest id it deleted. A read
whose cursor is below that mark has missed events: it fails with `CursorExpired` instead of
returning a silent gap. Rows and mark come from one statement, so one snapshot. The ops' texts
are stored escaped (`memory.store.stored_text`) and read back exactly.
"""

from __future__ import annotations

import json

import asyncpg

from memory.contract import CursorExpired, Unavailable
from memory.ops import OpsEvent, from_row
from memory.store._db_errors import translated
from memory.store._stored_text import read_json

DEFAULT_LIMIT = 100
MAX_LIMIT = 500
MAX_CURSOR = 2**63 - 1  # the log's ids are Postgres bigints

_READ = """select e.through_id as expired_through, o.*
    from (select $1::text as agent_id) a
    left join stackbone_platform.memory_ops_expired e on e.agent_id = a.agent_id
    left join lateral (
        select id, agent_id, user_id, call_id, turn, final, revision, model, latency_ms,
            ops::text as ops, source::text as source
        from stackbone_platform.memory_ops
        where agent_id = $1 and id > $2 order by id limit $3
    ) o on true
    order by o.id"""


def expired(after: int, expired_through: int | None) -> bool:
    """Whether retention deleted an event after `after` (its mark is above the cursor)."""
    return expired_through is not None and after < expired_through


async def ops_after(pool: asyncpg.Pool, agent_id: str, after: int, limit: int) -> list[OpsEvent]:
    """Up to `limit` events of `agent_id` with an id above `after`, oldest first.

    Raises `CursorExpired` when retention deleted events after `after`.
    """
    async with translated(Unavailable, "ops log read"):
        rows = await pool.fetch(_READ, agent_id, after, limit)
    mark = rows[0]["expired_through"]
    if expired(after, mark):
        raise CursorExpired(after, mark)
    return [from_row(_row(r)) for r in rows if r["id"] is not None]


def _row(r: asyncpg.Record) -> dict[str, object]:
    source = None if r["source"] is None else read_json(json.loads(r["source"]))
    return {**dict(r), "ops": read_json(json.loads(r["ops"])), "source": source}
