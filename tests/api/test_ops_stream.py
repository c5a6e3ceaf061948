"""The live ops stream over a real app and Postgres: order, live adds, reconnects, its limits."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import aiohttp
import asyncpg
import pytest
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from memory.api import Memory
from memory.config import MemoryConfig
from memory.store import expire_ops
from testkit.model_server import ModelServer
from tests.api.conftest import auth, build_catalog
from tests.api.test_ops_route import AGED, learn
from tests.memory.helpers import add_op
from tests.web_clients import Client
from worker.http.routes.ops_stream import OPS_STREAMS, OpsStreams
from worker.http.server.auth import ApiKey
from worker.http.web import create_app

STREAM = "/api/memory/ops/stream"
Event = dict[str, Any]
Streams = Callable[..., Awaitable[tuple[Client, web.Application]]]


@pytest.fixture(name="make_streaming")
async def _make_streaming(
    pool: asyncpg.Pool, api_keys: tuple[ApiKey, ...], memory_config: MemoryConfig
) -> AsyncIterator[Streams]:
    """An app whose streams poll every 50 ms and beat every 200 ms, at most `limit` open."""
    clients: list[Client] = []

    async def make(limit: int = 4) -> tuple[Client, web.Application]:
        app = create_app(
            pool=pool, catalog=build_catalog(), api_keys=api_keys, memory_config=memory_config
        )
        app[OPS_STREAMS] = OpsStreams(limit, poll_seconds=0.05, heartbeat_seconds=0.2)
        client: Client = TestClient(TestServer(app))
        await client.start_server()
        clients.append(client)
        return client, app

    yield make
    for client in clients:
        await client.close()


async def read_frame(response: aiohttp.ClientResponse) -> dict[str, str]:
    """The next frame's fields (a comment frame is `{"comment": ...}`), within 10 s."""
    fields: dict[str, str] = {}
    async with asyncio.timeout(10):
        while True:
            line = (await response.content.readline()).decode()
            if line == "":
                return {"eof": ""}
            if line == "\n":
                if fields:
                    return fields
                continue
            name, _, value = line.rstrip("\n").partition(":")
            fields["comment" if name == "" else name] = value.removeprefix(" ")


async def next_events(response: aiohttp.ClientResponse, n: int) -> list[Event]:
    """The next `n` op events, heartbeats skipped; each frame's id is its event's id."""
    events: list[Event] = []
    while len(events) < n:
        frame = await read_frame(response)
        assert "eof" not in frame, "the stream ended early"
        if "comment" in frame:
            continue
        assert frame["event"] == "op"
        event = json.loads(frame["data"])
        assert frame["id"] == str(event["id"])
        events.append(event)
    return events


def texts(events: list[Event]) -> list[str]:
    return [e["ops"][0]["text"] for e in events]


async def test_the_log_arrives_in_order_then_live_adds_follow(
    make_streaming: Streams, memory: Memory, model_server: ModelServer
) -> None:
    client, _ = await make_streaming()
    await learn(memory, model_server, 3)
    async with client.get(f"{STREAM}?agentId=support", headers=auth("memory-reader")) as stream:
        assert stream.status == 200
        assert stream.headers["Content-Type"] == "text/event-stream"
        assert stream.headers["Cache-Control"] == "no-store"
        assert texts(await next_events(stream, 3)) == ["Fact 0.", "Fact 1.", "Fact 2."]
        model_server.answer([add_op("Live fact.")], "s")
        assert (await memory.add("hi", "support", "user-live")).error is None
        [live] = await next_events(stream, 1)
        assert (live["contact"], texts([live])) == ("user-live", ["Live fact."])
        ops = await client.get("/api/memory/ops?agentId=support", headers=auth("memory-reader"))
        assert (await ops.json())["events"][-1] == live  # the same object as the ops route's


async def test_a_reconnect_with_last_event_id_gets_exactly_the_missed_events(
    make_streaming: Streams, memory: Memory, model_server: ModelServer
) -> None:
    client, _ = await make_streaming()
    await learn(memory, model_server, 2)
    async with client.get(f"{STREAM}?agentId=support", headers=auth()) as stream:
        seen = await next_events(stream, 2)
    for i in range(3):  # written while nobody listens
        model_server.answer([add_op(f"Missed {i}.")], "s")
        assert (await memory.add("hi", "support", f"other-{i}")).error is None
    # Last-Event-ID wins over after=0: only the three missed, not the two seen
    headers = auth() | {"Last-Event-ID": str(seen[-1]["id"])}
    async with client.get(f"{STREAM}?agentId=support&after=0", headers=headers) as stream:
        missed = await next_events(stream, 3)
        assert texts(missed) == ["Missed 0.", "Missed 1.", "Missed 2."]
        frame = await read_frame(stream)  # nothing more: the next frame is a heartbeat
        assert frame == {"comment": "keep-alive"}


