"""The run's lock against real Postgres: processes starting together while a run builds an
index concurrently, and a wait bounded by the long statement timeout."""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from infra.long_ops import LongOpLimits
from infra.migrate import MigrationLockTimeout, available, migrate, run_migrations

CONCURRENT = "tests.migrations.concurrent"  # a table, then an index built concurrently
RUN_LOCK = 0x5EED_0000_0001  # infra.migrate's advisory lock key, as an operator would see it


async def test_runs_starting_together_build_a_concurrent_index_without_deadlock(
    empty_database_url: str,
) -> None:
    """A waiting run holds no snapshot, so the concurrent build does not wait for it."""
    conns = [await asyncpg.connect(empty_database_url) for _ in range(4)]
    try:
        runs = await asyncio.gather(*(migrate(c, package=CONCURRENT) for c in conns))
    finally:
        for c in conns:
            await c.close()
    assert sorted(v for run in runs for v in run) == [m.version for m in available(CONCURRENT)]


async def test_a_run_gives_up_waiting_after_the_long_statement_timeout(
    empty_database_url: str,
) -> None:
    limits = LongOpLimits(statement_seconds=0.3)
    holder = await asyncpg.connect(empty_database_url)
    try:
        assert await holder.fetchval("select pg_try_advisory_lock($1)", RUN_LOCK)
        with pytest.raises(MigrationLockTimeout, match=r"applying migrations for over 0\.3 s"):
            await run_migrations(empty_database_url, limits)
        await holder.execute("select pg_advisory_unlock($1)", RUN_LOCK)
        # once free, a run applies everything: the default limits, as a 0.3 s statement timeout
        # on each migration's statements would be the load's test, not the lock's
        applied = await run_migrations(empty_database_url, LongOpLimits())
        assert applied == [m.version for m in available()]
    finally:
        await holder.close()
