"""Fixtures: a real Postgres (embedded, or `TEST_DATABASE_URL`) with one database per test,
cloned from a migrated template, and the local model server."""

from __future__ import annotations

import asyncio
import os
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest

from infra.database import create_pool, start_embedded
from infra.logs import configure_logging
from infra.migrate import migrate
from memory.api import Memory, open_memory
from memory.config import MemoryConfig
from memory.store._facts import MemoryStore
from testkit.databases import with_database
from testkit.model_server import ModelServer

configure_logging()


@pytest.fixture(scope="session")
def pg_admin_url() -> Iterator[str]:
    if url := os.environ.get("TEST_DATABASE_URL"):
        yield url
        return
    data_dir = Path(tempfile.mkdtemp(prefix="caller-memory-pgtest-")) / "pgdata"
    url = start_embedded(data_dir, cleanup_mode="delete")

    async def tune() -> None:
        conn = await asyncpg.connect(url)
        await conn.execute("alter system set fsync = off")
        await conn.execute("alter system set synchronous_commit = off")
        await conn.execute("select pg_reload_conf()")
        await conn.close()

    asyncio.run(tune())
    yield url


@pytest.fixture(scope="session")
def template_db(pg_admin_url: str) -> Iterator[str]:
    name = "tmpl_" + uuid.uuid4().hex[:12]

    async def create() -> None:
        admin = await asyncpg.connect(pg_admin_url)
        await admin.execute(f'create database "{name}"')
        await admin.close()
        conn = await asyncpg.connect(with_database(pg_admin_url, name))
        await migrate(conn)
        await conn.close()

    async def drop() -> None:
        admin = await asyncpg.connect(pg_admin_url)
        await admin.execute(f'drop database if exists "{name}" with (force)')
        await admin.close()

    asyncio.run(create())
    yield name
    asyncio.run(drop())


async def _fresh_database(admin_url: str, template: str | None) -> str:
    name = "t_" + uuid.uuid4().hex[:12]
    admin = await asyncpg.connect(admin_url)
    clause = f' template "{template}"' if template else ""
    await admin.execute(f'create database "{name}"{clause}')
    await admin.close()
    return name


async def _drop(admin_url: str, name: str) -> None:
    admin = await asyncpg.connect(admin_url)
    await admin.execute(f'drop database if exists "{name}" with (force)')
    await admin.close()


@pytest.fixture
async def database_url(pg_admin_url: str, template_db: str) -> AsyncIterator[str]:
    """A migrated database of its own for this test."""
    name = await _fresh_database(pg_admin_url, template_db)
    yield with_database(pg_admin_url, name)
    await _drop(pg_admin_url, name)


@pytest.fixture
async def empty_database_url(pg_admin_url: str) -> AsyncIterator[str]:
    """A database with no schema at all."""
    name = await _fresh_database(pg_admin_url, None)
    yield with_database(pg_admin_url, name)
    await _drop(pg_admin_url, name)


@pytest.fixture
async def pool(database_url: str) -> AsyncIterator[asyncpg.Pool]:
    p = await create_pool(database_url, min_size=1, max_size=10)  # the service's own pool
    yield p
    await p.close()


@pytest.fixture
async def model_server() -> AsyncIterator[ModelServer]:
    server = ModelServer()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
def memory_config(model_server: ModelServer) -> MemoryConfig:
    return MemoryConfig(base_url=model_server.url, api_key="test-key", timeout_seconds=5)


@pytest.fixture
async def memory(pool: asyncpg.Pool, memory_config: MemoryConfig) -> AsyncIterator[Memory]:
    memory = open_memory(MemoryStore(pool), memory_config)
    yield memory
    await memory.aclose()


@pytest.fixture
async def doomed_pool(pg_admin_url: str, template_db: str) -> AsyncIterator[asyncpg.Pool]:
    """A pool whose database is dropped underneath it."""
    name = "t_" + uuid.uuid4().hex[:12]
    admin = await asyncpg.connect(pg_admin_url)
    await admin.execute(f'create database "{name}" template "{template_db}"')
    url = with_database(pg_admin_url, name)
    pool = await asyncpg.create_pool(url, min_size=1, max_size=2)
    assert pool is not None
    yield pool
    pool.terminate()
    await admin.execute(f'drop database if exists "{name}" with (force)')
    await admin.close()
