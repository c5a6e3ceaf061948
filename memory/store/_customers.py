"""One agent's customers, a page at a time: the people the overview counts (the distinct user
ids of the agent's facts and calls), in byte order of their user id, with their counts.

Paging is by key: a page starts after the last user id of the one before (`after`), so a
customer added or erased between pages neither repeats nor hides another. Its cost grows with
the agent's facts and calls after the cursor (one grouped pass over each).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import asyncpg

from memory.contract import Unavailable
from memory.store._db_errors import translated

_S = "stackbone_platform"
DEFAULT_CUSTOMERS = 50
MAX_CUSTOMERS = 500

_PAGE = f"""select user_id, sum(facts)::bigint as facts, sum(calls)::bigint as calls,
    max(last_call_at) as last_call_at
from (
    select user_id, count(*) as facts, 0 as calls, null::timestamptz as last_call_at
    from {_S}.memory_facts where agent_id = $1 and user_id collate "C" > $2 group by user_id
    union all
    select user_id, 0, count(*), max(started_at)
    from {_S}.memory_calls where agent_id = $1 and user_id collate "C" > $2 group by user_id
) p
group by user_id order by user_id collate "C" limit $3"""


@dataclass(frozen=True, slots=True)
class Customer:
    user_id: str
    facts: int
    calls: int
    last_call_at: datetime | None


async def customers_after(
    pool: asyncpg.Pool, agent_id: str, after: str, limit: int
) -> list[Customer]:
    """Up to `limit` customers of `agent_id` whose user id sorts (bytewise) after `after`."""
    async with translated(Unavailable, "customers read"):
        rows = await pool.fetch(_PAGE, agent_id, after, limit)
    return [Customer(r["user_id"], r["facts"], r["calls"], r["last_call_at"]) for r in rows]
