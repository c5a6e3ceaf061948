"""An add is two statements: the read (published guidance included) and the write; no
BEGIN/COMMIT, no per-step queries, no type introspection."""

from __future__ import annotations

from collections.abc import AsyncIterator

import asyncpg
import pytest

from infra.database import PoolTimeouts, create_pool
from memory.api import open_memory
from memory.config import MemoryConfig
from memory.contract._errors import Conflict
from memory.contract._models import CallMetadata
from memory.contract._operations import Plan
from memory.store import _write_statement as write_statement
from memory.store._facts import MemoryStore
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op, delete_op, stored, update_op


@pytest.fixture
async def logged(
    database_url: str, pool_timeouts: PoolTimeouts
) -> AsyncIterator[tuple[asyncpg.Pool, list[str]]]:
    """The service's pool with one fresh connection, logging every statement it runs."""
    pool = await create_pool(database_url, min_size=1, max_size=1, timeouts=pool_timeouts)
    seen: list[str] = []
    async with pool.acquire() as conn:
        conn.add_query_logger(lambda record: seen.append(record.query))
    yield pool, seen
    await pool.close()


async def test_an_add_writes_with_one_statement_from_a_fresh_connection(
    logged: tuple[asyncpg.Pool, list[str]], model_server: ModelServer, memory_config: MemoryConfig
) -> None:
    pool, seen = logged
    memory = open_memory(MemoryStore(pool), memory_config)
    model_server.answer([add_op("Has a dog."), add_op("Prefers email.")])
    assert (await memory.add("hi", "support", "u1")).error is None
    # capability check (once per process), snapshot with the guidance, write: nothing else
    assert len(seen) == 3
    assert seen[-1] == write_statement.WRITE
    seen.clear()
    model_server.answer([update_op("f1", "Has two dogs."), delete_op("f2"), add_op("Likes tea.")])
    result = await memory.add("hi", "support", "u1")
    assert result.data is not None
    assert [f.content for f in result.data.facts] == ["Has two dogs.", "Likes tea."]
    assert len(seen) == 2  # snapshot (guidance included), write
    assert seen.count(write_statement.WRITE) == 1


async def test_a_write_and_a_conflicting_write_are_one_statement_each(
    logged: tuple[asyncpg.Pool, list[str]],
) -> None:
    pool, seen = logged
    store = MemoryStore(pool)
    read = await store.snapshot("support", "u1")
    seen.clear()
    await store.write("support", "u1", read, Plan((), (), ("Has a dog.",), "s"), CallMetadata())
    assert seen == [write_statement.WRITE]
    before = await stored(pool, "support", "u1")
    seen.clear()
    with pytest.raises(Conflict):
        await store.write("support", "u1", read, Plan((), (), ("Has a cat.",), "s"), CallMetadata())
    assert seen == [write_statement.WRITE]
    assert await stored(pool, "support", "u1") == before
