"""The agent registry in Postgres, and the web app reading it: an agent declared only by an
attached worker is listed and its settings are editable; a chat turn to it is a clear 503
naming the agent; a key restricted to it reaches it and nothing else; removing it keeps its
memory; two declarations of one name: the last wins and the replaced one is shown."""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest

from callmemory.registration import register_agents
from memory.api import Memory
from memory.settings import CodeDefaults
from memory.store import Declared, registered
from testkit.model_server import ModelServer
from tests.agents.conftest import ADMIN_KEY, SHOP_KEY, bearer
from tests.memory.helpers import add_op
from tests.web_clients import Client


async def listing(client: Client, key: str, size: int) -> list[dict[str, Any]]:
    """The agents listed for `key`, once `size` are (the listing reads the registry again about
    once a second)."""
    for _ in range(200):
        answer = await client.get("/api/memory/agents", headers=bearer(key))
        agents: list[dict[str, Any]] = (await answer.json())["agents"]
        if len(agents) == size:
            return agents
        await asyncio.sleep(0.02)
    raise AssertionError(f"never {size} agents: {agents}")


DESK = Declared(
    "front-desk", CodeDefaults(read=True, save=True, identity_key="phoneNumber"), (), ()
)
NUMBER = "+34600111222"


async def test_the_last_registration_wins_and_the_replaced_one_is_kept(
    pool: asyncpg.Pool, caplog: pytest.LogCaptureFixture
) -> None:
    assert await register_agents(pool, [DESK], "worker desk_a.py", "worker") == []
    assert await register_agents(pool, [DESK], "worker desk_a.py", "worker") == []  # same
    other = Declared("front-desk", CodeDefaults(read=False, save=True), ("lookup",), ("help",))
    assert await register_agents(pool, [other], "worker desk_b.py", "worker") == ["front-desk"]
    [row] = await registered(pool)
    assert row.memory == CodeDefaults(read=False, save=True)
    assert (row.tools, row.collections) == (("lookup",), ("help",))
    assert (row.declared_in, row.conflict_with) == ("worker desk_b.py", "worker desk_a.py")
    assert row.last_seen > row.first_seen
    assert any(r.getMessage() == "agents.registry_conflict" for r in caplog.records)


async def test_held_tools_are_registered_with_their_decisions_and_listed(
    shop_app: Client, pool: asyncpg.Pool
) -> None:
    held = (("issue_refund", ("approve", "reject")), ("cancel_order", ("approve",)))
    desk = Declared(
        "front-desk", CodeDefaults(read=True), ("issue_refund", "cancel_order"), (), held
    )
    await register_agents(pool, [desk], "worker desk.py", "worker")
    [row] = [r for r in await registered(pool) if r.agent_id == "front-desk"]
    assert row.held == held  # in the definition's order, each tool's decisions as declared
    by_id = {a["agentId"]: a for a in await listing(shop_app, ADMIN_KEY, 2)}
    assert by_id["front-desk"]["heldTools"] == {
        "issue_refund": ["approve", "reject"],
        "cancel_order": ["approve"],
    }
    assert by_id["shop"]["heldTools"] == {}  # the app's own agent holds none
    await register_agents(pool, [DESK], "worker desk.py", "worker")  # declared again, unheld
    [row] = [r for r in await registered(pool) if r.agent_id == "front-desk"]
    assert row.held == ()


async def test_a_worker_only_agent_is_listed_and_editable_but_not_chattable(
    shop_app: Client, pool: asyncpg.Pool
) -> None:
    await register_agents(pool, [DESK], "worker desk.py", "worker")
    by_id = {a["agentId"]: a for a in await listing(shop_app, ADMIN_KEY, 2)}
    assert set(by_id) == {"shop", "front-desk"}
    desk, shop = by_id["front-desk"], by_id["shop"]
    assert (desk["source"], desk["declaredIn"], desk["loaded"]) == (
        "worker",
        "worker desk.py",
        False,
    )
    assert desk["lastSeen"] is not None
    assert (shop["tools"], shop["collections"], shop["loaded"]) == (
        ["lookup_order"],
        ["shop-help"],
        True,
    )
    put = await shop_app.put(
        "/api/memory/settings/front-desk", json={"read": False}, headers=bearer()
    )
    body = await put.json()
    assert put.status == 200, body
    assert (body["value"]["read"], body["origins"]["read"]) == (False, "studio")
    assert body["value"]["save"] is True and body["origins"]["save"] == "code"  # registry's
    chat = await shop_app.post(
        "/v1/chat/completions",
        json={"model": "front-desk", "messages": [{"role": "user", "content": "Hi"}]},
        headers=bearer(),
    )
    error = (await chat.json())["error"]
    assert chat.status == 503 and error["code"] == "agent_not_loaded"
    assert "front-desk" in error["message"] and "AGENTS=shopagents:agents" in error["message"]


async def test_a_key_restricted_to_the_agent_reaches_it_and_nothing_else(
    shop_app: Client, pool: asyncpg.Pool
) -> None:
    await register_agents(pool, [DESK], "worker desk.py", "worker")
    await listing(shop_app, ADMIN_KEY, 2)
    listed = await listing(shop_app, SHOP_KEY, 1)
    assert [a["agentId"] for a in listed] == ["shop"]
    own = await shop_app.get("/api/memory/settings/shop", headers=bearer(SHOP_KEY))
    other = await shop_app.get("/api/memory/settings/front-desk", headers=bearer(SHOP_KEY))
    unknown = await shop_app.get("/api/memory/settings/nobody", headers=bearer(SHOP_KEY))
    assert own.status == 200 and other.status == unknown.status == 404
    assert await other.json() == await unknown.json()


async def test_an_agent_registered_after_start_is_found_at_once(
    shop_app: Client, pool: asyncpg.Pool
) -> None:
    before = await shop_app.get("/api/memory/settings/front-desk", headers=bearer())
    assert before.status == 404
    await register_agents(pool, [DESK], "worker desk.py", "worker")
    after = await shop_app.get("/api/memory/settings/front-desk", headers=bearer())
    assert after.status == 200  # an unknown id reads the registry again before answering 404


async def test_removing_an_agent_keeps_its_memory(
    shop_app: Client, pool: asyncpg.Pool, memory: Memory, model_server: ModelServer
) -> None:
    await register_agents(pool, [DESK], "worker desk.py", "worker")
    model_server.answer([add_op("Prefers mornings.")], "Booked a visit.")
    assert (await memory.add("call", "front-desk", NUMBER)).error is None
    removed = await shop_app.delete("/api/memory/agents/front-desk", headers=bearer())
    assert (removed.status, await removed.json()) == (
        200,
        {"agentId": "front-desk", "removed": True},
    )
    assert [a["agentId"] for a in await listing(shop_app, ADMIN_KEY, 1)] == ["shop"]
    recalled = await memory.recall("front-desk", NUMBER)
    assert recalled.data is not None
    assert [f.content for f in recalled.data.facts] == ["Prefers mornings."]
