"""A job process's runtime: its own small pool, memory ready before the caller is greeted."""

from __future__ import annotations

import pytest

from callmemory.runtime import JOB_POOL_MAX, open_runtime


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
