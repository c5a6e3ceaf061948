"""Chat wire benchmark: what the wire adds to a text turn, split in two legs, against a bare
aiohttp echo route served by the same app.

- in: the request leaves the client → the conversation model's request arrives at the model;
- out: the model's answer is handed to its transport → the client has read the whole answer.

The echo route (`/bench/echo`, added to the same app on the same server) is the floor: it
forwards the client's body to the model with a bare aiohttp client and returns the model's
answer unread. The wire's legs add the rest: body checks, the agent's settings from Postgres,
the session claim and thread (a session turn), the model client, and the answer's shape. One
run prints each leg's median and p99 and its ratio to the echo's, side by side. The model is
the local model server in the same process (no model time is in either leg). A streamed
answer's deltas come 5 ms apart, as a model writes them, so its out leg is the relay of the
last delta, the finish and `[DONE]`, not a backlog of deltas that arrived all at once.

Usage: python -m bench.chat_wire_bench [--turns N]   (default 400 turns of each kind)
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
from aiohttp import web

from bench.memory_bench import pct
from bench.serving import print_measured, serve
from callmemory.definition import define_agent
from chat import ChatConfig
from memory.config import MemoryConfig
from memory.settings import CodeDefaults
from testkit.model_server import ModelServer
from worker.catalog import Catalog, prompt
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app

KEY = "bench-chat-key-0123456789abcdef"
HI = [{"role": "user", "content": "What are your opening hours on Monday?"}]
ANSWER = "We open at nine on Mondays and close at six."
STREAM_PACE = 0.005  # seconds between a streamed answer's deltas, as a model writes them
Legs = tuple[float, float]  # seconds: in, out
Turn = Callable[[aiohttp.ClientSession, str, int], Awaitable[None]]


def _echo_route(model_url: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def echo(request: web.Request) -> web.Response:
        body = await request.read()
        session: aiohttp.ClientSession = request.app[SESSION]
        async with session.post(f"{model_url}/chat/completions", data=body) as answer:
            raw = await answer.read()
        return web.Response(body=raw, content_type="application/json")

    return echo


SESSION = web.AppKey("bench_echo_session", aiohttp.ClientSession)


async def _post(http: aiohttp.ClientSession, url: str, body: Any, **headers: str) -> None:
    async with http.post(url, json=body, headers=headers) as response:
        await response.read()
        assert response.status == 200, response.status


def _turns(base: str) -> dict[str, Turn]:
    bearer = {"Authorization": f"Bearer {KEY}"}
    chat = {"model": "support", "messages": HI}

    async def echo(http: aiohttp.ClientSession, _: str, i: int) -> None:
        await _post(http, f"{base}/bench/echo", {"model": "m", "messages": HI})

    async def openai_plain(http: aiohttp.ClientSession, _: str, i: int) -> None:
        await _post(http, f"{base}/v1/chat/completions", chat, **bearer)

    async def openai_session(http: aiohttp.ClientSession, run: str, i: int) -> None:
        session = {"x-stackbone-session": f"{run}-{i}"}  # a new session each turn
        await _post(http, f"{base}/v1/chat/completions", chat, **bearer, **session)

    async def openai_stream(http: aiohttp.ClientSession, _: str, i: int) -> None:
        await _post(http, f"{base}/v1/chat/completions", {**chat, "stream": True}, **bearer)

    async def anthropic_plain(http: aiohttp.ClientSession, _: str, i: int) -> None:
        body = {**chat, "max_tokens": 200}
        await _post(http, f"{base}/v1/messages", body, **{"x-api-key": KEY})

    return {
        "bare aiohttp echo route (the floor)": echo,
        "OpenAI wire, a plain turn": openai_plain,
        "OpenAI wire, a session turn (claim, thread, record)": openai_session,
        "OpenAI wire, streamed (`stream: true`)": openai_stream,
        "Anthropic wire, a plain turn": anthropic_plain,
    }


async def _one(
    server: ModelServer, turn: Turn, http: aiohttp.ClientSession, run: str, i: int
) -> Legs:
    server.answer_text(ANSWER)
    sent = time.monotonic()
    await turn(http, run, i)
    read = time.monotonic()
    return server.received_at[-1] - sent, read - server.answered_at[-1]


async def measure(pool: asyncpg.Pool, turns: int) -> list[str]:
    """The table's rows: each kind of turn `turns` times, interleaved, after a warm-up."""
    server = ModelServer(stream_pace=STREAM_PACE)
    await server.start()
    catalog = Catalog(
        [
            define_agent(
                name="support",
                instructions=prompt("support"),
                memory=CodeDefaults(read=False, save=False),
            )
        ]
    )
    app = create_app(
        pool=pool,
        catalog=catalog,
        api_keys=parse_api_keys(json.dumps([{"name": "b", "key": KEY, "scopes": ["chat"]}])),
        memory_config=MemoryConfig(base_url=server.url, api_key="k"),
        chat=ChatConfig(base_url=server.url, api_key="k", model="bench-model"),
    )
    app.router.add_post("/bench/echo", _echo_route(server.url))

    async def echo_client(app: web.Application) -> Any:
        app[SESSION] = aiohttp.ClientSession()
        yield
        await app[SESSION].close()

    app.cleanup_ctx.append(echo_client)
    runner, base = await serve(app)
    kinds = _turns(base)
    run = f"bench-{time.time_ns()}"
    samples: dict[str, list[Legs]] = {name: [] for name in kinds}
    try:
        async with aiohttp.ClientSession() as http:
            for warm in range(min(50, turns)):
                for turn in kinds.values():
                    await _one(server, turn, http, f"{run}-warm", warm)
            for i in range(turns):
                for name, turn in kinds.items():
                    samples[name].append(await _one(server, turn, http, run, i))
    finally:
        await runner.cleanup()
        await server.stop()
    return legs_table(samples)


def legs_table(samples: dict[str, list[Legs]], first: str = "turn") -> list[str]:
    """A row per kind: both legs' p50 and p99 in µs, and their ratio to the first kind's."""
    header = (
        f"| {first} | in p50 µs | in p99 µs | in ratio (p50) "
        "| out p50 µs | out p99 µs | out ratio (p50) |\n"
        "|---|---:|---:|---:|---:|---:|---:|"
    )
    rows = [header]
    if not samples:
        return rows
    legs = {
        name: ([s[0] * 1e6 for s in got], [s[1] * 1e6 for s in got])
        for name, got in samples.items()
    }
    floor_in, floor_out = next(iter(legs.values()))
    for name, (leg_in, leg_out) in legs.items():
        rows.append(
            f"| {name} | {pct(leg_in, 50):.0f} | {pct(leg_in, 99):.0f} "
            f"| {pct(leg_in, 50) / pct(floor_in, 50):.2f}x "
            f"| {pct(leg_out, 50):.0f} | {pct(leg_out, 99):.0f} "
            f"| {pct(leg_out, 50) / pct(floor_out, 50):.2f}x |"
        )
    return rows


async def main(turns: int) -> None:
    await print_measured("chat-bench-", measure, turns)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=400, help="turns of each kind")
    asyncio.run(main(parser.parse_args().turns))
