"""The add route against `Memory.add` called directly, interleaved in one run on one database.

- `Memory.add`: the public call on the benchmark's pool (validation, the snapshot read, the
  model request, the one-statement write, the envelope).
- the route: `POST /api/memory/customers/{agentId}/add` over HTTP on localhost to the real app
  (`create_app`, served by the same runner as `python -m worker.http`), client in this process:
  the key check, the agent's settings read, the same add, the answer model, the JSON both ways.
- the route with a new `Idempotency-Key` each time: also the key's claim and the kept answer.
- the route retried with a used key: the kept answer, no model request.

The model answers at once from its own process (`bench.model_process`), the same answer (no
operations, a summary) for every add, so each add writes one call record. Each round runs the
four in turn; the table gives p50 and p99 in µs and each row's ratio to `Memory.add`.

Usage: python -m bench.add_route_bench [--samples N]   (default 300 of each)
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import logging
from collections.abc import Awaitable, Callable

import aiohttp

from bench.memory_bench import bench_database, interleaved, pct
from bench.model_process import model_process
from callmemory.definition import define_agent
from infra.database import create_pool
from infra.logs import configure_logging
from memory.api import open_memory
from memory.config import MemoryConfig
from memory.store import MemoryStore
from worker.catalog import Catalog, prompt
from worker.http.server.auth import parse_api_keys
from worker.http.server.serving import make_runner, start_site
from worker.http.web import create_app

SECRET = "bench-writer-secret-0123456789ab"
ANSWER = json.dumps({"operations": [], "summary": "Asked about an order."})
CONTENT = "Hi, I'm calling about my order from last week; it has not arrived yet."


def _route(
    session: aiohttp.ClientSession, url: str, user: str, key: Callable[[], str | None]
) -> Callable[[], Awaitable[None]]:
    async def post() -> None:
        headers = {"Authorization": f"Bearer {SECRET}"}
        if (value := key()) is not None:
            headers["Idempotency-Key"] = value
        body = {"userId": user, "content": CONTENT}
        async with session.post(url, json=body, headers=headers) as response:
            assert response.status == 200, await response.text()
            await response.read()

    return post


def _row(name: str, samples: list[float], base: list[float]) -> str:
    p50, p99 = pct(samples, 50), pct(samples, 99)
    return f"| {name} | {p50:8.0f} | {p99:8.0f} | {p50 / pct(base, 50):6.2f}x |"


async def main(samples: int) -> None:
    configure_logging(logging.WARNING)
    url = await bench_database("add-route-bench-")
    pool = await create_pool(url, min_size=4, max_size=4)
    async with model_process(0.0, ANSWER) as model_url:
        config = MemoryConfig(base_url=model_url, api_key="bench")
        memory = open_memory(MemoryStore(pool), config)
        keys = parse_api_keys(
            json.dumps([{"name": "b", "key": SECRET, "scopes": ["memory:write"]}])
        )
        app = create_app(
            pool=pool,
            catalog=Catalog([define_agent(name="support", instructions=prompt("support"))]),
            api_keys=keys,
            memory_config=config,
        )
        runner = make_runner(app)
        await runner.setup()
        site = await start_site(runner, "127.0.0.1", 0)
        route = f"http://127.0.0.1:{site.bound_port}/api/memory/customers/support/add"
        fresh = (f"k-{i}" for i in itertools.count())
        try:
            async with aiohttp.ClientSession() as session:
                direct = lambda: memory.add(CONTENT, "support", "direct")  # noqa: E731
                runs = await interleaved(
                    [
                        direct,
                        _route(session, route, "route", lambda: None),
                        _route(session, route, "keyed", lambda: next(fresh)),
                        _route(session, route, "retried", lambda: "used"),
                    ],
                    samples,
                )
        finally:
            await runner.cleanup()
            await memory.aclose()
            await pool.close()
    print("| measurement | p50 µs | p99 µs | p50 ratio to `Memory.add` |\n|---|---:|---:|---:|")
    names = [
        "`Memory.add` called directly (instant model)",
        "the add route over HTTP",
        "the add route with a new `Idempotency-Key`",
        "the add route retried with a used key (no model request)",
    ]
    for name, series in zip(names, runs, strict=True):
        print(_row(name, series, runs[0]))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=300)
    asyncio.run(main(parser.parse_args().samples))
