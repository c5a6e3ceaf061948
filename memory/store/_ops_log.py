"""Reading the ops log (`memory_ops`): one agent's `memory.ops` events after a cursor, in order.

Rows are written by the add's one statement (`memory.store._write_statement`) and erased with the
person (`MemoryStore.delete_all`); this module only reads them.
"""

from __future__ import annotations

import json

import asyncpg

from memory.contract import Unavailable
from memory.ops import OpsEvent, from_row
from memory.store._db_errors import translated

DEFAULT_LIMIT = 100
MAX_LIMIT = 500
MAX_CURSOR = 2**63 - 1  # the log's ids are Postgres bigints

_READ = """select id, agent_id, user_id, call_id, turn, final, revision, model, latency_ms,
        ops::text as ops
    from stackbone_platform.memory_ops
    where agent_id = $1 and id > $2 order by id limit $3"""


async def ops_after(pool: asyncpg.Pool, agent_id: str, after: int, limit: int) -> list[OpsEvent]:
    """Up to `limit` events of `agent_id` with an id above `after`, oldest first."""
    async with translated(Unavailable, "ops log read"):
        rows = await pool.fetch(_READ, agent_id, after, limit)
    return [from_row({**dict(r), "ops": json.loads(r["ops"])}) for r in rows]
