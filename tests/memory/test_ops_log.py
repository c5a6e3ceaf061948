"""The `memory.ops` event: the listeners get it once per write that changed something, and the
ops log replays the same JSON from any cursor, in order; passes write the call record only
when final."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest

from memory.api import Memory
from memory.ops._event import OpsEvent
from memory.store._ops_log import ops_after
from testkit.fake_devices import wait_until
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op, delete_op, update_op

CALLS = "select count(*) from stackbone_platform.memory_calls where user_id = $1"


async def said(memory: Memory, server: ModelServer, *ops: dict[str, Any]) -> None:
    server.answer(list(ops), "A call.")
    result = await memory.add("hi", "support", "u1", {"run_id": "job-7"})
    assert result.error is None, result.error


async def test_listeners_and_log_get_the_same_events_in_revision_order(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    heard: list[OpsEvent] = []
    memory.on("ops", heard.append)
    await said(memory, model_server, add_op("Lives in Lima."), add_op("Has a cat."))
    await said(memory, model_server)  # an empty pass: no event, no log row
    await said(memory, model_server, update_op("f1", "Lives in Cusco."), delete_op("f2"))
    assert len(heard) == 2
    first, second = heard
    assert [o["op"] for o in first["ops"]] == ["add", "add"]
    assert [o["text"] for o in first["ops"]] == ["Lives in Lima.", "Has a cat."]
    assert (first["contact"], first["call_id"], first["final"]) == ("u1", "job-7", True)
    assert first["memory"]["revision"] < second["memory"]["revision"]
    deleted, updated = second["ops"]
    assert (deleted["op"], deleted["id"], deleted["text"]) == (
        "delete",
        first["ops"][1]["id"],
        None,
    )
    assert deleted["valid_to"] is not None and deleted["version"] == first["ops"][1]["version"]
    assert (updated["op"], updated["id"], updated["text"]) == (
        "update",
        first["ops"][0]["id"],
        "Lives in Cusco.",
    )
    assert updated["supersedes"] == first["ops"][0]["version"]  # the version it closed
    assert updated["valid_from"] == deleted["valid_to"]  # one write, one instant
    assert await ops_after(pool, "support", 0, 10) == heard  # the same JSON, replayed


async def test_the_log_replays_from_any_cursor(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    for n in range(4):
        await said(memory, model_server, add_op(f"Fact {n}."))
    every = await ops_after(pool, "support", 0, 100)
    ids = [e["id"] for e in every]
    assert ids == sorted(ids) and len(set(ids)) == 4
    for i, cursor in enumerate([0, *ids]):
        assert await ops_after(pool, "support", cursor, 100) == every[i:]
    assert await ops_after(pool, "support", ids[0], 2) == every[1:3]  # the limit
    assert await ops_after(pool, "other-agent", 0, 100) == []


async def test_a_failing_listener_never_breaks_the_save(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool, caplog: pytest.LogCaptureFixture
) -> None:
    later: list[OpsEvent] = []

    def broken(event: OpsEvent) -> None:
        raise RuntimeError("listener bug")

    async def broken_later(event: OpsEvent) -> None:
        raise RuntimeError("async listener bug")

    memory.on("ops", broken)
    memory.on("ops", broken_later)
    memory.on("ops", later.append)
    await said(memory, model_server, add_op("Secret fact text."))
    await memory.listeners.drain()
    assert len(later) == 1  # the others still ran, the add was saved
    failures = [r for r in caplog.records if "memory.ops_listener_failed" in r.getMessage()]
    assert len(failures) == 2
    assert "Secret fact text." not in caplog.text


async def test_an_unknown_event_name_is_refused(memory: Memory) -> None:
    with pytest.raises(ValueError, match="event"):
        memory.on("facts", print)


async def test_only_the_final_pass_writes_the_call_record(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    heard: list[OpsEvent] = []
    memory.on("ops", heard.append)
    model_server.answer([add_op("Likes tea.")], "partial")
    first = await memory.consolidate("hi", "support", "u1", turn=1, final=False)
    assert first.error is None and first.data is not None and first.data.call is None
    assert await pool.fetchval(CALLS, "u1") == 0
    model_server.answer([add_op("Likes jazz.")], "The whole call.")
    last = await memory.consolidate(
        "bye", "support", "u1", turn=2, final=True, call={"run_id": "job-9"}
    )
    assert last.data is not None and last.data.call is not None
    assert last.data.call.summary == "The whole call."
    assert await pool.fetchval(CALLS, "u1") == 1
    assert [(e["turn"], e["final"], e["call_id"]) for e in heard] == [
        (1, False, None),
        (2, True, "job-9"),
    ]


async def test_a_pass_that_conflicts_writes_nothing_and_emits_nothing(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    heard: list[OpsEvent] = []
    memory.on("ops", heard.append)
    erased = asyncio.Event()  # the model answers once the revision moved
    model_server.answer_text(
        '{"operations": [{"op": "add", "handle": null, "content": "Late."}], "summary": "s"}',
        hold=erased,
    )
    running = asyncio.ensure_future(memory.consolidate("hi", "support", "u1", turn=1, final=False))
    try:
        await wait_until(lambda: len(model_server.requests) == 1)  # read done, the model answering
        await memory.delete_all("support", "u1")  # moves the revision while the model answers
    finally:
        erased.set()
    result = await running
    assert result.error is not None and result.error.code == "memory_conflict"
    assert heard == [] and await ops_after(pool, "support", 0, 10) == []
