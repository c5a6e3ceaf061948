"""Held tools benchmark: how soon a person's decision shows as the continued turn's first
token, against a plain turn's first token on the same app.

Three kinds of streamed turn on the real app (Postgres, the local model server in this
process), each timed from the request leaving the client to the client reading the first
text delta:
- a plain turn on a new session (the floor: settings, claim, one model request);
- a turn that calls a tool that is not held, then answers (two model requests, the tool's run);
- a decision (`POST /api/chat/decisions/{id}` with `stream: true`) on a turn parked on a held
  tool: the decision read and taken, the session claimed and its thread read, the tool run,
  then one model request. The parked turn is made before the clock starts.
One run prints medians, p99 and the ratio of each median to the floor's. The model writes its
deltas 5 ms apart, as the chat wire benchmark's does.

Usage: python -m bench.held_bench [--turns N]   (default 200 of each kind)
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import asyncpg
from livekit.agents import function_tool

from bench.memory_bench import pct
from bench.serving import print_measured, serve
from callmemory.definition import define_agent
from chat import ChatConfig
from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from worker.catalog import Catalog
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app

KEY = "bench-held-key-0123456789abcdefgh"
ANSWER = "Done: the refund is on its way and should arrive in three days."
STREAM_PACE = 0.005
Kind = Callable[[aiohttp.ClientSession, int], Awaitable[float]]


@function_tool
async def issue_refund(order_id: str) -> str:
    """Refund an order.

    Args:
        order_id: the order number
    """
    return f"refunded {order_id}"


@function_tool
async def lookup_order(order_id: str) -> str:
    """Look up an order.

    Args:
        order_id: the order number
    """
    return f"order {order_id}: delivered"


AGENT = define_agent(
    name="refunds",
    instructions="You handle refunds.",
    tools=[issue_refund, lookup_order],
    interrupt_on=["issue_refund"],
)


async def _first_token(response: aiohttp.ClientResponse, marker: bytes) -> float:
    """When the first line carrying a text delta arrived (then the rest is read)."""
    assert response.status == 200, await response.text()
    first = 0.0
    async for line in response.content:
        if not first and marker in line:
            first = time.monotonic()
    assert first, "no text delta"
    return first


def _kinds(base: str, server: ModelServer, run: str) -> dict[str, Kind]:
    bearer = {"Authorization": f"Bearer {KEY}"}
    chat = {"model": "refunds", "stream": True}

    def turn_body(text: str) -> dict[str, Any]:
        return chat | {"messages": [{"role": "user", "content": text}]}

    async def plain(http: aiohttp.ClientSession, i: int) -> float:
        server.answer_text(ANSWER)
        headers = bearer | {"x-stackbone-session": f"{run}-plain-{i}"}
        sent = time.monotonic()
        async with http.post(
            f"{base}/v1/chat/completions", json=turn_body("Hi"), headers=headers
        ) as r:
            return await _first_token(r, b"Done") - sent

    async def tooled(http: aiohttp.ClientSession, i: int) -> float:
        server.call_tool("lookup_order", {"order_id": f"A-{i}"})
        server.answer_text(ANSWER)
        headers = bearer | {"x-stackbone-session": f"{run}-tool-{i}"}
        sent = time.monotonic()
        async with http.post(
            f"{base}/v1/chat/completions", json=turn_body("Where?"), headers=headers
        ) as r:
            return await _first_token(r, b"Done") - sent

    async def decided(http: aiohttp.ClientSession, i: int) -> float:
        server.call_tool("issue_refund", {"order_id": f"A-{i}"})
        headers = bearer | {"x-stackbone-session": f"{run}-held-{i}"}
        body = turn_body("Refund") | {"stream": False}
        async with http.post(f"{base}/v1/chat/completions", json=body, headers=headers) as r:
            ident = (await r.json())["stackbone"]["decision"]["id"]
        server.answer_text(ANSWER)
        url = f"{base}/api/chat/decisions/{ident}"
        sent = time.monotonic()
        async with http.post(
            url, json={"decision": "approve", "stream": True}, headers=bearer
        ) as r:
            return await _first_token(r, b"event: delta") - sent

    return {
        "a plain streamed turn (the floor)": plain,
        "a streamed turn calling a tool that is not held": tooled,
        "a decision to its continued turn's first token": decided,
    }


async def measure(pool: asyncpg.Pool, turns: int) -> list[str]:
    server = ModelServer(stream_pace=STREAM_PACE)
    await server.start()
    keys = [{"name": "b", "key": KEY, "scopes": ["chat", "decisions"]}]
    app = create_app(
        pool=pool,
        catalog=Catalog([AGENT]),
        api_keys=parse_api_keys(json.dumps(keys)),
        memory_config=MemoryConfig(base_url=server.url, api_key="k"),
        chat=ChatConfig(base_url=server.url, api_key="k", model="bench-model"),
    )
    runner, base = await serve(app)
    kinds = _kinds(base, server, f"bench-{time.time_ns()}")
    samples: dict[str, list[float]] = {name: [] for name in kinds}
    try:
        async with aiohttp.ClientSession() as http:
            for warm in range(min(20, turns)):
                for kind in kinds.values():
                    await kind(http, -1 - warm)
            for i in range(turns):
                for name, kind in kinds.items():
                    samples[name].append(await kind(http, i))
    finally:
        await runner.cleanup()
        await server.stop()
    return _table(samples)


HEADER = "| streamed turn | first token p50 ms | p99 ms | ratio (p50) |\n|---|---:|---:|---:|"


def _table(samples: dict[str, list[float]]) -> list[str]:
    floor = pct(next(iter(samples.values())), 50)
    rows = [HEADER]
    for name, got in samples.items():
        p50, p99 = pct(got, 50), pct(got, 99)
        rows.append(f"| {name} | {p50 * 1000:.2f} | {p99 * 1000:.2f} | {p50 / floor:.2f}x |")
    return rows


async def main(turns: int) -> None:
    await print_measured("held-bench-", measure, turns)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=200, help="turns of each kind")
    asyncio.run(main(parser.parse_args().turns))
