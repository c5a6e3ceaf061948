"""Memory benchmark: every figure is a ratio to a bare `SELECT 1` on the same pool, same run.

Usage: python -m bench.memory_bench [--quick] [--no-growth]
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import asyncpg

from bench.legacy_write import LegacyWriteStore
from bench.model_process import model_process
from infra.database import create_pool
from infra.embedded import start_embedded
from infra.logs import configure_logging
from infra.long_ops import LongOpLimits, connect_long
from infra.migrate import run_migrations
from memory.api import Memory, open_memory
from memory.config import MemoryConfig, resolve_choice
from memory.contract import MAX_HISTORY_VERSIONS, CallMetadata, plan, transcript
from memory.extraction import ExtractionModel, build_prompt, handles_for, response_format
from memory.store import MemoryStore
from testkit.databases import with_database
from testkit.model_server import ModelServer

S = "stackbone_platform"


async def timed(fn: Callable[[], Awaitable[object]], n: int) -> list[float]:
    return (await interleaved([fn], n))[0]


async def interleaved(fns: Sequence[Callable[[], Awaitable[object]]], n: int) -> list[list[float]]:
    """Samples in µs, taking one of each in turn so drift on the machine hits all alike."""
    for fn in fns:
        for _ in range(min(50, n)):
            await fn()
    samples: list[list[float]] = [[] for _ in fns]
    for _ in range(n):
        for fn, into in zip(fns, samples, strict=True):
            t = time.perf_counter()
            await fn()
            into.append((time.perf_counter() - t) * 1e6)
    return samples


def pct(samples: list[float], p: float) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[int(p) - 1]


def row(name: str, samples: list[float], base: list[float]) -> str:
    p50, p99 = pct(samples, 50), pct(samples, 99)
    r50, r99 = p50 / pct(base, 50), p99 / pct(base, 99)
    return f"| {name} | {p50:8.0f} | {p99:8.0f} | {r50:6.2f}x | {r99:6.2f}x |"


Loader = asyncpg.Pool | asyncpg.Connection
"""Where seed rows go: the pool for a few, a long operation's connection for a bulk load."""


async def seed_person(pool: Loader, agent: str, user: str, facts: int, calls: int) -> None:
    await pool.execute(
        f"insert into {S}.memory_facts (agent_id, user_id, content, created_at, updated_at)"
        " select $1, $2, repeat(chr(97 + g % 26), 500), now(), now()"
        " from generate_series(1, $3) g",
        agent,
        user,
        facts,
    )
    await pool.execute(
        f"insert into {S}.memory_calls (agent_id, user_id, started_at, summary, created_at)"
        " select $1, $2, now() - g * interval '1 hour', repeat('s', 300), now()"
        " from generate_series(1, $3) g",
        agent,
        user,
        calls,
    )


async def bulk_calls(pool: Loader, people: int, per_person: int) -> None:
    """A bulk load: give it a long operation's connection (it outlasts the pooled limits)."""
    await pool.execute(
        f"insert into {S}.memory_calls (agent_id, user_id, started_at, summary, created_at)"
        " select 'bulk', 'person-' || (g % $1), now() - g * interval '1 second',"
        " 'a summary of a call', now() from generate_series(1, $2) g",
        people,
        people * per_person,
    )
    await pool.execute(f"analyze {S}.memory_calls")


def answer() -> str:
    return json.dumps(
        {
            "operations": [{"op": "add", "handle": None, "content": "Has a dog."}],
            "summary": "A short call.",
        }
    )


def _update(n: int) -> str:
    """An answer updating f1 to a new text each time (a real update that closes a version)."""
    return json.dumps(
        {
            "operations": [{"op": "update", "handle": "f1", "content": f"Has {n} dogs."}],
            "summary": "A short call.",
        }
    )


def _write_path(store: MemoryStore, user: str) -> Callable[[], Awaitable[None]]:
    """Read + validate + write of one update, as an add does after the model answered."""
    counter = iter(range(1_000_000_000))

    async def write_path() -> None:
        snap = await store.snapshot("support", user)
        validated = plan(_update(next(counter)), handles_for(snap.facts))
        await store.write("support", user, snap, validated, _NO_CALL)

    return write_path


_FLOOR = f"""with rev as (
    update {S}.memory_revisions set revision = revision + 1
    where agent_id = $1 and user_id = $2 and revision = $3 returning revision
), upd as (
    update {S}.memory_facts set content = $5, updated_at = now()
    where id = $4::text::uuid and exists (select from rev) returning id
) select (select revision from rev), (select id::text from upd)"""


