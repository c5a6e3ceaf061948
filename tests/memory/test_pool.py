"""The service's pool skips asyncpg's session reset query; released connections stay clean."""

from __future__ import annotations

import asyncpg

from infra.database import PoolTimeouts, create_pool


async def test_a_transaction_left_open_is_rolled_back_on_release(pool: asyncpg.Pool) -> None:
    conn = await pool.acquire()
    tx = conn.transaction()
    await tx.start()
    await conn.execute("create table leaked (x int)")
    await pool.release(conn)  # released without commit or rollback
    async with pool.acquire() as again:
        assert not again.is_in_transaction()
        assert await again.fetchval("select to_regclass('leaked')") is None


async def test_release_sends_no_reset_query(database_url: str, pool_timeouts: PoolTimeouts) -> None:
    """A pooled query is the only statement the connection runs: no RESET ALL after it."""
    pool = await create_pool(database_url, min_size=1, max_size=1, timeouts=pool_timeouts)
    seen: list[str] = []
    try:
        async with pool.acquire() as conn:
            conn.add_query_logger(lambda record: seen.append(record.query))
        for _ in range(3):
            await pool.fetchval("select 1")
    finally:
        await pool.close()
    assert seen == ["select 1"] * 3
