"""What the web benchmarks share: an app served on a free local port, and a run's `main` (a
fresh migrated database, a pool, the measured table printed line by line)."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

import asyncpg
from aiohttp import web

from bench.memory_bench import bench_database
from infra.database import create_pool
from infra.logs import configure_logging

Measure = Callable[[asyncpg.Pool, int], Awaitable[list[str]]]


async def serve(app: web.Application) -> tuple[web.AppRunner, str]:
    """`app` on 127.0.0.1 at a free port: its runner (clean it up) and its base URL."""
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    return runner, f"http://127.0.0.1:{port}"


async def print_measured(prefix: str, measure: Measure, count: int, *, pool_size: int = 5) -> None:
    """One benchmark run: its own database (`bench_database(prefix)`), a pool of `pool_size`,
    and `measure(pool, count)`'s table printed as it comes."""
    configure_logging(logging.WARNING)
    url = await bench_database(prefix)
    pool = await create_pool(url, min_size=pool_size, max_size=pool_size)
    try:
        for line in await measure(pool, count):
            print(line, flush=True)
    finally:
        await pool.close()
