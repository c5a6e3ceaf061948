"""Sessions listing benchmark: a page of an agent's sessions at 100,000 sessions, against a bare
`SELECT 1` on the same pool, in one run.

The agent holds `--sessions` sessions (default 100,000; 1,000 customers, 100 sessions each,
updated a second apart) beside another agent's 20,000. Measured, interleaved (one of each in
turn), as `chat.sessions.session_page` reads them (the route adds its JSON): the first page of
100 (the listing without the new parameters), a page from a cursor 90% of the way down (a deep
keyset page), one customer's first page, and the same over HTTP through the real web process
(`GET /api/chat/sessions/{agentId}`, first and deep page).

Usage: python -m bench.session_list_bench [--sessions N] [--samples N]
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Awaitable, Callable

import aiohttp
import asyncpg
from aiohttp import web

from bench.memory_bench import HEADER, interleaved, row
from bench.serving import print_measured, serve
from callmemory.definition import define_agent
from chat.paging import decode_cursor, encode_cursor, is_session_id
from chat.sessions import session_page
from memory.config import MemoryConfig
from memory.settings import CodeDefaults
from worker.catalog import Catalog
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app

S = "stackbone_platform"
AGENT = "desk"
KEY = "bench-list-key-0123456789abcdefgh"
CUSTOMERS = 1_000
_SEED = f"""insert into {S}.chat_sessions (id, kind, agent_id, session_key, user_id, identities,
    customers, created_at, updated_at, turns)
select md5($1 || n::text), 'session', $1, 'k' || n, 'crm/' || (n % $3),
       jsonb_build_object('customerId', 'crm/' || (n % $3)), array['crm/' || (n % $3)],
       timestamptz '2026-01-01' + make_interval(secs => n), timestamptz '2026-01-01'
       + make_interval(secs => n), 3
  from generate_series(1, $2) as n"""
_AT = f"""select updated_at, id from {S}.chat_sessions where agent_id = $1
 order by updated_at desc, id offset $2 limit 1"""


async def seed(pool: asyncpg.Pool, sessions: int) -> None:
    async with pool.acquire() as conn, conn.transaction():
        await conn.execute("set local statement_timeout = 0")  # a bulk load, not a request
        await conn.execute(_SEED, AGENT, sessions, CUSTOMERS)
        await conn.execute(_SEED, "other", sessions // 5, CUSTOMERS)
    await pool.execute(f"analyze {S}.chat_sessions")


def _app(pool: asyncpg.Pool) -> web.Application:
    keys = [{"name": "b", "key": KEY, "scopes": ["memory:read"]}]
    agent = define_agent(
        name=AGENT, instructions="Help.", memory=CodeDefaults(identity_key="customerId")
    )
    return create_app(
        pool=pool,
        catalog=Catalog([agent]),
        api_keys=parse_api_keys(json.dumps(keys)),
        memory_config=MemoryConfig(base_url="http://127.0.0.1:9", api_key="k"),
    )


async def measure(pool: asyncpg.Pool, sessions: int, samples: int = 300) -> list[str]:
    await seed(pool, sessions)
    deep_row = await pool.fetchrow(_AT, AGENT, sessions * 9 // 10)
    assert deep_row is not None
    deep = encode_cursor(deep_row["updated_at"], deep_row["id"])
    after = decode_cursor(deep, is_session_id)
    _, seven = await session_page(pool, AGENT, 50, customer="crm/7")
    runner, base = await serve(_app(pool))
    headers = {"Authorization": f"Bearer {KEY}"}
    try:
        async with aiohttp.ClientSession(headers=headers) as http:

            def get(query: str) -> Callable[[], Awaitable[object]]:
                async def fetch() -> object:
                    async with http.get(f"{base}/api/chat/sessions/{AGENT}{query}") as r:
                        assert r.status == 200, await r.text()
                        return await r.read()

                return fetch

            select_1 = lambda: pool.fetchval("select 1")  # noqa: E731
            service: dict[str, Callable[[], Awaitable[object]]] = {
                "`SELECT 1` (baseline)": select_1,
                "first page of 100 (no new parameters)": lambda: session_page(pool, AGENT),
                "a page 90% down (cursor)": lambda: session_page(pool, AGENT, after=after),
                "one customer's first page": lambda: session_page(pool, AGENT, customer="crm/7"),
            }
            route: dict[str, Callable[[], Awaitable[object]]] = {
                "`SELECT 1` (baseline, beside the HTTP requests)": select_1,
                "HTTP: first page": get(""),
                "HTTP: a page 90% down (cursor)": get(f"?cursor={deep}"),
                "HTTP: one customer's page 2": get(f"?customer=crm%2F7&limit=50&cursor={seven}"),
            }
            lines = [f"\n{sessions:,} sessions of one agent ({sessions // 5:,} of another)"]
            for probes in (service, route):
                got = await interleaved(list(probes.values()), samples)
                lines += [HEADER, *(row(n, g, got[0]) for n, g in zip(probes, got, strict=True))]
    finally:
        await runner.cleanup()
    return lines


async def main(sessions: int, samples: int) -> None:
    async def run(pool: asyncpg.Pool, n: int) -> list[str]:
        return await measure(pool, n, samples)

    await print_measured("session-list-bench-", run, sessions)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=100_000, help="the agent's sessions")
    parser.add_argument("--samples", type=int, default=300, help="samples of each measurement")
    args = parser.parse_args()
    asyncio.run(main(args.sessions, args.samples))