async def test_after_starts_the_stream_past_a_cursor(
    make_streaming: Streams, memory: Memory, model_server: ModelServer
) -> None:
    client, _ = await make_streaming()
    await learn(memory, model_server, 3)
    async with client.get(f"{STREAM}?agentId=support", headers=auth()) as stream:
        first, *_ = await next_events(stream, 3)
    async with client.get(f"{STREAM}?agentId=support&after={first['id']}", headers=auth()) as s:
        assert texts(await next_events(s, 2)) == ["Fact 1.", "Fact 2."]


@pytest.mark.parametrize(
    ("query", "last_event_id", "field"),
    [
        ("", None, "agentId"),
        ("agentId=support&after=-1", None, "after"),
        ("agentId=support&limit=5", None, "limit"),  # the stream takes no page size
        ("agentId=support&after=1&after=2", None, "after"),
        ("agentId=support&key=admin-secret-0123456789abcdef", None, "key"),  # never in a URL
        ("agentId=support", "seven", "Last-Event-ID"),
        ("agentId=support", "-1", "Last-Event-ID"),
        ("agentId=support", str(2**63), "Last-Event-ID"),
    ],
)
async def test_bad_parameters_are_the_ops_routes_400s(
    make_streaming: Streams, query: str, last_event_id: str | None, field: str
) -> None:
    client, _ = await make_streaming()
    headers = auth() | ({} if last_event_id is None else {"Last-Event-ID": last_event_id})
    response = await client.get(f"{STREAM}?{query}", headers=headers)
    assert (response.status, (await response.json())["error"]["field"]) == (400, field)


async def test_the_largest_cursor_is_accepted(make_streaming: Streams) -> None:
    client, _ = await make_streaming()
    headers = auth() | {"Last-Event-ID": str(2**63 - 1)}
    async with client.get(f"{STREAM}?agentId=support", headers=headers) as stream:
        assert stream.status == 200


async def test_unknown_agent_no_key_and_wrong_scope(make_streaming: Streams) -> None:
    client, _ = await make_streaming()
    unknown = await client.get(f"{STREAM}?agentId=nobody", headers=auth())
    assert (unknown.status, (await unknown.json())["error"]["code"]) == (404, "agent_not_found")
    assert (await client.get(f"{STREAM}?agentId=support")).status == 401
    wrong = await client.get(f"{STREAM}?agentId=support", headers=auth("config-reader"))
    assert wrong.status == 403


async def test_an_expired_cursor_is_410_before_the_stream_starts(
    make_streaming: Streams, memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    client, _ = await make_streaming()
    await learn(memory, model_server, 2)
    ids = [r["id"] for r in await pool.fetch("select id from stackbone_platform.memory_ops")]
    await pool.execute(AGED, ids)
    assert await expire_ops(pool, 30 * 86400) == 2
    headers = auth() | {"Last-Event-ID": str(min(ids))}
    response = await client.get(f"{STREAM}?agentId=support", headers=headers)
    assert (response.status, (await response.json())["error"]["code"]) == (410, "cursor_expired")


async def wait_until_open(app: web.Application, n: int) -> None:
    for _ in range(500):
        if app[OPS_STREAMS].open == n:
            return
        await asyncio.sleep(0.02)
    raise AssertionError(f"not {n} open streams")


async def test_open_streams_at_the_limit_and_past_it(make_streaming: Streams) -> None:
    client, app = await make_streaming(limit=2)
    url = f"{STREAM}?agentId=support"
    first = await client.get(url, headers=auth())
    second = await client.get(url, headers=auth())
    assert (first.status, second.status) == (200, 200)
    refused = await client.get(url, headers=auth())
    assert (refused.status, refused.headers["Retry-After"]) == (503, "1")
    assert (await refused.json())["error"]["code"] == "server_busy"
    first.close()  # the client goes: its stream ends and frees its place
    await wait_until_open(app, 1)
    again = await client.get(url, headers=auth())
    assert again.status == 200
    again.close()
    second.close()
    await wait_until_open(app, 0)


async def test_a_heartbeat_keeps_a_quiet_stream_open(make_streaming: Streams) -> None:
    client, _ = await make_streaming()
    async with client.get(f"{STREAM}?agentId=support", headers=auth()) as stream:
        assert await read_frame(stream) == {"comment": "keep-alive"}
        assert await read_frame(stream) == {"comment": "keep-alive"}


async def test_shutdown_ends_open_streams_cleanly(make_streaming: Streams) -> None:
    """aiohttp waits up to 60 s for running handlers; the streams end at once instead."""
    client, app = await make_streaming()
    stream = await client.get(f"{STREAM}?agentId=support", headers=auth())
    await wait_until_open(app, 1)
    async with asyncio.timeout(10):
        await client.server.close()
    assert app[OPS_STREAMS].open == 0
    frames = [await read_frame(stream) for _ in range(3)]
    assert {"eof": ""} in frames  # a clean end of the body, not a reset
    stream.close()
