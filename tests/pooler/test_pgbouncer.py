"""Pools behind a real PgBouncer in transaction mode (`DATABASE_POOLER=transaction`).

PgBouncer shares `POOL_SIZE` server connections among every client of a database, so a client's
consecutive transactions run on different server connections: named prepared statements and
start-up settings break, the role's own settings and unnamed statements do not.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from urllib.parse import urlsplit

import asyncpg
import pytest

from infra.database import PoolTimeouts, create_pool, new_pool
from infra.long_ops import LongOpLimits, ThroughPooler
from infra.migrate import run_migrations
from infra.pooler import pooled_limits_differ
from testkit.pgbouncer import PgBouncer, PgBouncerMissing, find_binary
from tests.memory.test_cli_and_migrations import cli

POOLED = PoolTimeouts(statement_seconds=0.3, lock_seconds=0.2, pooler="transaction")
CLIENTS = 120


@pytest.fixture(scope="module")
def bouncer(pg_admin_url: str) -> Iterator[PgBouncer]:
    try:
        find_binary()
    except PgBouncerMissing as exc:
        if os.environ.get("REQUIRE_PGBOUNCER"):
            raise
        pytest.skip(str(exc))
    started = PgBouncer(pg_admin_url)
    started.start()
    yield started
    started.stop()


def _name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


async def _role_limits(url: str, statement_ms: int, lock_ms: int) -> None:
    """What docs/deployment.md asks of the operator: the limits on the role, in the database."""
    conn = await asyncpg.connect(url)
    name = _name(url)
    await conn.execute(
        f'alter role current_user in database "{name}" set statement_timeout = {statement_ms}'
    )
    await conn.execute(f'alter role current_user in database "{name}" set lock_timeout = {lock_ms}')
    await conn.close()


async def _busy(pool: asyncpg.Pool, i: int) -> None:
    """A single statement, then a transaction of two: what the store's reads and writes do."""
    assert await pool.fetchval("select $1::int + 1", i) == i + 1
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(
            "insert into stackbone_platform.memory_ops_expired values ($1, $2)", f"a{i}", i
        )
        assert (
            await conn.fetchval(
                "select through_id from stackbone_platform.memory_ops_expired where agent_id = $1",
                f"a{i}",
            )
            == i
        )


async def test_a_pool_made_for_the_pooler_shares_few_server_connections(
    bouncer: PgBouncer, direct_database_url: str
) -> None:
    pool = await create_pool(
        bouncer.url_for(_name(direct_database_url)), max_size=40, timeouts=POOLED
    )
    try:
        results = await asyncio.gather(*(_busy(pool, i) for i in range(CLIENTS)))
    finally:
        await pool.close()
    assert len(results) == CLIENTS


async def test_named_statements_break_behind_the_pooler(
    bouncer: PgBouncer, direct_database_url: str
) -> None:
    """Why the setting exists: asyncpg's statement cache is wrong behind PgBouncer."""
    url = bouncer.url_for(_name(direct_database_url))
    pool = await asyncpg.create_pool(url, min_size=10, max_size=40)  # cache on, no start-up limits
    assert pool is not None
    try:
        results = await asyncio.gather(
            *(_busy(pool, i) for i in range(CLIENTS)), return_exceptions=True
        )
    finally:
        pool.terminate()
    assert any(isinstance(r, asyncpg.InvalidSQLStatementNameError) for r in results)


async def test_a_direct_pool_is_refused_by_the_pooler(
    bouncer: PgBouncer, direct_database_url: str
) -> None:
    """Start-up `statement_timeout` is an unknown parameter to a default PgBouncer."""
    url = bouncer.url_for(_name(direct_database_url))
    with pytest.raises(asyncpg.ProtocolViolationError, match="statement_timeout"):
        await create_pool(url, timeouts=PoolTimeouts())


async def test_the_roles_limits_reach_every_server_connection(
    bouncer: PgBouncer, direct_database_url: str
) -> None:
    await _role_limits(direct_database_url, 300, 200)
    pool = await new_pool(bouncer.url_for(_name(direct_database_url)), max_size=8, timeouts=POOLED)
    try:
        assert await pooled_limits_differ(pool, 0.3, 0.2) == []
        assert await pooled_limits_differ(pool, 5, 0.2) == ["statement_timeout"]
        with pytest.raises(asyncpg.QueryCanceledError):
            await pool.execute("select pg_sleep(2)")
    finally:
        await pool.close()


async def test_without_the_roles_limits_the_start_up_check_names_them(
    bouncer: PgBouncer, direct_database_url: str
) -> None:
    pool = await new_pool(bouncer.url_for(_name(direct_database_url)), timeouts=POOLED)
    try:
        assert await pooled_limits_differ(pool, 0.3, 0.2) == ["lock_timeout", "statement_timeout"]
    finally:
        await pool.close()


async def test_migrations_through_the_pooler_are_refused_naming_the_direct_url(
    bouncer: PgBouncer, direct_database_url: str
) -> None:
    with pytest.raises(ThroughPooler, match="DATABASE_DIRECT_URL"):
        await run_migrations(bouncer.url_for(_name(direct_database_url)), LongOpLimits())


async def test_the_migrate_command_needs_the_direct_url_behind_the_pooler(
    bouncer: PgBouncer, direct_database_url: str
) -> None:
    pooled = bouncer.url_for(_name(direct_database_url))
    env = {"DATABASE_URL": pooled, "DATABASE_POOLER": "transaction"}
    code, body = await cli("migrate", env={**env, "MEMORY_MIGRATE_ON_START": "0"})
    assert code == 1 and "DATABASE_DIRECT_URL" in body["stderr"], body
    code, body = await cli(
        "migrate", env={**env, "MEMORY_MIGRATE_ON_START": "0", "DATABASE_DIRECT_URL": pooled}
    )  # the pooler's address given as the direct one: refused at connect, still named
    assert code == 1 and "DATABASE_DIRECT_URL" in body["stderr"], body
    code, body = await cli("migrate", env={**env, "DATABASE_DIRECT_URL": direct_database_url})
    assert (code, body) == (0, {"applied": []})
