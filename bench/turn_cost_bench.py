"""The text turn's own cost: one OpenAI-wire session turn against a hand-written aiohttp handler
that does the same work, interleaved in one run on one server and one pool.

The hand-written handler checks the bearer key, reads the body, sends the very statements a
session turn sends (the one statement that reads the agent's settings, claims the session and
reads its thread; then the record that appends the turn and frees the session), sends the same
model request with a bare aiohttp client, and writes the same OpenAI completion, all inline:
no route table, no guard, no turn service. The wire's turn goes through everything (the guard,
the body's model, the agent's definition, `chat.ChatTurns`, the tool loop, the journal's digest,
the answer's shape). The model is the local model server, answering at once. One run prints
each kind's p50 and p99 in µs and the wire's ratio to the hand-written handler.

Usage: python -m bench.turn_cost_bench [--turns N]   (default 400 turns of each kind)
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import aiohttp
import asyncpg
from aiohttp import web

from bench.memory_bench import pct
from bench.serving import print_measured, serve
from callmemory import define_agent
from chat import ChatConfig, address_of
from chat.session_claim import _OPEN  # the statements a session turn sends, as they are
from chat.turn_record import _RECORD
from memory.config import MemoryConfig
from memory.settings import CodeDefaults
from testkit.model_server import ModelServer
from worker.catalog import Catalog
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app

KEY = "bench-turn-key-0123456789abcdef"
AGENT = "support"
MODEL = "bench-model"
INSTRUCTIONS = "You answer questions about the shop."
HI = [{"role": "user", "content": "What are your opening hours on Monday?"}]
ANSWER = "We open at nine on Mondays and close at six."
LEASE = 10.0
POOL = web.AppKey("bench_pool", asyncpg.Pool)
HTTP = web.AppKey("bench_http", aiohttp.ClientSession)
Turn = Callable[[aiohttp.ClientSession, int], Awaitable[None]]


def _by_hand(model_url: str) -> Callable[[web.Request], Awaitable[web.Response]]:
    """The same turn written by hand, inline."""

    async def turn(request: web.Request) -> web.Response:
        if request.headers.get("Authorization") != f"Bearer {KEY}":
            raise web.HTTPUnauthorized()
        body = await request.json()
        key = request.headers["x-stackbone-session"]
        address = address_of("session", AGENT, key, None, {})
        pool = request.app[POOL]
        opened = await pool.fetchrow(
            _OPEN, AGENT, address.id, "session", key, None, "{}", [], LEASE, None, True
        )
        messages = [{"role": "system", "content": INSTRUCTIONS}, *body["messages"]]
        sent = {"model": MODEL, "messages": messages}
        async with request.app[HTTP].post(f"{model_url}/chat/completions", json=sent) as got:
            answer = await got.json()
        choice = answer["choices"][0]
        reply = choice["message"]["content"]
        usage = answer["usage"]
        kept = [*body["messages"], {"role": "assistant", "content": reply}]
        assert opened is not None
        await pool.fetchval(
            _RECORD,
            address.id,
            opened["claim_token"],
            json.dumps(kept),
            body["messages"][-1]["content"],
            reply,
            usage["prompt_tokens"],
            usage["completion_tokens"],
            1.0,
            "[]",
            None,
            None,
            None,
            choice["finish_reason"],
        )
        message = {"role": "assistant", "content": reply, "refusal": None}
        return web.json_response(
            {
                "id": f"chatcmpl-{uuid.uuid4().hex}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "logprobs": None,
                        "finish_reason": choice["finish_reason"],
                    }
                ],
                "usage": usage,
            }
        )

    return turn


async def _post(http: aiohttp.ClientSession, url: str, body: Any, headers: dict[str, str]) -> None:
    async with http.post(url, json=body, headers=headers) as response:
        await response.read()
        assert response.status == 200, response.status


def _turns(base: str, run: str) -> dict[str, Turn]:
    chat = {"model": AGENT, "messages": HI}

    def headers(kind: str, i: int) -> dict[str, str]:  # a new session each turn
        return {"Authorization": f"Bearer {KEY}", "x-stackbone-session": f"{run}-{kind}-{i}"}

    async def by_hand(http: aiohttp.ClientSession, i: int) -> None:
        await _post(http, f"{base}/bench/by-hand", chat, headers("hand", i))

    async def wire(http: aiohttp.ClientSession, i: int) -> None:
        await _post(http, f"{base}/v1/chat/completions", chat, headers("wire", i))

    return {"hand-written handler (the floor)": by_hand, "OpenAI wire, a session turn": wire}


async def _serve(pool: asyncpg.Pool, server: ModelServer) -> tuple[web.AppRunner, str]:
    agent = define_agent(
        name=AGENT, instructions=INSTRUCTIONS, memory=CodeDefaults(read=False, save=False)
    )
    app = create_app(
        pool=pool,
        catalog=Catalog([agent]),
        api_keys=parse_api_keys(json.dumps([{"name": "b", "key": KEY, "scopes": ["chat"]}])),
        memory_config=MemoryConfig(base_url=server.url, api_key="k"),
        chat=ChatConfig(base_url=server.url, api_key="k", model=MODEL),
    )
    app.router.add_post("/bench/by-hand", _by_hand(server.url))

    async def bare(app: web.Application) -> Any:
        app[POOL] = pool
        app[HTTP] = aiohttp.ClientSession()
        yield
        await app[HTTP].close()

    app.cleanup_ctx.append(bare)
    return await serve(app)


async def measure(pool: asyncpg.Pool, turns: int) -> list[str]:
    """Each kind `turns` times, interleaved, after a warm-up; a row per kind."""
    server = ModelServer()
    await server.start()
    runner, base = await _serve(pool, server)
    kinds = _turns(base, f"bench-{time.time_ns()}")
    samples: dict[str, list[float]] = {name: [] for name in kinds}
    try:
        async with aiohttp.ClientSession() as http:
            for i in range(turns + min(50, turns)):
                for name, turn in kinds.items():
                    server.answer_text(ANSWER)
                    started = time.perf_counter()
                    await turn(http, i)
                    if i >= min(50, turns):
                        samples[name].append((time.perf_counter() - started) * 1e6)
    finally:
        await runner.cleanup()
        await server.stop()
    _check_same_model_requests(server.requests)
    floor = pct(next(iter(samples.values())), 50)
    rows = ["| turn | p50 µs | p99 µs | ratio (p50) |", "|---|---:|---:|---:|"]
    for name, got in samples.items():
        rows.append(
            f"| {name} | {pct(got, 50):.0f} | {pct(got, 99):.0f} | {pct(got, 50) / floor:.2f}x |"
        )
    return rows


def _check_same_model_requests(requests: list[dict[str, Any]]) -> None:
    """Both kinds asked the model the same thing (the same messages and model)."""
    shapes = {json.dumps([r["model"], r["messages"]]) for r in requests}
    assert len(shapes) == 1, shapes


async def main(turns: int) -> None:
    await print_measured("turn-cost-bench-", measure, turns)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=400, help="turns of each kind")
    asyncio.run(main(parser.parse_args().turns))
