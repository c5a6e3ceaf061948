"""Chat sessions under load: the database round trips of one session turn, before and after the
statements were merged, and many concurrent clients against an instant model.

1. Round trips: a delaying proxy (`testkit.delay_proxy`, no delay) between the web app and
   Postgres counts the round trips of one session turn on the OpenAI wire (the turn as built
   now), and of the same turn's database work as it was before (settings, claim, thread, then
   the record and the release in a transaction: `_legacy_turn` replays those statements).
2. Load: `--clients` clients (50) each send session turns, one after another on a session of
   their own, for `--seconds` (30), beside a CPU hog process (one core kept busy, as another
   service would). The same clients then load a bare aiohttp route of the same app that
   forwards to the same model (the floor). Printed: turns/s of both, their ratio and the
   answers by status (the goal: no 5xx).

Usage: python -m bench.chat_load_bench [--clients 50] [--seconds 30] [--no-hog] [--pools 5,10]
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import logging
import sys
import time
from urllib.parse import urlsplit

import aiohttp
import asyncpg
from aiohttp import web

from bench.chat_wire_bench import HI, KEY, SESSION, _echo_route
from bench.memory_bench import bench_database
from bench.serving import serve
from callmemory.definition import define_agent
from chat import ChatConfig
from infra.database import create_pool
from infra.logs import configure_logging
from memory.config import MemoryConfig
from memory.settings import CodeDefaults
from testkit.delay_proxy import DelayProxy
from worker.catalog import Catalog, prompt
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app

_S = "stackbone_platform"
BEARER = {"Authorization": f"Bearer {KEY}"}
CHAT = {"model": "support", "messages": HI}


async def _legacy_turn(pool: asyncpg.Pool, ident: str) -> None:
    """A session turn's statements before the merge: settings, claim, thread, record in a
    transaction (begin, turn, done, commit)."""
    await pool.fetchrow(f"select * from {_S}.memory_agent_overrides where agent_id = $1", "support")
    await pool.fetchrow(
        f"""insert into {_S}.chat_sessions (id, kind, agent_id, session_key, user_id, busy_until)
        values ($1, 'session', 'support', $1, null, now() + interval '6 minutes')
        on conflict (id) do update set busy_until = excluded.busy_until
        where {_S}.chat_sessions.busy_until is null or {_S}.chat_sessions.busy_until < now()
        returning turns""",
        ident,
    )
    await pool.fetch(f"select messages from {_S}.chat_turns where session_id = $1", ident)
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute(
            f"""insert into {_S}.chat_turns (session_id, position, messages, user_message, reply,
            prompt_tokens, completion_tokens, duration_ms)
            select $1, s.turns, '[]', 'hi', 'hello', 1, 1, 1 from {_S}.chat_sessions s
            where s.id = $1""",
            ident,
        )
        await conn.execute(
            f"update {_S}.chat_sessions set turns = turns + 1, busy_until = null where id = $1",
            ident,
        )


COMPLETION = {
    "id": "chatcmpl-bench",
    "object": "chat.completion",
    "created": 0,
    "model": "bench-model",
    "choices": [
        {"index": 0, "message": {"role": "assistant", "content": "Hello."}, "finish_reason": "stop"}
    ],
    "usage": {"prompt_tokens": 11, "completion_tokens": 2, "total_tokens": 13},
}


async def _instant_model() -> tuple[web.AppRunner, str]:
    """A Chat Completions endpoint that answers every request at once."""

    async def answer(request: web.Request) -> web.Response:
        await request.read()
        return web.json_response(COMPLETION)

    app = web.Application()
    app.router.add_post("/v1/chat/completions", answer)
    return await _run(app, "/v1")


async def _run(app: web.Application, suffix: str = "") -> tuple[web.AppRunner, str]:
    runner, base = await serve(app)
    return runner, f"{base}{suffix}"


async def _serve(pool: asyncpg.Pool, model_url: str) -> tuple[web.AppRunner, str]:
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
        memory_config=MemoryConfig(base_url=model_url, api_key="k"),
        chat=ChatConfig(base_url=model_url, api_key="k", model="bench-model"),
    )
    app.router.add_post("/bench/echo", _echo_route(model_url))

    async def echo_client(app: web.Application):  # type: ignore[no-untyped-def]
        app[SESSION] = aiohttp.ClientSession()
        yield
        await app[SESSION].close()

    app.cleanup_ctx.append(echo_client)
    return await _run(app)


async def round_trips(proxy: DelayProxy, pool: asyncpg.Pool, base: str, turns: int) -> None:
    async with aiohttp.ClientSession() as http:
        for i in range(3):  # warm: the pool's connections open
            await http.post(f"{base}/v1/chat/completions", json=CHAT, headers=BEARER)
            await _legacy_turn(pool, f"warm-{i}")
        start = time.monotonic()
        for i in range(turns):
            session = {"x-stackbone-session": f"rt-{i % 5}"}
            async with http.post(
                f"{base}/v1/chat/completions", json=CHAT, headers=BEARER | session
            ) as r:
                assert r.status == 200, await r.text()
        now = proxy.turns_between(start, time.monotonic()) / turns
    start = time.monotonic()
    for i in range(turns):
        await _legacy_turn(pool, f"legacy-{i % 5}")
    before = proxy.turns_between(start, time.monotonic()) / turns
    print("| database round trips per session turn | before | now |\n|---|---:|---:|")
    print(f"| OpenAI wire, a session turn | {before:.1f} | {now:.1f} |", flush=True)


async def load(base: str, path: str, clients: int, seconds: float) -> tuple[float, dict[int, int]]:
    statuses: collections.Counter[int] = collections.Counter()
    stop = time.monotonic() + seconds
    body = CHAT if path != "/bench/echo" else {"model": "m", "messages": HI}

    async def client(n: int, http: aiohttp.ClientSession) -> None:
        headers = BEARER | {"x-stackbone-session": f"load-{n}"}
        while time.monotonic() < stop:
            async with http.post(f"{base}{path}", json=body, headers=headers) as r:
                await r.read()
                statuses[r.status] += 1

    connector = aiohttp.TCPConnector(limit=clients)
    async with aiohttp.ClientSession(connector=connector) as http:
        started = time.monotonic()
        await asyncio.gather(*(client(n, http) for n in range(clients)))
        took = time.monotonic() - started
    return sum(statuses.values()) / took, dict(statuses)


async def _counted(url: str, model_url: str) -> None:
    """Round trips, through a proxy that counts them (its own app and pool)."""
    proxy = DelayProxy(url, rtt_ms=0)
    await proxy.start()
    pool = await create_pool(proxy.url_for(urlsplit(url).path.lstrip("/")), max_size=5)
    runner, base = await _serve(pool, model_url)
    try:
        await round_trips(proxy, pool, base, 50)
    finally:
        await runner.cleanup()
        await pool.close()
        await proxy.stop()


async def _loaded(
    url: str, model_url: str, clients: int, seconds: float, *, hog: bool, size: int
) -> None:
    """The load, straight to Postgres on a web pool of `size` (no proxy in the loop)."""
    pool = await create_pool(url, min_size=size, max_size=size)
    runner, base = await _serve(pool, model_url)
    spinner = None
    try:
        if hog:
            spinner = await asyncio.create_subprocess_exec(sys.executable, "-c", "while 1: pass")
        wire, wire_statuses = await load(base, "/v1/chat/completions", clients, seconds)
        bare, bare_statuses = await load(base, "/bench/echo", clients, seconds)
    finally:
        if spinner is not None:
            spinner.kill()
            await spinner.wait()
        await runner.cleanup()
        await pool.close()
    hogged = "on" if hog else "off"
    print(f"\n{clients} clients, {seconds:g} s each, web pool {size}, CPU hog {hogged}")
    print("| route | turns/s | answers by status |\n|---|---:|---|")
    print(f"| OpenAI wire, session turns | {wire:.0f} | {wire_statuses} |")
    print(f"| bare aiohttp route, same model | {bare:.0f} | {bare_statuses} |")
    print(f"wire / bare: {wire / bare:.2f}", flush=True)


async def main(clients: int, seconds: float, hog: bool, pools: list[int]) -> None:
    configure_logging(logging.WARNING)
    url = await bench_database("chat-load-")
    model, model_url = await _instant_model()
    try:
        await _counted(url, model_url)
        for size in pools:
            await _loaded(url, model_url, clients, seconds, hog=hog, size=size)
    finally:
        await model.cleanup()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--no-hog", action="store_true", help="no CPU hog beside the service")
    parser.add_argument("--pools", default="5", help="web pool sizes to load, e.g. 5,10")
    args = parser.parse_args()
    sizes = [int(n) for n in args.pools.split(",")]
    asyncio.run(main(args.clients, args.seconds, not args.no_hog, sizes))
