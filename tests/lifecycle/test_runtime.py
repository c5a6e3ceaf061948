"""A job process's runtime: its own small pool, memory ready before the caller is greeted."""

from __future__ import annotations

import asyncpg
import pytest

from callmemory.runtime import JOB_POOL_MAX, open_runtime
from infra.database import PoolTimeouts
from memory.config import MemoryConfig
from memory.settings import CodeDefaults
from testkit.call_harness import job_runtime


async def test_runtime_opens_a_small_pool_and_checks_the_capability_early(
    database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", database_url)
    runtime = await open_runtime()
    try:
        assert runtime.pool.get_max_size() == JOB_POOL_MAX
        seen: list[str] = []
        async with runtime.pool.acquire() as conn:
            conn.add_query_logger(lambda record: seen.append(record.query))
        result = await runtime.memory.recall("support", "+34 1")
        assert result.error is None
        assert len(seen) == 1  # recall is a single query: the capability was checked at open
    finally:
        await runtime.aclose()


async def test_runtime_opens_without_a_schema_and_recall_says_why(
    empty_database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", empty_database_url)
    runtime = await open_runtime()
    try:
        result = await runtime.memory.recall("support", "+34 1")
        assert result.error is not None and result.error.code == "memory_schema_missing"
    finally:
        await runtime.aclose()


CODE = CodeDefaults(read=True, save=False, identity_key="phoneNumber")


async def test_a_calls_settings_read_is_its_capability_check_so_two_statements_precede_a_greeting(
    database_url: str, memory_config: MemoryConfig, pool_timeouts: PoolTimeouts
) -> None:
    runtime = job_runtime(database_url, memory_config, pool_timeouts)
    try:
        await runtime.connect()
        seen: list[str] = []
        async with runtime.pool.acquire() as conn:
            conn.add_query_logger(lambda record: seen.append(record.query))
        settings = await runtime.call_settings("support", CODE)
        result = await runtime.memory.recall("support", "+34 1")
        assert (settings.read, result.error) == (True, None)
        assert len(seen) == 2  # the settings (capability checked by it), then recall alone
    finally:
        await runtime.aclose()


async def test_a_missing_capability_still_gives_the_settings_and_recall_says_why(
    database_url: str, pool: asyncpg.Pool, memory_config: MemoryConfig, pool_timeouts: PoolTimeouts
) -> None:
    await pool.execute("delete from stackbone_platform.capabilities where name = 'memory.basic'")
    runtime = job_runtime(database_url, memory_config, pool_timeouts)
    try:
        await runtime.connect()
        assert (await runtime.call_settings("support", CODE)).read is True
        result = await runtime.memory.recall("support", "+34 1")
        assert result.error is not None and result.error.code == "capability_unavailable"
    finally:
        await runtime.aclose()
