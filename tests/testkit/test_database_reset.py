"""The test databases' reuse (`testkit.database_reset`, `testkit.spare_databases`): a database
whose rows changed comes back equal to the template, rows and sequences; one whose schema
changed is never reused."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable

import asyncpg
import pytest

from testkit.database_reset import Baseline, capture, reset
from testkit.databases import drop_database, superuser_missing, with_database
from testkit.spare_databases import SpareDatabases

SEQUENCES = "select sequencename, last_value from pg_sequences order by 1"


async def contents(conn: asyncpg.Connection, baseline: Baseline) -> dict[str, object]:
    """Every table's rows (as sorted text) and every sequence's value."""
    found: dict[str, object] = {}
    for schema, table in baseline.tables:
        rows = await conn.fetch(f'select t::text as r from "{schema}"."{table}" t order by 1')
        found[table] = [r["r"] for r in rows]
    found["sequences"] = [tuple(r) for r in await conn.fetch(SEQUENCES)]
    return found


@pytest.fixture(name="superuser")
async def _superuser(pg_admin_url: str) -> None:
    if reason := await superuser_missing(pg_admin_url):
        pytest.skip(reason)


@pytest.fixture(name="clone")
async def _clone(pg_admin_url: str, template_db: str, superuser: None) -> AsyncIterator[str]:
    admin = await asyncpg.connect(pg_admin_url)
    await admin.execute(f'create database reset_probe template "{template_db}"')
    yield with_database(pg_admin_url, "reset_probe")
    await drop_database(admin, "reset_probe")
    await admin.close()


async def baseline_of(pg_admin_url: str, template_db: str) -> tuple[Baseline, dict[str, object]]:
    conn = await asyncpg.connect(with_database(pg_admin_url, template_db))
    try:
        baseline = await capture(conn)
        return baseline, await contents(conn, baseline)
    finally:
        await conn.close()


async def test_rows_written_removed_and_changed_come_back_as_the_templates(
    pg_admin_url: str, template_db: str, clone: str
) -> None:
    baseline, template = await baseline_of(pg_admin_url, template_db)
    assert baseline.rows and baseline.sequences[0]  # the template has rows and sequences
    conn = await asyncpg.connect(clone)
    await conn.execute(
        """insert into stackbone_platform.memory_ops
               (agent_id, user_id, final, revision, model, latency_ms, ops)
           select 'a', 'u', true, 1, 'm', 1, '[]'::jsonb from generate_series(1, 3)"""
    )
    await conn.execute("delete from stackbone_platform.schema_migrations where version = 1")
    await conn.execute("update stackbone_platform.capabilities set name = name || '-changed'")
    assert await contents(conn, baseline) != template

    assert await reset(conn, baseline) is True
    assert await contents(conn, baseline) == template
    await conn.close()


@pytest.mark.parametrize(
    "change",
    [
        "create table stackbone_platform.extra (id int)",
        "alter table stackbone_platform.memory_ops add column extra int",
        "drop index stackbone_platform.memory_ops_pair",
        "revoke all on stackbone_platform.memory_ops from public",
        "create function stackbone_platform.f() returns int language sql as 'select 1'",
        "alter sequence stackbone_platform.memory_ops_id_seq increment by 2",
    ],
)
async def test_a_changed_schema_is_never_reused_and_keeps_its_rows(
    pg_admin_url: str, template_db: str, clone: str, change: str
) -> None:
    baseline, _ = await baseline_of(pg_admin_url, template_db)
    conn = await asyncpg.connect(clone)
    await conn.execute("delete from stackbone_platform.schema_migrations where version = 1")
    await conn.execute(change)
    assert await reset(conn, baseline) is False
    assert not await conn.fetchval(
        "select exists (select from stackbone_platform.schema_migrations where version = 1)"
    )
    await conn.close()


async def test_spares_hand_a_clean_database_out_again_and_drop_a_changed_one(
    pg_admin_url: str, template_db: str, superuser: None
) -> None:
    spares = SpareDatabases(pg_admin_url, template_db, ahead=1, reuse=True)
    admin = await asyncpg.connect(pg_admin_url)
    try:
        first = await asyncio.to_thread(spares.take)
        held = await asyncpg.connect(with_database(pg_admin_url, first))  # left open: ended
        await held.execute("insert into stackbone_platform.capabilities (name) values ('x')")
        spares.hand_back(first)
        second = await asyncio.to_thread(spares.take)  # the clone made when `first` was taken
        third = await asyncio.to_thread(spares.take)  # `first`, emptied
        assert third == first and second != first
        reused = await asyncpg.connect(with_database(pg_admin_url, first))
        assert not await reused.fetchval(
            "select exists (select from stackbone_platform.capabilities where name = 'x')"
        )
        await reused.execute("create table stackbone_platform.extra (id int)")
        await reused.close()
        spares.hand_back(first)
        spares.hand_back(second)
        fourth = await asyncio.to_thread(spares.take)
        assert fourth != first
        exists = "select exists (select from pg_database where datname = $1)"
        await _until(lambda: admin.fetchval(exists, first), False)
        assert held.is_closed() or await _closed(held)
    finally:
        spares.close()
        await admin.close()


async def _until(read: Callable[[], Awaitable[object]], wanted: object) -> None:
    for _ in range(500):
        if await read() == wanted:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never became {wanted!r}")


async def _closed(conn: asyncpg.Connection) -> bool:
    try:
        await conn.fetchval("select 1")
    except (asyncpg.PostgresError, asyncpg.InterfaceError, OSError):
        return True
    return False
