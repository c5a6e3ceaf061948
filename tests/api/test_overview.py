"""Counts at a glance: people, facts, calls and failed saves of the last day, per agent."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import asyncpg

from memory.api import Memory
from testkit.model_server import ModelServer
from tests.api.conftest import auth
from tests.memory.helpers import add_op
from tests.waiting import eventually
from tests.web_clients import Client

OVERVIEW = "/api/memory/overview"
FAILED = "stackbone_platform.memory_failed_saves"


async def get(client: Client, query: str = "", key: str = "memory-reader") -> tuple[int, Any]:
    response = await client.get(f"{OVERVIEW}{query}", headers=auth(key))
    return response.status, await response.json()


async def saved(memory: Memory, server: ModelServer, user: str, fact: str, days_ago: int) -> None:
    server.answer([add_op(fact)], "Summary.")
    started = (datetime.now(UTC) - timedelta(days=days_ago)).isoformat()
    result = await memory.add("hi", "support", user, {"started_at": started})
    assert result.error is None, result.error


async def failed_rows(pool: asyncpg.Pool, n: int, reason: str = "%") -> None:
    """Failed saves are recorded off the failing path: wait until `n` rows (of `reason`) are in."""
    query = f"select count(*) from {FAILED} where reason like $1"

    async def recorded() -> bool:
        return bool(await pool.fetchval(query, reason) == n)

    await eventually(recorded, f"{n} failed saves recorded", every=0.02)


async def test_counts_per_agent_in_catalog_order(
    client: Client, memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await saved(memory, model_server, "+1 555 0100", "Drives a van.", days_ago=0)
    await saved(memory, model_server, "+1 555 0100", "Has two dogs.", days_ago=3)
    await saved(memory, model_server, "+1 555 0199", "Prefers email.", days_ago=2)
    model_server.fail(500)
    assert (await memory.add("hi", "support", "+1 555 0100")).error is not None
    model_server.answer_text("not json")
    assert (await memory.add("hi", "support", "+1 555 0100")).error is not None
    model_server.fail(500)
    assert (await memory.add("hi", "sales", "+1 555 0100")).error is not None
    await failed_rows(pool, 3)
    status, body = await get(client)
    assert status == 200
    support, sales = body["agents"]
    assert support == {
        "agentId": "support",
        "people": 2,
        "facts": 3,
        "callsLastDay": 1,
        "failedSavesLastDay": 2,
        "failuresByReason": {"memory_model_failed": 1, "memory_invalid_model_output": 1},
    }
    assert sales == {
        "agentId": "sales",
        "people": 0,
        "facts": 0,
        "callsLastDay": 0,
        "failedSavesLastDay": 1,
        "failuresByReason": {"memory_model_failed": 1},
    }


async def test_a_bad_request_is_not_a_failed_save_and_no_contact_is_recorded(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    assert (await memory.add("hi", "support", "")).error is not None  # invalid user id
    model_server.fail(500)
    assert (await memory.add("hi", "support", "+1 555 0100")).error is not None
    await failed_rows(pool, 1)
    columns = await pool.fetch(
        "select column_name from information_schema.columns where table_name = $1",
        "memory_failed_saves",
    )
    assert sorted(c["column_name"] for c in columns) == ["agent_id", "at", "id", "reason"]


async def test_the_window_is_one_day_and_old_records_are_deleted(
    client: Client, memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await pool.execute(
        f"insert into {FAILED} (agent_id, reason, at) values"
        " ('support', 'old_day', now() - interval '25 hours'),"
        " ('support', 'old_week', now() - interval '8 days')"
    )
    assert (await get(client))[1]["agents"][0]["failedSavesLastDay"] == 0
    model_server.fail(500)
    assert (await memory.add("hi", "support", "+1 555 0100")).error is not None
    await failed_rows(pool, 1, "memory_model_failed")  # the week-old one went with it
    reasons = await pool.fetch(f"select reason from {FAILED} order by at")
    assert [r["reason"] for r in reasons] == ["old_day", "memory_model_failed"]
    counts = (await get(client))[1]["agents"][0]
    assert counts["failuresByReason"] == {"memory_model_failed": 1}


async def test_parameters_and_scope(client: Client) -> None:
    status, body = await get(client, "?agentId=support")
    assert (status, body["error"]["field"]) == (400, "agentId")
    assert (await get(client, key="config-reader"))[0] == 403
