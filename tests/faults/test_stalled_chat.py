"""The chat wire under a stalled database (every Postgres process SIGSTOPped) and a stalled
model: each answers a clean error in OpenAI's shape at its deadline, never at the stall's end.
(The stalled model alone is `tests/chat/test_wire.py`; here it is beside a stalled database.)
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from chat import ChatConfig
from chat.config import DEFAULT_LEASE_SECONDS
from chat.sessions import RELEASE_SECONDS
from infra.database import PoolTimeouts, close_pool, create_pool
from infra.deadline import ABANDONED
from memory.config import MemoryConfig
from testkit.fake_devices import wait_until
from testkit.model_server import ModelServer
from tests.chat.conftest import CONVERSATION_MODEL, KEYS, chat_catalog, chat_headers
from tests.faults.server import FaultServer
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app

DEADLINE = 0.5  # the web process's database deadline
COMMAND_SECONDS = 1.0  # the pool's command timeout: how long abandoned work may linger
MEMORY_SECONDS = 0.5  # memory's own database deadline (a tool's recall)
MODEL_SECONDS = 0.5  # the conversation model's timeout
SLACK = 1.0  # what a loaded machine may add (the stall itself lasts until resumed)
Client = TestClient[web.Request, web.Application]
HI: list[dict[str, Any]] = [{"role": "user", "content": "Hi"}]


@pytest.fixture
async def client(
    fault_db: str,
    model_server: ModelServer,
    fault_server: FaultServer,
    request: pytest.FixtureRequest,
) -> AsyncIterator[Client]:
    """The web app over the fault server; `indirect` params may set `lease`, `model`,
    `memory` and `command` seconds (the session lease, the model's timeout, memory's own
    database deadline and the pool's command timeout)."""
    chosen: dict[str, float] = getattr(request, "param", {})
    command = PoolTimeouts(command_seconds=chosen.get("command", COMMAND_SECONDS))
    pool = await create_pool(fault_db, min_size=1, max_size=5, timeouts=command)
    memory = MemoryConfig(
        base_url=model_server.url,
        api_key="k",
        database_timeout_seconds=chosen.get("memory", MEMORY_SECONDS),
    )
    chat = ChatConfig(
        base_url=model_server.url,
        api_key="k",
        model=CONVERSATION_MODEL,
        timeout_seconds=chosen.get("model", MODEL_SECONDS),
        lease_seconds=chosen.get("lease", DEFAULT_LEASE_SECONDS),
    )
    app = create_app(
        pool=pool,
        catalog=chat_catalog(),
        api_keys=parse_api_keys(json.dumps(KEYS)),
        memory_config=memory,
        chat=chat,
        database_deadline_seconds=DEADLINE,
    )
    test_client: Client = TestClient(TestServer(app))
    await test_client.start_server()
    yield test_client
    if fault_server.stalled:
        fault_server.resume()
    await test_client.close()
    await close_pool(pool, 2.0)


async def turn(client: Client, **headers: str) -> tuple[int, dict[str, Any], float]:
    body = {"model": "both", "messages": HI, "user": "crm/1"}
    started = time.monotonic()
    response = await client.post("/v1/chat/completions", json=body, headers=chat_headers(**headers))
    return response.status, await response.json(), time.monotonic() - started


@pytest.mark.parametrize("client", [{"model": 10.0}], indirect=True)  # the stall, not the model
@pytest.mark.parametrize("headers", [{}, {"x-stackbone-session": "s-1"}])
async def test_a_stalled_database_before_the_turn_is_a_503_at_the_deadline(
    client: Client, fault_server: FaultServer, model_server: ModelServer, headers: dict[str, str]
) -> None:
    model_server.answer_text("warm")
    status, _, _ = await turn(client)  # the pool is open and the capability checked
    assert status == 200
    fault_server.stall()
    try:
        status, body, took = await turn(client, **headers)
    finally:
        fault_server.resume()
    print(f"\nchat turn under a stalled database answered after {took * 1000:.0f} ms")
    assert status == 503
    assert body["error"]["code"] == "memory_unavailable"
    assert body["error"]["type"] and body["error"]["message"]  # OpenAI's error shape
    assert DEADLINE <= took < DEADLINE + SLACK
    assert len(model_server.requests) == 1  # the model was never asked
    assert await ABANDONED.settle(COMMAND_SECONDS + 3.0)


async def stalled_tool_turn(
    client: Client,
    fault_server: FaultServer,
    model_server: ModelServer,
    script: tuple[str, dict[str, Any] | None, str],
) -> tuple[int, dict[str, Any], float]:
    """A turn whose model calls `tool` and then answers `text`, with the database stalled
    while the model thinks of the call; its status, body and time."""
    tool, arguments, text = script
    model_server.call_tool(tool, arguments)
    model_server.replies[-1].delay = 0.3  # the database stalls while the model thinks
    model_server.answer_text(text)
    asking = asyncio.create_task(turn(client))
    await wait_until(lambda: bool(model_server.requests))
    fault_server.stall()
    try:
        status, body, took = await asking
    finally:
        fault_server.resume()
    print(f"\nchat turn with a stalled {tool} answered after {took * 1000:.0f} ms")
    return status, body, took


@pytest.mark.parametrize("client", [{"model": 10.0}], indirect=True)  # the stall, not the model
async def test_a_database_stalled_during_a_tool_answers_the_tool_an_error_code(
    client: Client, fault_server: FaultServer, model_server: ModelServer
) -> None:
    status, body, took = await stalled_tool_turn(
        client,
        fault_server,
        model_server,
        ("memory_read", None, "I cannot look that up right now."),
    )
    assert status == 200
    assert body["choices"][0]["message"]["content"] == "I cannot look that up right now."
    tool_results = [m for m in model_server.requests[-1]["messages"] if m["role"] == "tool"]
    assert [json.loads(m["content"]) for m in tool_results] == [{"error": "memory_unavailable"}]
    assert took < 0.3 + MEMORY_SECONDS + SLACK + 0.5
    assert await ABANDONED.settle(COMMAND_SECONDS + 3.0)


PRODUCTION = 5.0  # memory's database deadline and the pool's command timeout by default


TOOL_CALLS = {  # a tool, the model's arguments, what the model reads back
    "read": ("memory_read", None, {"error": "memory_unavailable"}),
    "save": (
        "memory_save",
        {"content": "I moved to Oslo."},
        {"saved": False, "error": "memory_unavailable"},
    ),
}


@pytest.mark.parametrize(
    "client", [{"memory": PRODUCTION, "command": PRODUCTION, "model": 10.0}], indirect=True
)
@pytest.mark.parametrize("case", sorted(TOOL_CALLS))
async def test_a_memory_tool_mid_turn_is_bounded_by_the_routes_deadline(
    client: Client, fault_server: FaultServer, model_server: ModelServer, case: str
) -> None:
    """Issue 31, defect 4: a tool's database steps waited for memory's own deadline (5 s by
    default) when the database froze mid-turn; they are within the route's deadline now, and
    the model reads the tool's error and answers."""
    tool, arguments, answer = TOOL_CALLS[case]
    status, body, took = await stalled_tool_turn(
        client, fault_server, model_server, (tool, arguments, "I cannot do that right now.")
    )
    assert status == 200, body
    assert body["choices"][0]["message"]["content"] == "I cannot do that right now."
    tool_results = [m for m in model_server.requests[-1]["messages"] if m["role"] == "tool"]
    assert [json.loads(m["content"]) for m in tool_results] == [answer]
    assert len(model_server.requests) == 2  # a save's extraction model was never asked
    assert took < 0.3 + DEADLINE + SLACK + 0.5 < PRODUCTION
    assert await ABANDONED.settle(PRODUCTION + 3.0)


async def test_a_stalled_model_beside_the_database_is_a_504_at_its_timeout(
    client: Client, model_server: ModelServer
) -> None:
    model_server.answer_text("late", delay=MODEL_SECONDS + 2.0)
    status, body, took = await turn(client, **{"x-stackbone-session": "s-2"})
    assert status == 504
    assert body["error"]["code"] == "chat_model_timeout"
    assert MODEL_SECONDS <= took < MODEL_SECONDS + SLACK
    model_server.answer_text("on time")
    status, body, _ = await turn(client, **{"x-stackbone-session": "s-2"})
    assert status == 200, body  # the failed turn released its session


@pytest.mark.parametrize("client", [{"model": 10.0}], indirect=True)  # the stall, not the model
async def test_a_database_stalled_before_a_session_turn_is_recorded_is_a_503(
    client: Client, fault_server: FaultServer, model_server: ModelServer
) -> None:
    model_server.answer_text("Hello.", delay=0.3)  # the database stalls while the model thinks
    asking = asyncio.create_task(turn(client, **{"x-stackbone-session": "s-3"}))
    await wait_until(lambda: bool(model_server.requests))
    fault_server.stall()
    try:
        status, body, took = await asking
    finally:
        fault_server.resume()
    print(f"\nchat session turn with a stalled record answered after {took * 1000:.0f} ms")
    assert status == 503
    assert body["error"]["code"] == "memory_unavailable"
    # the record at its deadline, then the claim's release at its own (the lease frees it later)
    assert 0.3 + DEADLINE <= took < 0.3 + DEADLINE + RELEASE_SECONDS + SLACK
    assert await ABANDONED.settle(COMMAND_SECONDS + 3.0)


@pytest.mark.parametrize("client", [{"model": 10.0}], indirect=True)  # the stall, not the model
async def test_a_session_cut_by_a_stall_is_free_again_within_its_lease(
    client: Client, fault_server: FaultServer, model_server: ModelServer
) -> None:
    """Issue 31, defect 5: the stalled turn could not release its claim; the next turn gets
    the session once the claim's short lease lapsed (not after minutes), and nothing of the
    stalled turn is kept."""
    session = {"x-stackbone-session": "s-4"}
    model_server.answer_text("Lost.", delay=0.3)
    asking = asyncio.create_task(turn(client, **session))
    await wait_until(lambda: bool(model_server.requests))
    stalled_at = time.monotonic()
    fault_server.stall()
    try:
        status, _, _ = await asking
        assert status == 503
        await asyncio.sleep(max(0.0, 2.0 - (time.monotonic() - stalled_at)))  # a 2 s stall
    finally:
        fault_server.resume()
    resumed = time.monotonic()
    busy = 0
    while True:
        model_server.answer_text("Back.")
        status, body, _ = await turn(client, **session)
        if status == 200:
            break
        assert (status, body["error"]["code"]) == (409, "session_busy"), body
        model_server.replies.clear()
        busy += 1
        assert time.monotonic() - resumed < DEFAULT_LEASE_SECONDS + SLACK, "still busy"
        await asyncio.sleep(0.1)
    free_after = time.monotonic() - resumed
    print(f"\nsession free {free_after:.1f} s after the database came back ({busy} busy answers)")
    said = [m["content"] for m in model_server.requests[-1]["messages"] if m["role"] == "user"]
    assert said == ["Hi"]  # the stalled turn kept nothing
    assert await ABANDONED.settle(COMMAND_SECONDS + 3.0)


LEASE = 1.0  # a short lease, so a stall outlasts it


@pytest.mark.parametrize("client", [{"lease": LEASE, "model": 10.0}], indirect=True)
async def test_a_turn_that_cannot_renew_its_lease_stops_before_another_can_claim(
    client: Client, fault_server: FaultServer, model_server: ModelServer
) -> None:
    """A stall longer than the lease while the model thinks: the turn is stopped when its
    lease ends (503), not when the model answers, and keeps nothing; the next turn gets the
    session only then, so two turns never ran on it at once."""
    session = {"x-stackbone-session": "s-5"}
    model_server.answer_text("Too late.", delay=6.0)
    asking = asyncio.create_task(turn(client, **session))
    await wait_until(lambda: bool(model_server.requests))
    fault_server.stall()
    try:
        status, body, took = await asking
    finally:
        fault_server.resume()
    print(f"\nturn whose lease lapsed answered after {took:.2f} s")
    assert (status, body["error"]["code"]) == (503, "memory_unavailable")
    # at the lease's end (then the release's own bound), not after the model's 6 s
    assert took < LEASE + RELEASE_SECONDS + SLACK
    model_server.answer_text("Fresh.")
    status, body, _ = await turn(client, **session)
    assert status == 200, body
    said = [m["content"] for m in model_server.requests[-1]["messages"] if m["role"] == "user"]
    assert said == ["Hi"]  # nothing of the stopped turn was kept
    assert await ABANDONED.settle(COMMAND_SECONDS + 3.0)
