"""Call records are kept up to recall's maximum per person: the save that adds one past it drops
the oldest in the same statement; other people, and people under the bound, lose nothing."""

from __future__ import annotations

import asyncpg
import pytest

from memory.api import Memory
from memory.contract import MAX_RECALL_CALLS
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op

S = "stackbone_platform"
SEED = f"""insert into {S}.memory_calls (agent_id, user_id, started_at, summary, created_at)
    select 'support', $1, now() - make_interval(days => 1000 - g), 'call ' || g, now()
    from generate_series(1, $2) g"""


async def summaries(pool: asyncpg.Pool, user: str) -> list[str]:
    rows = await pool.fetch(
        f"select summary from {S}.memory_calls where agent_id = 'support' and user_id = $1"
        " order by started_at, seq",
        user,
    )
    return [r[0] for r in rows]


@pytest.mark.parametrize(
    ("before", "dropped"),
    [(MAX_RECALL_CALLS - 1, 0), (MAX_RECALL_CALLS, 1), (MAX_RECALL_CALLS + 5, 6), (3, 0)],
)
async def test_a_save_keeps_the_newest_records_up_to_the_bound(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool, before: int, dropped: int
) -> None:
    await pool.execute(SEED, "u1", before)
    await pool.execute(SEED, "someone-else", MAX_RECALL_CALLS + 5)
    model_server.answer([add_op("Likes tea.")], "today's call")
    result = await memory.add("hi", "support", "u1")
    assert result.error is None, result.error
    kept = await summaries(pool, "u1")
    assert kept == [f"call {g}" for g in range(dropped + 1, before + 1)] + ["today's call"]
    assert len(kept) == min(before + 1, MAX_RECALL_CALLS)
    assert len(await summaries(pool, "someone-else")) == MAX_RECALL_CALLS + 5  # untouched
    recalled = await memory.recall("support", "u1", MAX_RECALL_CALLS)
    assert recalled.data is not None and len(recalled.data.calls) == len(kept)