def _floor_path(pool: asyncpg.Pool, user: str) -> Callable[[], Awaitable[None]]:
    """The least any read-then-write path costs: the cheapest read, and a durable write that
    compares and sets a revision and changes one fact (no history, call record or ops log)."""
    state: dict[str, Any] = {"revision": 0}
    counter = iter(range(1_000_000_000))

    async def floor() -> None:
        if state["revision"] == 0:
            await seed_person(pool, "support", user, facts=1, calls=0)
            await pool.execute(
                f"insert into {S}.memory_revisions (agent_id, user_id, revision)"
                " values ('support', $1, 1)",
                user,
            )
            state["id"] = await pool.fetchval(
                f"select id::text from {S}.memory_facts where user_id = $1", user
            )
            state["revision"] = 1
        await pool.fetchval("select 1")
        fact, text = state["id"], f"Has {next(counter)} dogs."
        await pool.fetch(_FLOOR, "support", user, state["revision"], fact, text)
        state["revision"] += 1

    return floor


async def bench_latency(
    pool: asyncpg.Pool, lazy: asyncpg.Pool, server: ModelServer, n: int
) -> list[str]:
    """`lazy` is a pool on the same database with `synchronous_commit = off`."""
    config = MemoryConfig(base_url=server.url, api_key="bench")
    store = MemoryStore(pool)
    memory = open_memory(store, config)
    await seed_person(pool, "support", "rich", facts=50, calls=100)
    for user in ("writer", "before", "lazy-writer", "lazy-before", "adder"):
        await seed_person(pool, "support", user, facts=10, calls=0)
    await pool.execute("create table bench_flush (x int)")
    for i in range(n + 50):
        server.answer_text(_update(i))
    select_1 = lambda: pool.fetchval("select 1")  # noqa: E731
    samples = await interleaved(
        [
            select_1,
            lambda: pool.execute("insert into bench_flush values (1)"),
            lambda: memory.recall("support", "rich", 5),
            _write_path(store, "writer"),
            _write_path(LegacyWriteStore(pool), "before"),
            _write_path(MemoryStore(lazy), "lazy-writer"),
            _write_path(LegacyWriteStore(lazy), "lazy-before"),
            lambda: memory.history("support", "writer"),
            _floor_path(pool, "floor"),
        ],
        n,
    )
    # the end-to-end add runs the model server in this event loop: paired with its own baseline
    add = lambda: memory.add("hi", "support", "adder")  # noqa: E731
    base_full, full = await interleaved([select_1, add], n)
    await memory.aclose()
    kept = await pool.fetchval(
        f"select closed_versions from {S}.memory_revisions where user_id = 'writer'"
    )
    names = [
        "`SELECT 1` (baseline)",
        "one-row insert, autocommit (the commit's WAL flush every write waits for)",
        "recall (50 facts x 500 chars, 100 calls, calls=5)",
        "add write path (read + validate + one-statement write)",
        "add write path before (read + validate + 9-round-trip transaction)",
        "add write path, `synchronous_commit = off`",
        "add write path before, `synchronous_commit = off`",
        f"history (10 facts, {min(kept, MAX_HISTORY_VERSIONS):,} closed versions)",
        "floor: `SELECT 1` + a bare revision compare-and-set and one fact update, autocommit",
    ]
    return [
        *(row(name, series, samples[0]) for name, series in zip(names, samples, strict=True)),
        row("add end to end (local model server answers at once)*", full, base_full),
    ]


