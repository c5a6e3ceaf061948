"""The ops log at scale: replay from a cursor stays flat, and retention does not block writes.

Loads N `memory.ops` events (10 million by default) server-side with `generate_series`, in
statements of a million rows on a long operation's connection, spread over 60 days with ids
growing with time, across 10 agents; the log's two indexes are built after the load, as a bulk
import would. Then, in one run:

1. **replay**: `ops_after` (the read behind `GET /api/memory/ops`, 100 events of one agent after
   a cursor) with the cursor near the start, in the middle and near the end of the log, each
   interleaved with `SELECT 1` on the same pool: p50 / p99 in µs and as ratios;
2. **writes under retention**: a writer inserts events one by one (as a save's statement adds
   its row, 200 a second at most) for `--seconds` without retention and as long with a
   retention pass running on the same pool (30 days: half the log is past it, deleted in
   batches of 1,000), in alternating halves (without, with, without, with) so the machine's
   drift hits both: the writer's p50 / p95 / p99 both ways, and the deletion rate meanwhile;
3. **replay after retention** from the new head (the first event left; when the pass was
   stopped at the end of the window, the head it reached), against `SELECT 1`.

Usage: python -m bench.ops_retention_bench [--events N] [--seconds S]
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import time
from functools import partial

import asyncpg

from bench.memory_bench import HEADER, bench_database, interleaved, pct, row
from infra.database import create_pool
from infra.logs import configure_logging
from infra.long_ops import LongOpLimits, connect_long
from memory.store import expire_ops, ops_after

S = "stackbone_platform"
AGENTS = 10
LOAD_STEP = 1_000_000
DAY = 86400.0
SPAN_DAYS = 60
KEEP_DAYS = 30
OPS = '[{"op": "add", "factId": "00000000-0000-0000-0000-000000000000", "content": "Likes tea."}]'

LOAD = f"""insert into {S}.memory_ops (agent_id, user_id, call_id, turn, final, revision, model,
        latency_ms, ops, created_at)
    select 'agent-' || (g % {AGENTS}), 'user-' || (g % 100000), 'job-' || g, null, true, 1,
        'bench-model', 900.0, $3::jsonb,
        now() - make_interval(secs => {SPAN_DAYS * DAY} * (1 - g::float8 / $2))
    from generate_series($1::bigint, least($1::bigint + {LOAD_STEP} - 1, $2::bigint)) g"""
# the loaded ids run from 1 without a gap, and retention deletes from the head: the highest id
# it deleted is how many it deleted (a count(*) of the log would take longer than a pooled query)
DELETED_THROUGH = f"select coalesce(max(through_id), 0) from {S}.memory_ops_expired"
WRITE = f"""insert into {S}.memory_ops (agent_id, user_id, call_id, final, revision, model,
        latency_ms, ops) values ('agent-0', 'user-new', 'job-new', true, 1, 'bench-model', 900.0,
        $1::jsonb)"""


async def load(conn: asyncpg.Connection, events: int) -> None:
    await conn.execute(f"drop index {S}.memory_ops_agent, {S}.memory_ops_pair")
    await conn.execute(f"alter table {S}.memory_ops set (autovacuum_enabled = false)")
    for start in range(1, events + 1, LOAD_STEP):
        await conn.execute(LOAD, start, events, OPS)
        print(f"  loaded {min(start + LOAD_STEP - 1, events):,} events", flush=True)
    await conn.execute("set maintenance_work_mem = '512MB'")
    await conn.execute(f"create index memory_ops_agent on {S}.memory_ops (agent_id, id)")
    await conn.execute(f"create index memory_ops_pair on {S}.memory_ops (agent_id, user_id)")
    await conn.execute(f"alter table {S}.memory_ops reset (autovacuum_enabled)")
    await conn.execute(f"vacuum analyze {S}.memory_ops")


async def replay(pool: asyncpg.Pool, cursors: dict[str, int], n: int) -> None:
    for name, cursor in cursors.items():
        base, read = await interleaved(
            [
                partial(pool.fetchval, "select 1"),
                partial(ops_after, pool, "agent-0", cursor, 100),
            ],
            n,
        )
        print(row(f"replay 100 events, cursor {name} (id {cursor:,})", read, base), flush=True)


async def writer(pool: asyncpg.Pool, seconds: float) -> list[float]:
    """Insert events one at a time for `seconds`, 200 a second at most; latencies in µs."""
    samples: list[float] = []
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        t = time.perf_counter()
        await pool.execute(WRITE, OPS)
        samples.append((time.perf_counter() - t) * 1e6)
        await asyncio.sleep(0.005)
    return samples


def latency(name: str, samples: list[float]) -> str:
    p50, p95, p99 = (pct(samples, p) for p in (50, 95, 99))
    return f"| {name} | {len(samples):,} | {p50:7.0f} | {p95:7.0f} | {p99:7.0f} |"


async def retention_window(pool: asyncpg.Pool, seconds: float) -> tuple[list[float], int, bool]:
    """The writer for `seconds` while a retention pass runs (stopped between two batches at
    the end when longer): its latencies, how many events the pass deleted, whether it ended."""
    deleted: list[int] = []

    async def enforce() -> None:
        deleted.append(await expire_ops(pool, KEEP_DAYS * DAY))

    before = await pool.fetchval(DELETED_THROUGH)
    retention = asyncio.create_task(enforce())
    busy = await writer(pool, seconds)
    retention.cancel()
    await asyncio.wait({retention})
    return busy, await pool.fetchval(DELETED_THROUGH) - before, bool(deleted)


async def writes_under_retention(pool: asyncpg.Pool, seconds: float) -> None:
    """Windows alternate (without, with, without, with), so the machine's drift hits both."""
    quiet: list[float] = []
    busy: list[float] = []
    deleted, ended, window = 0, False, seconds / 2
    for _ in range(2):
        quiet += await writer(pool, window)
        if not ended:
            samples, gone, ended = await retention_window(pool, window)
            busy += samples
            deleted += gone
        else:
            busy += await writer(pool, window)
    print("\n| writer | writes | p50 µs | p95 µs | p99 µs |\n|---|---:|---:|---:|---:|")
    print(latency("no retention running", quiet))
    print(latency("a retention pass running", busy))
    print(f"\np95 during retention / without: {pct(busy, 95) / pct(quiet, 95):.2f}x")
    print(f"p99 during retention / without: {pct(busy, 99) / pct(quiet, 99):.2f}x")
    state = "the pass finished" if ended else "the pass was still running when stopped"
    print(
        f"retention meanwhile: {deleted:,} events deleted in the {seconds:.0f} s of windows with"
        f" retention ({state})\n",
        flush=True,
    )


