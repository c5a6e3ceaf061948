"""Fact history: an update or a delete closes the fact's version; the current fact keeps its id."""

from __future__ import annotations

import asyncio
import itertools
import json

import asyncpg
import pytest

from memory.api import Memory
from memory.contract import _limits as limits
from memory.contract._errors import Conflict
from memory.contract._models import AddOutcome, CallMetadata, FactVersion
from memory.contract._operations import Plan
from memory.store._facts import MemoryStore
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op, delete_op, stored, update_op


async def add(
    memory: Memory, server: ModelServer, *ops: dict[str, object], user: str = "u1"
) -> AddOutcome:
    server.answer(list(ops), "A call.")
    result = await memory.add("hi", "support", user)
    assert result.error is None and result.data is not None, result.error
    return result.data


async def history(memory: Memory, user: str = "u1") -> tuple[FactVersion, ...]:
    result = await memory.history("support", user)
    assert result.error is None and result.data is not None, result.error
    return result.data.versions


async def test_an_update_keeps_the_previous_version_with_its_validity(
    memory: Memory, model_server: ModelServer
) -> None:
    first = await add(memory, model_server, add_op("Lives in Miraflores."), add_op("Has a dog."))
    moved = await add(memory, model_server, update_op("f1", "Lives in San Isidro."))
    home, dog = first.facts
    now_home = moved.facts[0]
    assert (now_home.id, now_home.created_at) == (home.id, home.created_at)
    versions = await history(memory)
    assert [(v.fact_id, v.content, v.ended_by) for v in versions] == [
        (home.id, "Lives in Miraflores.", "update"),
        (home.id, "Lives in San Isidro.", None),
        (dog.id, "Has a dog.", None),
    ]
    old, new, _ = versions
    assert old.valid_from == home.updated_at
    assert old.valid_to == new.valid_from == now_home.updated_at
    assert new.valid_to is None
    assert old.version_id != new.version_id


async def test_a_delete_closes_the_fact_and_recall_no_longer_shows_it(
    memory: Memory, model_server: ModelServer
) -> None:
    first = await add(memory, model_server, add_op("Works Saturdays."), add_op("Has a dog."))
    await add(memory, model_server, delete_op("f1"))
    recalled = await memory.recall("support", "u1")
    assert recalled.data is not None
    assert [f.content for f in recalled.data.facts] == ["Has a dog."]
    gone = (await history(memory))[0]
    assert (gone.fact_id, gone.content, gone.ended_by) == (
        first.facts[0].id,
        "Works Saturdays.",
        "delete",
    )
    assert gone.valid_from == first.facts[0].updated_at
    assert gone.valid_to is not None and gone.valid_to > gone.valid_from


async def test_versions_come_per_fact_in_insertion_order_oldest_first(
    memory: Memory, model_server: ModelServer
) -> None:
    """A deleted fact keeps its place among the facts; each fact's versions chain in time."""
    await add(memory, model_server, add_op("A1."), add_op("B1."), add_op("C1."))
    await add(memory, model_server, update_op("f1", "A2."), update_op("f3", "C2."))
    await add(memory, model_server, update_op("f1", "A3."), delete_op("f2"))
    versions = await history(memory)
    assert [v.content for v in versions] == ["A1.", "A2.", "A3.", "B1.", "C1.", "C2."]
    for older, newer in itertools.pairwise(versions):
        if older.fact_id == newer.fact_id:
            assert older.valid_to == newer.valid_from


