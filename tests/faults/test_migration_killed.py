"""A non-transactional migration (`CREATE INDEX CONCURRENTLY`) cut by a server kill.

The kill lands while the index is being built: Postgres keeps it, INVALID. The next run drops
it, builds it again and records the migration; the one before it stays applied.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import asyncpg
import pytest

from infra.database_failure import MigrationFailed
from infra.long_ops import LongOpLimits
from infra.migrate import run_migrations
from testkit.databases import with_database
from tests.faults.server import FaultServer

PACKAGE = "tests.migrations.concurrent"
_INDEX_VALID = """select i.indisvalid from pg_index i join pg_class c on c.oid = i.indexrelid
    where c.relname = 'built_slow'"""


@pytest.fixture
async def empty_fault_db(fault_server: FaultServer) -> AsyncIterator[str]:
    name = "m_" + uuid.uuid4().hex[:12]
    admin = await asyncpg.connect(fault_server.url)
    await admin.execute(f'create database "{name}"')
    await admin.close()
    yield with_database(fault_server.url, name)
    admin = await asyncpg.connect(fault_server.url)
    await admin.execute(f'drop database if exists "{name}" with (force)')
    await admin.close()


async def _index_state(url: str) -> bool | None:
    """None: no index yet; False: being built (or left by a crash); True: valid."""
    conn = await asyncpg.connect(url)
    try:
        valid: bool | None = await conn.fetchval(_INDEX_VALID)
        return valid
    finally:
        await conn.close()


async def _versions(url: str) -> list[int]:
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch("select version from stackbone_platform.schema_migrations")
    finally:
        await conn.close()
    return sorted(r["version"] for r in rows)


async def test_an_index_build_cut_by_a_server_kill_is_finished_by_the_next_run(
    fault_server: FaultServer, empty_fault_db: str
) -> None:
    running = asyncio.ensure_future(run_migrations(empty_fault_db, LongOpLimits(), PACKAGE))
    for _ in range(400):  # until the build has started: its index exists, not yet valid
        if running.done() or await _index_state(empty_fault_db) is False:
            break
        await asyncio.sleep(0.025)
    assert not running.done(), "the build ended before the kill"
    fault_server.kill()
    with pytest.raises((OSError, asyncpg.InterfaceError, MigrationFailed)):
        await asyncio.wait_for(running, 30)
    fault_server.start()
    assert await _index_state(empty_fault_db) is False  # left INVALID by the crash
    assert await _versions(empty_fault_db) == [1]

    assert await run_migrations(empty_fault_db, LongOpLimits(), PACKAGE) == [2]
    assert await _index_state(empty_fault_db) is True
    assert await _versions(empty_fault_db) == [1, 2]
    conn = await asyncpg.connect(empty_fault_db, server_settings={"enable_seqscan": "off"})
    try:
        plan = await conn.fetchval(
            "explain (format json) select * from stackbone_platform.built"
            " where stackbone_platform.slow_key(x) = 5"
        )
    finally:
        await conn.close()
    assert "built_slow" in plan  # the rebuilt index serves queries