async def main(events: int, seconds: float) -> None:
    configure_logging(logging.WARNING)
    url = await bench_database("ops-bench-")
    loads = await connect_long(url, LongOpLimits(statement_seconds=0, lock_seconds=0))
    pool = await create_pool(url, min_size=5, max_size=5)  # the call path's limits
    try:
        t = time.perf_counter()
        await load(loads, events)
        took = time.perf_counter() - t
        print(f"{events:,} events over {SPAN_DAYS} days, indexed, in {took:.0f} s\n")
        print(HEADER)
        n = 300
        await replay(
            pool,
            {"near the start": 10, "in the middle": events // 2, "near the end": events - 2_000},
            n,
        )
        await writes_under_retention(pool, seconds)
        head = await pool.fetchval(f"select min(id) from {S}.memory_ops where agent_id = 'agent-0'")
        mark = await pool.fetchval(
            f"select through_id from {S}.memory_ops_expired where agent_id = 'agent-0'"
        )
        print(HEADER)
        await replay(pool, {"at the new head, after retention": max(head - 1, mark or 0)}, n)
        print("\nSELECT 1 p50 on this pool during the run, for scale:", end=" ")
        base = [await _select1(pool) for _ in range(200)]
        print(f"{statistics.median(base):.0f} µs")
    finally:
        await loads.close()
        await pool.close()


async def _select1(pool: asyncpg.Pool) -> float:
    t = time.perf_counter()
    await pool.fetchval("select 1")
    return (time.perf_counter() - t) * 1e6


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    asyncio.run(main(args.events, args.seconds))