async def test_the_write_reports_what_it_applied(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    """Final ids, the version each update supersedes and validity times, with the revision."""
    first = await add(memory, model_server, add_op("Prefers calls."), add_op("Has a dog."))
    assert [(a.op, a.fact_id, a.supersedes) for a in first.applied] == [
        ("add", first.facts[0].id, None),
        ("add", first.facts[1].id, None),
    ]
    before = await history(memory)
    second = await add(
        memory,
        model_server,
        add_op("Likes tea."),
        update_op("f1", "Prefers WhatsApp."),
        delete_op("f2"),
    )
    delete, update, added = second.applied
    after = {v.version_id: v for v in await history(memory)}
    assert (delete.op, delete.fact_id, delete.version_id) == (
        "delete",
        first.facts[1].id,
        before[1].version_id,
    )
    assert delete.valid_to == after[delete.version_id].valid_to
    assert (update.op, update.fact_id, update.supersedes) == (
        "update",
        first.facts[0].id,
        before[0].version_id,
    )
    assert after[update.version_id].content == "Prefers WhatsApp."
    assert update.supersedes is not None
    assert update.valid_from == after[update.supersedes].valid_to == second.facts[0].updated_at
    assert (added.op, added.fact_id) == ("add", second.facts[1].id)
    assert after[added.version_id].valid_from == added.valid_from
    assert second.revision == (await stored(pool, "support", "u1"))["revision"] == 2


async def test_an_update_to_the_same_text_changes_nothing(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await add(memory, model_server, add_op("Has a dog."))
    before = await stored(pool, "support", "u1")
    outcome = await add(memory, model_server, update_op("f1", "Has a dog."))
    assert outcome.applied == ()
    after = await stored(pool, "support", "u1")
    assert after["facts"] == before["facts"]
    assert len(await history(memory)) == 1


async def test_history_does_not_count_against_the_fact_limit(
    memory: Memory, model_server: ModelServer
) -> None:
    """50 current facts with 50 closed versions still take a delete plus an add, not a 51st."""
    await add(memory, model_server, *(add_op(f"Fact {i}.") for i in range(limits.MAX_FACTS)))
    await add(
        memory, model_server, *(update_op(f"f{i + 1}", f"Fact {i}, again.") for i in range(50))
    )
    assert len(await history(memory)) == 2 * limits.MAX_FACTS
    model_server.answer([add_op("One too many.")])
    refused = await memory.add("hi", "support", "u1")
    assert refused.error is not None and refused.error.code == "memory_invalid_model_output"
    await add(memory, model_server, delete_op("f1"), add_op("A new one."))
    assert len(await history(memory)) == 2 * limits.MAX_FACTS + 1


def _updates(ids: list[str], round_: int) -> Plan:
    return Plan((), tuple((i, f"{i} in round {round_}") for i in ids), (), "s")


async def _closed(pool: asyncpg.Pool) -> list[str]:
    rows = await pool.fetch(
        "select content from stackbone_platform.memory_fact_versions order by seq"
    )
    return [r["content"] for r in rows]


async def test_history_keeps_the_newest_closed_versions_up_to_the_bound(pool: asyncpg.Pool) -> None:
    """At the bound every closed version is kept; past it the oldest ones are dropped."""
    store = MemoryStore(pool)
    seed = Plan((), (), tuple(f"fact {i}" for i in range(limits.MAX_FACTS)), "s")
    await store.write("support", "u1", await store.snapshot("support", "u1"), seed, CallMetadata())
    ids = [f.id for f in (await store.snapshot("support", "u1")).facts]
    rounds = limits.MAX_HISTORY_VERSIONS // limits.MAX_FACTS
    for r in range(rounds):
        snap = await store.snapshot("support", "u1")
        await store.write("support", "u1", snap, _updates(ids, r), CallMetadata())
    at_bound = await _closed(pool)
    assert len(at_bound) == limits.MAX_HISTORY_VERSIONS
    assert {f"fact {i}" for i in range(limits.MAX_FACTS)} <= set(at_bound)  # none dropped yet
    snap = await store.snapshot("support", "u1")
    await store.write("support", "u1", snap, _updates(ids[:3], rounds), CallMetadata())
    past = await _closed(pool)
    assert len(past) == limits.MAX_HISTORY_VERSIONS
    assert past[:-3] == at_bound[3:]  # the three oldest went, the three newest came
    current = await store.history("support", "u1")
    assert len(current.versions) == limits.MAX_HISTORY_VERSIONS + limits.MAX_FACTS


async def test_a_stale_write_conflicts_and_closes_no_version(pool: asyncpg.Pool) -> None:
    store = MemoryStore(pool)
    start = await store.snapshot("support", "u1")
    await store.write("support", "u1", start, Plan((), (), ("Has a dog.",), "s"), CallMetadata())
    read = await store.snapshot("support", "u1")
    update = Plan((), ((read.facts[0].id, "Has two dogs."),), (), "s")
    await store.write("support", "u1", read, update, CallMetadata())
    before = await stored(pool, "support", "u1")
    closed = await _closed(pool)
    stale = Plan((read.facts[0].id,), (), ("Has a cat.",), "s")
    with pytest.raises(Conflict):
        await store.write("support", "u1", read, stale, CallMetadata())
    assert await stored(pool, "support", "u1") == before
    assert await _closed(pool) == closed


async def test_concurrent_updates_of_one_fact_close_exactly_the_versions_they_replaced(
    memory: Memory, model_server: ModelServer
) -> None:
    """Racing adds: the winners' versions chain without gaps; losers leave no version behind."""
    await add(memory, model_server, add_op("Version 0."))
    for i in range(6):
        model_server.answer_text(
            json.dumps({"operations": [update_op("f1", f"Version {i + 1}.")], "summary": "s"}),
            delay=0.02,
        )
    results = await asyncio.gather(*(memory.add("hi", "support", "u1") for _ in range(6)))
    wins = [r for r in results if r.error is None]
    versions = await history(memory)
    assert len(versions) == 1 + len(wins)
    assert versions[0].content == "Version 0."
    for older, newer in itertools.pairwise(versions):
        assert older.valid_to == newer.valid_from


async def test_a_failed_write_closes_no_version(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await add(memory, model_server, add_op("Has a dog."))
    await pool.execute(
        "alter table stackbone_platform.memory_calls"
        " add constraint refuse check (summary <> 'boom')"
    )
    model_server.answer([update_op("f1", "Has two dogs."), add_op("Likes tea.")], "boom")
    result = await memory.add("hi", "support", "u1")
    assert result.error is not None and result.error.code == "memory_persist_failed"
    assert [v.content for v in await history(memory)] == ["Has a dog."]


async def test_history_is_scoped_to_its_pair_and_empty_for_strangers(
    memory: Memory, model_server: ModelServer
) -> None:
    await add(memory, model_server, add_op("Mine."))
    await add(memory, model_server, update_op("f1", "Mine, updated."))
    await add(memory, model_server, add_op("Theirs."), user="u2")
    assert [v.content for v in await history(memory, "u2")] == ["Theirs."]
    assert await history(memory, "nobody") == ()
    other_agent = await memory.history("sales", "u1")
    assert other_agent.data is not None and other_agent.data.versions == ()


@pytest.mark.parametrize(
    ("agent_id", "user_id", "field"),
    [
        ("", "u1", "agent_id"),
        ("a" * (limits.MAX_AGENT_ID_CHARS + 1), "u1", "agent_id"),
        ("support", "", "user_id"),
        ("support", "u" * (limits.MAX_USER_ID_CHARS + 1), "user_id"),
        ("support", "nul\x00", "user_id"),
        ("support", 42, "user_id"),
    ],
)
async def test_history_validates_its_request_like_recall(
    memory: Memory, agent_id: object, user_id: object, field: str
) -> None:
    result = await memory.history(agent_id, user_id)
    assert result.data is None and result.error is not None
    assert (result.error.code, result.error.field) == ("memory_invalid_request", field)


async def test_history_at_the_id_limits_is_accepted(memory: Memory) -> None:
    agent, user = "a" * limits.MAX_AGENT_ID_CHARS, "u" * limits.MAX_USER_ID_CHARS
    result = await memory.history(agent, user)
    assert result.error is None and result.data is not None and result.data.versions == ()
