"""The ops log over HTTP: one agent's events after a cursor, strict parameters, its limits."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest

from memory.api import Memory
from memory.store import expire_ops
from testkit.model_server import ModelServer
from tests.api.conftest import auth
from tests.memory.helpers import add_op
from tests.web_clients import Client
from worker.http.routes.ops import MAX_CURSOR, MAX_LIMIT

OPS = "/api/memory/ops"
AGED = "update stackbone_platform.memory_ops set created_at = now() - interval '40 days'" + (
    " where id = any($1)"
)


async def get(client: Client, query: str, key: str = "memory-reader") -> tuple[int, Any]:
    response = await client.get(f"{OPS}?{query}", headers=auth(key))
    return response.status, await response.json()


async def learn(memory: Memory, server: ModelServer, n: int) -> None:
    for i in range(n):
        server.answer([add_op(f"Fact {i}.")], "s")
        result = await memory.add("hi", "support", f"user-{i}")
        assert result.error is None, result.error


async def test_a_consumer_catches_up_in_order_from_its_cursor(
    client: Client, memory: Memory, model_server: ModelServer
) -> None:
    await learn(memory, model_server, 3)
    status, body = await get(client, "agentId=support")
    assert status == 200
    events = body["events"]
    assert [e["ops"][0]["text"] for e in events] == ["Fact 0.", "Fact 1.", "Fact 2."]
    assert body["next"] == events[-1]["id"]
    status, page = await get(client, f"agentId=support&after={events[0]['id']}&limit=1")
    assert (status, page["events"], page["next"]) == (200, events[1:2], events[1]["id"])
    status, done = await get(client, f"agentId=support&after={body['next']}")
    assert (status, done["events"], done["next"]) == (200, [], body["next"])


async def test_limit_at_its_maximum_and_past_it(client: Client) -> None:
    assert (await get(client, f"agentId=support&limit={MAX_LIMIT}"))[0] == 200
    status, body = await get(client, f"agentId=support&limit={MAX_LIMIT + 1}")
    assert (status, body["error"]["field"]) == (400, "limit")


async def test_cursor_at_its_maximum_and_past_it(client: Client) -> None:
    assert (await get(client, f"agentId=support&after={MAX_CURSOR}"))[0] == 200
    status, body = await get(client, f"agentId=support&after={MAX_CURSOR + 1}")
    assert (status, body["error"]["field"]) == (400, "after")


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("", "agentId"),
        ("agentId=", "agentId"),
        ("agentId=support&after=-1", "after"),
        ("agentId=support&after=1.5", "after"),
        ("agentId=support&limit=0", "limit"),
        ("agentId=support&limit=ten", "limit"),
        ("agentId=support&cursor=3", "cursor"),
        ("agentId=support&after=1&after=2", "after"),
    ],
)
async def test_bad_parameters_are_named(client: Client, query: str, field: str) -> None:
    status, body = await get(client, query)
    assert (status, body["error"]["field"]) == (400, field)


async def test_an_unknown_agent_is_404_and_the_scope_is_memory_read(client: Client) -> None:
    assert (await get(client, "agentId=nobody"))[0] == 404
    assert (await get(client, "agentId=support", key="config-reader"))[0] == 403


async def test_a_cursor_older_than_the_retention_window_is_gone_not_a_gap(
    client: Client, memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    await learn(memory, model_server, 3)
    _, body = await get(client, "agentId=support")
    ids = [e["id"] for e in body["events"]]
    await pool.execute(AGED, ids[:2])
    assert await expire_ops(pool, 30 * 86400) == 2
    status, body = await get(client, f"agentId=support&after={ids[0]}")
    assert status == 410
    assert (body["error"]["code"], body["error"]["field"]) == ("cursor_expired", "after")
    assert f"after={ids[1]}" in body["error"]["message"]
    status, body = await get(client, f"agentId=support&after={ids[1]}")
    assert (status, [e["id"] for e in body["events"]]) == (200, ids[2:])
