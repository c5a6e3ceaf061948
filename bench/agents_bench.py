"""Agents benchmark: what defining agents in a team's own code costs, measured side by side.

- start-up, loading: `load_agents("pkg:agents")` of a freshly written package (one agent, one
  function tool), against importing a freshly written empty module (the floor);
- start-up, registering: the web process's `register_agents` of one agent on its pool, against
  a `SELECT 1` on the same pool; a worker's one registration (its own connection, as
  `CallerMemory.from_env` does), against opening and closing a connection;
- a text turn through the OpenAI wire (the real app, Postgres, the local model server in this
  process): an agent with no tools answering at once (the floor), the same with one tool
  offered but not called, and with one tool call (two model requests and the tool's run).

One run prints medians and ratios. Usage: python -m bench.agents_bench [--runs N]
(default 200). Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import logging
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from bench.memory_bench import bench_database, pct
from bench.serving import serve
from callmemory.agent_import import load_agents
from callmemory.registration import declared, register_agents
from chat import ChatConfig
from infra.database import create_pool
from infra.logs import configure_logging
from memory.config import MemoryConfig
from testkit.model_server import ModelServer
from worker.catalog import Catalog
from worker.http.server.auth import parse_api_keys
from worker.http.web import create_app

KEY = "bench-agents-key-0123456789abcdef"
PACKAGE = '''
from livekit.agents import function_tool
from callmemory import CodeDefaults, define_agent


@function_tool
async def lookup_order(order_id: str) -> str:
    """Look up an order.

    Args:
        order_id: the order number
    """
    return "shipped on Monday"


agents = [
    define_agent(name="plain", instructions="You help.", memory=CodeDefaults()),
    define_agent(
        name="tooled", instructions="You help.", memory=CodeDefaults(), tools=[lookup_order]
    ),
]
'''
Timed = Callable[[int], Awaitable[None]]


def _ms(values: list[float]) -> float:
    return pct(values, 50) * 1000


async def _timed(runs: int, work: Timed) -> list[float]:
    out = []
    for i in range(runs):
        started = time.perf_counter()
        await work(i)
        out.append(time.perf_counter() - started)
    return out


def loading(root: Path, runs: int) -> list[str]:
    """Loading a fresh package's definitions vs importing a fresh empty module."""
    sys.path.insert(0, str(root))
    empty, agents = [], []
    for i in range(runs):
        (root / f"bench_empty_{i}.py").write_text("")
        (root / f"bench_agents_{i}.py").write_text(PACKAGE)
    importlib.invalidate_caches()
    for i in range(runs):
        started = time.perf_counter()
        importlib.import_module(f"bench_empty_{i}")
        empty.append(time.perf_counter() - started)
        started = time.perf_counter()
        load_agents(f"bench_agents_{i}:agents")
        agents.append(time.perf_counter() - started)
    ratio = _ms(agents) / _ms(empty)
    return [
        f"| loading AGENTS (1 definition with 1 tool) | {_ms(agents):.2f} "
        f"| empty module import {_ms(empty):.2f} | {ratio:.1f}x |"
    ]


async def registering(pool: asyncpg.Pool, url: str, runs: int) -> list[str]:
    tooled = load_agents("bench_agents_0:agents")[1]
    one = [declared(tooled)]

    async def select(_: int) -> None:
        await pool.fetchval("select 1")

    async def register(_: int) -> None:
        await register_agents(pool, one, "AGENTS=bench", "module")

    async def connect(_: int) -> None:
        conn = await asyncpg.connect(url)
        await conn.close()

    async def worker(_: int) -> None:
        conn = await asyncpg.connect(url)
        try:
            await register_agents(conn, one, "worker bench.py", "worker")
        finally:
            await conn.close()

    floor, reg = await _timed(runs, select), await _timed(runs, register)
    opened, once = await _timed(runs, connect), await _timed(runs, worker)
    return [
        f"| registering 1 agent on the pool | {_ms(reg):.2f} | SELECT 1 {_ms(floor):.2f} "
        f"| {_ms(reg) / _ms(floor):.1f}x |",
        f"| a worker's one registration (own connection) | {_ms(once):.2f} "
        f"| connect + close {_ms(opened):.2f} | {_ms(once) / _ms(opened):.1f}x |",
    ]


async def turns(pool: asyncpg.Pool, runs: int) -> list[str]:
    server = ModelServer()
    await server.start()
    keys = parse_api_keys(json.dumps([{"name": "b", "key": KEY, "scopes": ["chat"]}]))
    app = create_app(
        pool=pool,
        catalog=Catalog(load_agents("bench_agents_0:agents")),
        api_keys=keys,
        memory_config=MemoryConfig(base_url=server.url, api_key="k"),
        chat=ChatConfig(base_url=server.url, api_key="k", model="bench-model"),
        agents_path="bench_agents_0:agents",
    )
    runner, base = await serve(app)
    headers = {"Authorization": f"Bearer {KEY}"}
    ask = [{"role": "user", "content": "Where is order A-100?"}]

    def kind(agent: str, call: bool) -> Callable[[aiohttp.ClientSession], Awaitable[None]]:
        async def one(http: aiohttp.ClientSession) -> None:
            if call:
                server.call_tool("lookup_order", {"order_id": "A-100"})
            server.answer_text("It shipped on Monday.")
            body: dict[str, Any] = {"model": agent, "messages": ask}
            async with http.post(f"{base}/v1/chat/completions", json=body, headers=headers) as r:
                await r.read()
                assert r.status == 200, r.status

        return one

    kinds = {
        "no tools (the floor)": kind("plain", False),
        "one tool offered, not called": kind("tooled", False),
        "one tool call (2 model requests)": kind("tooled", True),
    }
    samples: dict[str, list[float]] = {name: [] for name in kinds}
    try:
        async with aiohttp.ClientSession() as http:
            for _ in range(min(30, runs)):
                for one in kinds.values():
                    await one(http)
            for _ in range(runs):
                for name, one in kinds.items():
                    started = time.perf_counter()
                    await one(http)
                    samples[name].append(time.perf_counter() - started)
    finally:
        await runner.cleanup()
        await server.stop()
    floor = _ms(next(iter(samples.values())))
    return [
        f"| text turn, {name} | {_ms(got):.2f} | p99 {pct(got, 99) * 1000:.2f} "
        f"| {_ms(got) / floor:.2f}x |"
        for name, got in samples.items()
    ]


async def main(runs: int) -> None:
    configure_logging(logging.WARNING)
    url = await bench_database("agents-bench-")
    pool = await create_pool(url, min_size=2, max_size=5)
    print("| what | median ms | floor (median ms) | ratio |\n|---|---:|---:|---:|")
    try:
        for line in loading(Path(tempfile.mkdtemp(prefix="agents-bench-pkg-")), min(runs, 50)):
            print(line, flush=True)
        for line in await registering(pool, url, runs):
            print(line, flush=True)
        for line in await turns(pool, runs):
            print(line, flush=True)
    finally:
        await pool.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200, help="samples of each kind")
    asyncio.run(main(parser.parse_args().runs))