async def bench_throughput(pool: asyncpg.Pool, people: int) -> list[str]:
    """Adds/s and write paths/s with today's write and the earlier one, alternating in rounds.

    The model answers at once from its own process (`bench.model_process`), as a remote
    provider does: its CPU is not this process's.
    """
    async with model_process(0.0, answer()) as url:
        config = MemoryConfig(base_url=url, api_key="bench")
        stores = {"one-statement write": MemoryStore(pool), "before": LegacyWriteStore(pool)}
        memories = {name: open_memory(store, config) for name, store in stores.items()}
        adds, writes = dict.fromkeys(stores, 0.0), dict.fromkeys(stores, 0.0)
        rounds = 4
        for r in range(rounds):
            batch = range(r * people // rounds, (r + 1) * people // rounds)
            for name, store in stores.items():
                memory = memories[name]
                adds[name] += await _in_flight(partial(_add, memory), f"{name}-", batch)
                writes[name] += await _in_flight(partial(_write, store), f"w-{name}-", batch)
        for memory in memories.values():
            await memory.aclose()
        model_cpu = await _model_cpu(config, 300)
    t = time.perf_counter()
    await asyncio.gather(*(pool.fetchval("select 1") for _ in range(people)))
    select_rate = people / (time.perf_counter() - t)
    return [
        *(f"adds/s, {name}: {people / spent:.0f}" for name, spent in adds.items()),
        *(f"write paths/s (no model), {name}: {people / s:.0f}" for name, s in writes.items()),
        f"`SELECT 1`/s on the same pool: {select_rate:.0f}",
        f"CPU of this process per model request (the provider client): {model_cpu * 1e3:.2f} ms",
    ]


async def _model_cpu(config: MemoryConfig, n: int) -> float:
    """Seconds of this process's CPU per extraction request alone, nothing else running."""
    model = ExtractionModel(config)
    prompt = build_prompt(
        (), transcript("hi"), started_at=datetime.now(UTC), instructions=None, guidance=None
    )
    choice, shape = resolve_choice(config, None, None), response_format(True)
    await model.complete(choice, prompt.messages, shape)  # the connection is open
    t = time.process_time()
    for _ in range(n):
        await model.complete(choice, prompt.messages, shape)
    spent = (time.process_time() - t) / n
    await model.aclose()
    return spent


async def _add(memory: Memory, user: str) -> None:
    result = await memory.add("hi", "support", user)
    assert result.error is None, result.error


async def _write(store: MemoryStore, user: str) -> None:
    snap = await store.snapshot("support", user)
    await store.write("support", user, snap, plan(answer(), {}), _NO_CALL)


async def _in_flight(
    one: Callable[[str], Awaitable[None]], prefix: str, people: range, width: int = 8
) -> float:
    """Seconds to run `one` once for each person, `width` at a time."""
    gate = asyncio.Semaphore(width)

    async def gated(i: int) -> None:
        async with gate:
            await one(f"{prefix}{i}")

    t = time.perf_counter()
    await asyncio.gather(*(gated(i) for i in people))
    return time.perf_counter() - t


async def bench_growth(pool: asyncpg.Pool, url: str, n: int, total: int) -> list[str]:
    """Recall at ~1,000 and at `total` call records, each against its own `SELECT 1` series;
    the rows are loaded on a long operation's connection, the recalls run on the pool."""
    memory = open_memory(MemoryStore(pool), MemoryConfig(api_key="bench"))
    loads = await connect_long(url, LongOpLimits())
    try:
        await seed_person(loads, "growth", "probe", facts=50, calls=100)
        await bulk_calls(loads, people=9, per_person=100)  # about 1,000 records in the table
        probe = [lambda: pool.fetchval("select 1"), lambda: memory.recall("growth", "probe", 5)]
        base_small, small = await interleaved(probe, n)
        await bulk_calls(loads, people=total // 100, per_person=100)
    finally:
        await loads.close()
    base_large, large = await interleaved(probe, n)
    count = await pool.fetchval(f"select count(*) from {S}.memory_calls")
    return [
        row("recall, ~1,000 call records (vs `SELECT 1`)", small, base_small),
        row(f"recall, {count:,} call records (vs `SELECT 1`)", large, base_large),
        row("growth: large over small, raw µs", large, small),
    ]


_NO_CALL = CallMetadata()

HEADER = "| measurement | p50 µs | p99 µs | p50 ratio | p99 ratio |\n|---|---:|---:|---:|---:|"


async def fresh_database(admin_url: str) -> str:
    name = "bench_" + uuid.uuid4().hex[:8]
    admin = await asyncpg.connect(admin_url)
    await admin.execute(f'create database "{name}"')
    await admin.close()
    url = with_database(admin_url, name)
    await run_migrations(url, LongOpLimits())
    return url


async def bench_database(prefix: str) -> str:
    """A new migrated database for one benchmark run: on `BENCH_DATABASE_URL`'s server, else
    on an embedded server in a temporary folder (`prefix`) deleted when the run ends."""
    admin_url = os.environ.get("BENCH_DATABASE_URL") or start_embedded(
        Path(tempfile.mkdtemp(prefix=prefix)) / "pgdata", cleanup_mode="delete"
    )
    return await fresh_database(admin_url)


async def main(quick: bool, *, growth: bool = True) -> None:
    configure_logging(logging.WARNING)
    admin_url = os.environ.get("BENCH_DATABASE_URL") or start_embedded(
        Path(tempfile.mkdtemp(prefix="memory-bench-")) / "pgdata", cleanup_mode="delete"
    )
    n, people, total = (300, 200, 100_000) if quick else (2_000, 1_000, 1_000_000)
    server = ModelServer()
    await server.start()
    url = await fresh_database(admin_url)
    pool = await create_pool(url, min_size=8, max_size=8)
    # asyncpg passes unknown URL parameters on as server settings
    joiner = "&" if "?" in url else "?"
    lazy = await create_pool(f"{url}{joiner}synchronous_commit=off", min_size=2, max_size=2)
    try:
        print(HEADER)
        for line in await bench_latency(pool, lazy, server, n):
            print(line)
        print()
        print(f"over {people} distinct people each, 8 in flight, the model answering at once")
        for line in await bench_throughput(pool, people):
            print(line)
        if growth:
            print()
            print(HEADER)
            for line in await bench_growth(pool, url, n, total):
                print(line)
    finally:
        await lazy.close()
        await pool.close()
        await server.stop()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="smaller sizes for a smoke run")
    parser.add_argument("--no-growth", action="store_true", help="skip the 1M-row growth run")
    arguments = parser.parse_args()
    asyncio.run(main(arguments.quick, growth=not arguments.no_growth))
