"""Every error code from a real path; failures never leave a partial write."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import asyncpg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memory.api import Memory, open_memory
from memory.config import MemoryConfig
from memory.contract import _limits as limits
from memory.store._facts import MemoryStore
from testkit.databases import drop_database_under
from testkit.fake_devices import wait_until
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op, stored, update_op


async def seed(memory: Memory, server: ModelServer, *contents: str) -> dict[str, Any]:
    server.answer([add_op(c) for c in contents], "Seeded.")
    result = await memory.add("seed", "support", "u1")
    assert result.error is None, result.error
    return {"requests": len(server.requests)}


async def test_provider_error_is_model_failed_and_not_retried(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await seed(memory, model_server, "Has a dog.")
    before = await stored(pool, "support", "u1")
    kinds = {500: "InternalServerError", 429: "RateLimitError", 400: "BadRequestError"}
    for status in kinds:
        model_server.fail(status)
    for kind in kinds.values():
        result = await memory.add("hi", "support", "u1")
        assert result.error is not None and result.error.code == "memory_model_failed"
        assert result.error.message == f"model provider request failed: {kind}"
    assert len(model_server.requests) == 1 + 3  # one per add: no automatic retry
    assert await stored(pool, "support", "u1") == before


async def test_provider_timeout_is_model_failed(
    pool: asyncpg.Pool, model_server: ModelServer
) -> None:
    memory = open_memory(
        MemoryStore(pool), MemoryConfig(base_url=model_server.url, api_key="k", timeout_seconds=0.3)
    )
    model_server.answer_text(json.dumps({"operations": [], "summary": "late"}), delay=1.0)
    result = await memory.add("hi", "support", "u1")
    assert result.error is not None and result.error.code == "memory_model_failed"
    assert result.error.message.endswith(": APITimeoutError")
    await asyncio.sleep(0.8)
    assert len(model_server.requests) == 1
    assert (await stored(pool, "support", "u1"))["calls"] == []


async def test_unreachable_provider_is_model_failed(pool: asyncpg.Pool) -> None:
    memory = open_memory(
        MemoryStore(pool), MemoryConfig(base_url="http://127.0.0.1:9/v1", api_key="k")
    )
    result = await memory.add("hi", "support", "u1")
    assert result.error is not None and result.error.code == "memory_model_failed"
    assert result.error.message.endswith(": APIConnectionError")
    await memory.aclose()


@pytest.mark.parametrize(
    ("reply", "kwargs"),
    [
        ("not json at all", {}),
        (json.dumps({"operations": []}), {}),
        (json.dumps({"operations": [], "summary": "cut"}), {"finish_reason": "length"}),
        (None, {}),
    ],
)
async def test_invalid_answers_write_nothing(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool, reply: str | None, kwargs: Any
) -> None:
    await seed(memory, model_server, "Has a dog.")
    before = await stored(pool, "support", "u1")
    model_server.answer_text(reply, **kwargs)
    result = await memory.add("hi", "support", "u1")
    assert result.error is not None and result.error.code == "memory_invalid_model_output"
    assert await stored(pool, "support", "u1") == before


invalid_operation_lists = st.one_of(
    st.just([add_op("x" * (limits.MAX_FACT_CHARS + 1))]),
    st.just([add_op(f"fact {i}") for i in range(limits.MAX_FACTS)]),  # 51 with the seeded one
    st.just([update_op("f1", "a"), update_op("f1", "b")]),
    st.sampled_from(["f0", "f2", "F1", "1", ""]).map(lambda h: [update_op(h, "x")]),
    st.just([add_op("has a dog")]),
    st.lists(
        st.fixed_dictionaries(
            {"op": st.just("add"), "handle": st.just(None), "content": st.integers()}
        ),
        min_size=1,
        max_size=3,
    ),
    st.just([{"op": "add", "handle": None, "content": "x", "extra": 1}]),
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=invalid_operation_lists, summary=st.sampled_from(["ok", "s" * 601, "", "ok"]))
async def test_generated_invalid_outputs_never_change_memory(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool, ops: list[Any], summary: str
) -> None:
    """Generated invalid answers: no fact changes and no call record, every time."""
    if not (await stored(pool, "support", "u1"))["facts"]:
        await seed(memory, model_server, "Has a dog.")
    before = await stored(pool, "support", "u1")
    model_server.answer(ops, summary)
    result = await memory.add("hi", "support", "u1")
    assert result.error is not None and result.error.code == "memory_invalid_model_output"
    assert await stored(pool, "support", "u1") == before


async def test_delete_all_during_add_in_flight_conflicts(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """An add whose revision moved while the model answered writes nothing; erasure holds."""
    await seed(memory, model_server, "Has a dog.")
    erasing = asyncio.Event()  # the model answers the add only once the erasure is done
    model_server.answer_text(
        json.dumps({"operations": [add_op("Back again.")], "summary": "s"}), hold=erasing
    )
    asked = len(model_server.requests)
    in_flight = asyncio.create_task(memory.add("hi", "support", "u1"))
    try:
        await wait_until(lambda: len(model_server.requests) > asked)  # it read its revision
        erased = await memory.delete_all("support", "u1")
    finally:
        erasing.set()
    assert erased.data is not None and erased.data.deleted == 2
    result = await in_flight
    assert result.error is not None and result.error.code == "memory_conflict"
    after = await stored(pool, "support", "u1")
    assert (after["facts"], after["calls"]) == ([], [])


async def test_racing_adds_apply_or_conflict(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """Concurrent adds on one person: each applies on the revision it read or conflicts."""
    racers = 8
    for i in range(racers):
        model_server.answer_text(
            json.dumps({"operations": [add_op(f"fact {i}")], "summary": f"call {i}"}), delay=0.05
        )
    results = await asyncio.gather(*(memory.add("hi", "support", "u1") for _ in range(racers)))
    wins = [r for r in results if r.error is None]
    losses = [r for r in results if r.error is not None]
    assert wins, "at least the first writer must win"
    assert all(r.error is not None and r.error.code == "memory_conflict" for r in losses)
    after = await stored(pool, "support", "u1")
    assert len(after["calls"]) == len(wins)
    assert len(after["facts"]) == len(wins)
    assert after["revision"] == len(wins)
    assert len(model_server.requests) == racers


async def test_sequential_adds_never_conflict(memory: Memory, model_server: ModelServer) -> None:
    for i in range(5):
        model_server.answer([add_op(f"fact {i}")], f"call {i}")
        result = await memory.add("hi", "support", "u1")
        assert result.error is None, result.error


async def test_database_write_failure_is_persist_failed_and_rolled_back(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """A write the database refuses mid-transaction leaves no partial change."""
    await seed(memory, model_server, "Has a dog.", "Prefers email.")
    before = await stored(pool, "support", "u1")
    await pool.execute(
        "alter table stackbone_platform.memory_calls"
        " add constraint refuse check (summary <> 'boom')"
    )
    model_server.answer([update_op("f1", "Has two dogs."), add_op("Likes tea.")], "boom")
    result = await memory.add("hi", "support", "u1")
    assert result.error is not None and result.error.code == "memory_persist_failed"
    assert await stored(pool, "support", "u1") == before


async def test_missing_schema_is_reported(
    empty_database_url: str, memory_config: MemoryConfig, model_server: ModelServer
) -> None:
    pool = await asyncpg.create_pool(empty_database_url, min_size=1, max_size=2)
    assert pool is not None
    try:
        memory = open_memory(MemoryStore(pool), memory_config)
        for result in (
            await memory.add("hi", "support", "u1"),
            await memory.recall("support", "u1"),
            await memory.delete_all("support", "u1"),
        ):
            assert result.error is not None and result.error.code == "memory_schema_missing"
        assert model_server.requests == []
    finally:
        await pool.close()


async def test_missing_capability_is_reported(
    pool: asyncpg.Pool, memory_config: MemoryConfig, model_server: ModelServer
) -> None:
    """A platform schema that does not advertise memory.basic refuses every operation."""
    await pool.execute("delete from stackbone_platform.capabilities where name = 'memory.basic'")
    memory = open_memory(MemoryStore(pool), memory_config)
    for result in (
        await memory.add("hi", "support", "u1"),
        await memory.recall("support", "u1"),
        await memory.delete_all("support", "u1"),
    ):
        assert result.error is not None and result.error.code == "capability_unavailable"
    assert model_server.requests == []


async def test_database_gone_is_unavailable(
    doomed_pool: asyncpg.Pool,
    memory_config: MemoryConfig,
    model_server: ModelServer,
    pg_admin_url: str,
) -> None:
    memory = open_memory(MemoryStore(doomed_pool), memory_config)
    assert (await memory.recall("support", "u1")).error is None  # capability cached
    await drop_database_under(doomed_pool, pg_admin_url)
    for result in (
        await memory.recall("support", "u1"),
        await memory.delete_all("support", "u1"),
        await memory.add("hi", "support", "u1"),
    ):
        assert result.error is not None and result.error.code == "memory_unavailable"
    assert model_server.requests == []
