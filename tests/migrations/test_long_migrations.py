"""Migrations as long operations, against real Postgres: their own connection and limits.

The runner is pointed at test packages of migrations (`tests/migrations/<name>/`); the shipped
migrations are checked through the CLI, under a pooled statement timeout too short for them.
"""

from __future__ import annotations

import asyncio
import os
import sys

import asyncpg
import pytest

from infra.database import PoolTimeouts, create_pool
from infra.database_failure import MigrationFailed
from infra.long_ops import LongOpLimits
from infra.migrate import MigrationLockTimeout, available, run_migrations

pytestmark = pytest.mark.processes  # starts processes: not in `make check`

S = "stackbone_platform"
SLOW = "tests.migrations.slow"
LOCKING = "tests.migrations.locking"
TINY = PoolTimeouts(command_seconds=2.0, statement_seconds=0.2, lock_seconds=0.2)


async def _versions(url: str) -> list[int]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(f"select version from {S}.schema_migrations order by version")
    finally:
        await conn.close()
    return [r["version"] for r in rows]


async def test_a_migration_longer_than_the_pooled_statement_timeout_succeeds(
    empty_database_url: str,
) -> None:
    pool = await create_pool(empty_database_url, timeouts=TINY)
    try:  # the call path's pool would cancel it
        with pytest.raises(asyncpg.QueryCanceledError, match="statement timeout"):
            await pool.execute("select pg_sleep(0.6)")
        assert await run_migrations(empty_database_url, LongOpLimits(), SLOW) == [1]
        assert await pool.fetchval(f"select to_regclass('{S}.slow_done') is not null")
    finally:
        await pool.close()


async def test_a_bounded_long_statement_timeout_still_cancels_the_migration(
    empty_database_url: str,
) -> None:
    with pytest.raises(MigrationFailed, match=r"^migration 0001_slow failed: .*statement timeout"):
        await run_migrations(empty_database_url, LongOpLimits(statement_seconds=0.2), SLOW)
    assert await _versions(empty_database_url) == []


async def test_processes_starting_together_wait_for_a_long_run_past_the_lock_timeout(
    empty_database_url: str,
) -> None:
    limits = LongOpLimits(lock_seconds=0.1, lock_attempts=1)  # far below the 0.6 s migration
    runs = await asyncio.gather(
        *(run_migrations(empty_database_url, limits, SLOW) for _ in range(3))
    )
    assert sorted(v for run in runs for v in run) == [1]
    assert await _versions(empty_database_url) == [1]


async def _busy_table(url: str) -> asyncpg.Connection:
    """A connection inside a transaction that holds a lock on `public.busy` (a long read)."""
    holder = await asyncpg.connect(url)
    await holder.execute("create table public.busy (x int)")
    await holder.execute("begin")
    await holder.execute("lock table public.busy in access share mode")
    return holder


async def test_a_migration_behind_a_held_lock_fails_in_one_line_then_succeeds_once_released(
    empty_database_url: str,
) -> None:
    holder = await _busy_table(empty_database_url)
    limits = LongOpLimits(lock_seconds=0.2, lock_attempts=2)
    try:
        with pytest.raises(MigrationLockTimeout) as caught:
            await asyncio.wait_for(run_migrations(empty_database_url, limits, LOCKING), 10)
        message = str(caught.value)
        assert len(message.splitlines()) == 1
        assert message.startswith("migration 0001_alter: gave up waiting for a lock held by")
        assert "lock_timeout 0.2 s, tried 2 times" in message
        assert await _versions(empty_database_url) == []
        assert await holder.fetchval("select count(*) from public.busy") == 0  # still reading
    finally:
        await holder.execute("commit")
        await holder.close()
    assert await run_migrations(empty_database_url, limits, LOCKING) == [1]
    assert await _versions(empty_database_url) == [1]


async def test_a_lock_released_between_attempts_lets_the_retry_succeed(
    empty_database_url: str,
) -> None:
    holder = await _busy_table(empty_database_url)

    async def release_later() -> None:
        await asyncio.sleep(0.5)  # after the first 0.2 s wait, before the retry 1 s later
        await holder.execute("commit")

    releasing = asyncio.ensure_future(release_later())
    try:
        limits = LongOpLimits(lock_seconds=0.2, lock_attempts=3)
        assert await run_migrations(empty_database_url, limits, LOCKING) == [1]
    finally:
        await releasing
        await holder.close()


async def test_cli_migrate_ignores_a_pooled_statement_timeout_too_short_for_the_migrations(
    empty_database_url: str,
) -> None:
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "worker.cli",
        "memory",
        "migrate",
        env={
            **os.environ,
            "DATABASE_URL": empty_database_url,
            "DATABASE_STATEMENT_TIMEOUT_SECONDS": "0.001",  # 1 ms: no migration fits
            "DATABASE_LOCK_TIMEOUT_SECONDS": "0.001",
        },
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await proc.communicate()
    assert proc.returncode == 0, err.decode()
    assert await _versions(empty_database_url) == [m.version for m in available()]
    assert b'"applied"' in out
