"""Retention of the ops log: events past the window are deleted in batches, replay inside the
window stays exact, and a cursor older than the window gets `cursor_expired`, never a gap."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from callmemory.config import CallConfig
from infra.database import PoolTimeouts
from lifecycle.sweeper import SweepConfig
from memory.api import Memory
from memory.contract import CursorExpired
from memory.store import expire_ops, expire_ops_batch, ops_after
from memory.store._ops_log import expired
from testkit.databases import drop_database_under
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op
from worker.catalog import Catalog, agents
from worker.ops_retention import RetentionConfig, retention_pass, retention_running
from worker.sweeping import SweeperTask

DAY = 86400.0
GONE = "select not exists (select from stackbone_platform.memory_ops where id = $1)"
AGE = "update stackbone_platform.memory_ops set created_at = now() - make_interval(days => $1)"


async def learn(
    memory: Memory, server: ModelServer, pool: asyncpg.Pool, agent: str, n: int
) -> list[int]:
    """`n` events of `agent`, one per person; their ids, oldest first."""
    for i in range(n):
        server.answer([add_op(f"Fact {i}.")], "s")
        result = await memory.add("hi", agent, f"user-{i}-of-{n}")
        assert result.error is None, result.error
    return [e["id"] for e in await ops_after(pool, agent, 0, 100)][-n:]


async def age(pool: asyncpg.Pool, ids: list[int], days: float) -> None:
    await pool.execute(AGE + " where id = any($2)", days, ids)


def test_a_cursor_is_expired_only_below_the_mark() -> None:
    assert not expired(0, None)  # nothing ever deleted for the agent
    assert expired(4, 5)
    assert not expired(5, 5)  # everything after 5 is still there
    assert not expired(9, 5)


async def test_old_events_go_and_replay_inside_the_window_is_exact(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    ids = await learn(memory, model_server, pool, "support", 5)
    await age(pool, ids[:2], 31)
    await age(pool, ids[2:3], 29)  # inside a 30-day window
    assert await expire_ops(pool, 30 * DAY) == 2
    kept = await ops_after(pool, "support", ids[1], 100)
    assert [e["id"] for e in kept] == ids[2:]  # from the mark: every event left, in order
    assert [e["id"] for e in await ops_after(pool, "support", ids[3], 100)] == ids[4:]
    assert await expire_ops(pool, 30 * DAY) == 0  # nothing more to do


async def test_a_cursor_older_than_the_window_is_told_where_to_resume(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    ids = await learn(memory, model_server, pool, "support", 3)
    await age(pool, ids[:2], 40)
    await expire_ops(pool, 30 * DAY)
    for cursor in (0, ids[0]):  # each missed an event that is gone
        with pytest.raises(CursorExpired) as caught:
            await ops_after(pool, "support", cursor, 100)
        assert caught.value.resume_after == ids[1] and caught.value.field == "after"
        assert caught.value.code == "cursor_expired"
    assert await ops_after(pool, "other-agent", 0, 100) == []  # another agent lost nothing


async def test_batches_take_the_oldest_first_and_stop_when_short(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    ids = await learn(memory, model_server, pool, "support", 5)
    for n, event in enumerate(ids):
        await age(pool, [event], 100 - n)  # the first is the oldest
    assert await expire_ops_batch(pool, 30 * DAY, 2) == 2
    with pytest.raises(CursorExpired) as caught:
        await ops_after(pool, "support", 0, 100)
    assert caught.value.resume_after == ids[1]
    assert await expire_ops(pool, 30 * DAY, batch=2, pause_seconds=0) == 3  # 2 + 1
    assert await ops_after(pool, "support", ids[4], 100) == []


async def test_writes_go_on_while_a_batch_holds_old_rows(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool, database_url: str
) -> None:
    """A retention transaction locks only the old rows it deletes; new events are inserts."""
    ids = await learn(memory, model_server, pool, "support", 2)
    await age(pool, ids, 40)
    other = await asyncpg.connect(database_url, statement_cache_size=0)
    try:
        holder = other.transaction()
        await holder.start()
        await other.execute(
            "select id from stackbone_platform.memory_ops where id = any($1) for update", ids
        )
        more = await asyncio.wait_for(learn(memory, model_server, pool, "support", 1), 5)
        assert await expire_ops(pool, 30 * DAY) == 0  # skips the rows held, no wait
        await holder.rollback()
    finally:
        await other.close()
    assert await expire_ops(pool, 30 * DAY) == 2
    assert [e["id"] for e in await ops_after(pool, "support", ids[1], 100)] == more


async def test_the_web_task_enforces_the_window(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    ids = await learn(memory, model_server, pool, "support", 2)
    await age(pool, ids[:1], 2)
    async with retention_running(pool, RetentionConfig(days=1, interval_seconds=0.05)):
        for _ in range(200):
            if await pool.fetchval(GONE, ids[0]):
                break
            await asyncio.sleep(0.05)
    assert await pool.fetchval(GONE, ids[0])
    assert [e["id"] for e in await ops_after(pool, "support", ids[0], 100)] == ids[1:]


async def test_a_failed_pass_is_logged_by_type_and_not_raised(
    doomed_pool: asyncpg.Pool, pg_admin_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    await drop_database_under(doomed_pool, pg_admin_url)
    assert await retention_pass(doomed_pool, RetentionConfig(days=1)) is None
    assert "ops_retention.failed" in caplog.text


async def test_the_worker_main_process_enforces_the_window_on_its_sweeper_pool(
    memory: Memory,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    database_url: str,
    pool_timeouts: PoolTimeouts,
) -> None:
    """A deployment of workers alone keeps the log bounded: the sweeper task runs retention."""
    ids = await learn(memory, model_server, pool, "support", 2)
    await age(pool, ids[:1], 2)
    call = CallConfig(database_url=database_url, database=pool_timeouts)
    sweep = SweepConfig(
        lost_after_seconds=60, drop_after_seconds=600, interval_seconds=0.5, lease_seconds=60
    )
    retention = RetentionConfig(days=1, interval_seconds=0.05)
    task = SweeperTask(call, sweep, Catalog(agents), retention)
    task.start()
    try:
        await wait_until_gone(pool, ids[0])
    finally:
        assert task.task is not None
        task.task.cancel()
        await asyncio.wait({task.task})
    assert [e["id"] for e in await ops_after(pool, "support", ids[0], 100)] == ids[1:]


async def wait_until_gone(pool: asyncpg.Pool, event: int) -> None:
    for _ in range(400):
        if await pool.fetchval(GONE, event):
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the event was not deleted")
