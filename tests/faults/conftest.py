"""Fixtures of the fault tests: their own throwaway server and a migrated database per test.

Every test leaves the server running and answering (resumed, or restarted after a kill), so a
failing test never stalls the next one.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest

from infra.migrate import migrate
from testkit.databases import with_database
from tests.faults.server import FaultServer


@pytest.fixture(scope="session")
def fault_server() -> Iterator[FaultServer]:
    server = FaultServer()
    server.start()

    async def template() -> None:
        conn = await asyncpg.connect(server.url)
        await conn.execute('create database "fault_template"')
        await conn.close()
        conn = await asyncpg.connect(with_database(server.url, "fault_template"))
        await migrate(conn)
        await conn.close()

    asyncio.run(template())
    yield server
    server.close()


@pytest.fixture
async def fault_db(fault_server: FaultServer) -> AsyncIterator[str]:
    """A migrated database of this test's own on the fault server."""
    name = "f_" + uuid.uuid4().hex[:12]
    admin = await asyncpg.connect(fault_server.url)
    await admin.execute(f'create database "{name}" template "fault_template"')
    await admin.close()
    yield with_database(fault_server.url, name)
    if fault_server.stalled:
        fault_server.resume()
    admin = await asyncpg.connect(fault_server.url)
    await admin.execute(f'drop database if exists "{name}" with (force)')
    await admin.close()
