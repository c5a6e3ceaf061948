"""Every route under a frozen database (every Postgres process SIGSTOPped) answers at its
deadline, in its family's code, never when the database comes back.

The walk (`tests.faults.route_walk`) sends one request per operation of the served OpenAPI
document at once. The routes' database deadline is 1 s and the pool's command timeout 5 s, the
production default: a database step outside the deadline waits for that timeout (or for the
stall's end), past the test's bound of the deadline + 3 s. Measured times are printed per route
family.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from chat import ChatConfig
from infra.database import PoolTimeouts, close_pool, create_pool
from infra.deadline import ABANDONED
from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from tests.api.conftest import build_catalog
from tests.documents.conftest import EMBEDDING_MODEL
from tests.faults.route_walk import Call, calls
from tests.faults.server import FaultServer
from tests.livekit_server import OUTBOUND_TRUNK_ID, LiveKitServer
from tests.web_clients import AppClients, Client
from worker.http.routes import openapi
from worker.http.server.auth import SCOPES, parse_api_keys
from worker.http.web import ROUTES, create_app
from worker.voice_settings import VoiceSettings

DEADLINE = 1.0  # the routes' database deadline (production: WEB_DATABASE_DEADLINE_SECONDS=2)
COMMAND_SECONDS = 5.0  # the pool's command timeout, the production default
MARGIN = 3.0  # what a loaded machine may add; an unbounded step waits COMMAND_SECONDS or more
KEY = "walker-secret-0123456789abcdef"
UNAVAILABLE = {"memory": "memory_unavailable", "documents": "rag_unavailable"}
NO_DATABASE = {("GET", "/api/openapi.json"), ("POST", "/api/voice/calls")}


@pytest.fixture
async def livekit() -> AsyncIterator[LiveKitServer]:
    server = LiveKitServer()
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
async def client(
    fault_db: str, model_server: ModelServer, livekit: LiveKitServer
) -> AsyncIterator[Client]:
    pool = await create_pool(
        fault_db, min_size=1, max_size=5, timeouts=PoolTimeouts(command_seconds=COMMAND_SECONDS)
    )
    keys = parse_api_keys(json.dumps([{"name": "admin", "key": KEY, "scopes": list(SCOPES)}]))
    app = create_app(
        pool=pool,
        catalog=build_catalog(),
        api_keys=keys,
        memory_config=MemoryConfig(
            base_url=model_server.url, api_key="k", embedding_model=EMBEDDING_MODEL
        ),
        voice=VoiceSettings(
            url=livekit.url,
            api_key=livekit.api_key,
            api_secret=livekit.api_secret,
            public_url="wss://voice.example.test",
            outbound_trunk_id=OUTBOUND_TRUNK_ID,
        ),
        chat=ChatConfig(base_url=model_server.url, api_key="k", timeout_seconds=5),
        database_deadline_seconds=DEADLINE,
    )
    clients = AppClients()
    yield await clients.serve(app)
    await clients.aclose()
    await close_pool(pool, 2.0)


async def _send(client: Client, call: Call) -> tuple[Call, int, Any, float]:
    headers = {"Authorization": f"Bearer {KEY}"}
    if call.content_type is not None:
        headers["Content-Type"] = call.content_type
    started = time.monotonic()
    response = await client.request(call.method, call.path, data=call.body, headers=headers)
    took = time.monotonic() - started  # the status line and headers: the answer came
    answer = await response.json() if response.content_type == "application/json" else None
    response.close()
    return call, response.status, answer, took


def _code(answer: Any) -> str | None:
    if not isinstance(answer, dict):
        return None
    if "status" in answer:  # /healthz
        return str(answer["status"])
    error = answer.get("error")
    return error.get("code") if isinstance(error, dict) else None


def _report(results: list[tuple[Call, int, Any, float]]) -> str:
    groups: dict[str, list[float]] = {}
    for call, _, _, took in results:
        groups.setdefault(call.group, []).append(took)
    lines = [f"{'family':<14} routes  deadline  slowest  fastest"]
    for group, times in sorted(groups.items()):
        lines.append(
            f"{group:<14} {len(times):>6}  {DEADLINE:>7.1f}s  {max(times) * 1000:>5.0f}ms"
            f"  {min(times) * 1000:>5.0f}ms"
        )
    return "\n".join(lines)


async def test_every_route_answers_at_its_deadline_under_a_frozen_database(
    fault_server: FaultServer, client: Client, model_server: ModelServer
) -> None:
    document = await (await client.get("/api/openapi.json")).json()
    walk = calls(document)
    registered = {(route.method, route.path) for route in (*ROUTES, openapi.ROUTE)}
    assert {(call.method, call.template) for call in walk} == registered  # every route
    assert (await client.get("/healthz")).status == 200
    fault_server.stall()
    try:
        results = await asyncio.gather(*(_send(client, call) for call in walk))
    finally:
        fault_server.resume()
    print("\nroutes under a frozen database:\n" + _report(results))
    for call, status, answer, took in results:
        where = (call.method, call.path, status, answer)
        if (call.method, call.template) in NO_DATABASE:
            assert status < 500, where
        elif call.template == "/healthz":
            assert (status, _code(answer)) == (503, "degraded"), where
        else:
            assert (status, _code(answer)) == (503, UNAVAILABLE[call.family]), where
        assert took < DEADLINE + MARGIN, (where, took)
    assert model_server.requests == []  # no chat turn reached the model
    assert await ABANDONED.settle(2 * COMMAND_SECONDS + 3.0)
    assert (await client.get("/healthz")).status == 200  # back once the server is
