"""Agents and people never see or touch each other's memory."""

from __future__ import annotations

import asyncpg

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op, stored

PAIRS = [("support", "u1"), ("support", "u2"), ("sales", "u1")]


async def test_operations_stay_inside_their_pair(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    for agent, user in PAIRS:
        model_server.answer([add_op(f"{agent}/{user} fact")], f"{agent}/{user} call")
        assert (await memory.add("hi", agent, user)).error is None
    shown = [m["content"] for m in model_server.requests[-1]["messages"] if m["role"] == "user"]
    assert "support/u1" not in shown[0]  # the model only ever saw this pair's facts
    for agent, user in PAIRS:
        recalled = await memory.recall(agent, user)
        assert recalled.data is not None
        assert [f.content for f in recalled.data.facts] == [f"{agent}/{user} fact"]
        assert [c.summary for c in recalled.data.calls] == [f"{agent}/{user} call"]
    erased = await memory.delete_all("support", "u1")
    assert erased.data is not None and erased.data.deleted == 2
    assert (await stored(pool, "support", "u2"))["facts"] != []
    assert (await stored(pool, "sales", "u1"))["facts"] != []
    gone = await memory.recall("support", "u1")
    assert gone.data is not None and (gone.data.facts, gone.data.calls) == ((), ())


async def test_unknown_person_recalls_two_empty_lists(memory: Memory) -> None:
    result = await memory.recall("support", "nobody")
    assert result.error is None and result.data is not None
    assert (result.data.facts, result.data.calls) == ((), ())


async def test_delete_all_of_unknown_person_deletes_nothing(memory: Memory) -> None:
    result = await memory.delete_all("support", "nobody")
    assert result.data is not None and result.data.deleted == 0


async def test_delete_all_keeps_and_bumps_the_revision(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    model_server.answer([add_op("Has a dog.")], "s")
    await memory.add("hi", "support", "u1")
    await memory.delete_all("support", "u1")
    assert (await stored(pool, "support", "u1"))["revision"] == 2


async def test_recall_returns_newest_calls_first_up_to_the_limit(
    memory: Memory, model_server: ModelServer
) -> None:
    for day in range(1, 8):
        model_server.answer([], f"day {day}")
        call = {"started_at": f"2026-10-0{day}T09:00:00+00:00"}
        assert (await memory.add("hi", "support", "u1", call)).error is None
    result = await memory.recall("support", "u1", calls=3)
    assert result.data is not None
    assert [c.summary for c in result.data.calls] == ["day 7", "day 6", "day 5"]
    default = await memory.recall("support", "u1")
    assert default.data is not None and len(default.data.calls) == 5
    none = await memory.recall("support", "u1", calls=0)
    assert none.data is not None and none.data.calls == ()
