"""Recall against the same read written by hand, interleaved in one run on one pool.

- `SELECT 1`: the round trip alone.
- by hand: one statement in the shape a careful hand would write it (the person's facts and
  newest calls, each aggregated by `json_agg` on the server), decoded with `json.loads` and
  built into the contract's `Fact` and `CallRecord` objects; no validation, no deadline, no
  capability check, no envelope, no span.
- `Memory.recall`: the public call, everything included (validation, the capability check,
  the deadline, the store's one statement and decoding, the envelope, the tracing span).

The person has 50 facts of 500 characters and 100 call records, each with a source as a voice
call writes it (channel, call, writer, model; each fact with a quote, its turn, kind and
confidence: migration 0030); recall asks for 5 calls. The hand-written read returns the sources
too (`source_of` over each row's JSON); "by hand, no source" is the read as it was before
provenance, for what the sources cost. Each round runs the four in turn; the table gives p50
and p99 in µs and each row's ratio to the hand-written read and to `SELECT 1`.

Usage: python -m bench.recall_bench [--samples N]   (default 3,000 of each)
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

import asyncpg

from bench.memory_bench import pct, seed_person
from bench.serving import print_measured
from memory.api import open_memory
from memory.config import MemoryConfig
from memory.contract import CallRecord, Fact, source_of
from memory.store import MemoryStore

S = "stackbone_platform"
AGENT, USER, CALLS = "support", "+15550100", 5
_BY_HAND = f"""select
  (select coalesce(json_agg(json_build_object('id', id::text, 'content', content,
      'created_at', created_at, 'updated_at', updated_at{{fact_source}}) order by seq), '[]')
     from {S}.memory_facts where agent_id = $1 and user_id = $2) as facts,
  (select coalesce(json_agg(json_build_object('id', id::text, 'started_at', started_at,
      'duration_seconds', duration_seconds, 'outcome', outcome, 'run_id', run_id,
      'summary', summary, 'created_at', created_at{{call_source}})), '[]')
     from (select * from {S}.memory_calls where agent_id = $1 and user_id = $2
            order by started_at desc, seq desc limit $3) c) as calls"""
_WITH_SOURCE = _BY_HAND.format(fact_source=", 'source', source", call_source=", 'source', source")
_NO_SOURCE = _BY_HAND.format(fact_source="", call_source="")
_SOURCE = {
    "channel": "voice",
    "call_id": "AJ_4Kq9Zx2mPp7",
    "session_id": None,
    "writer": {"agent": AGENT, "job": "AJ_4Kq9Zx2mPp7", "key": None},
    "model": "gpt-5-nano",
}
_NOTES = {
    "turns": [3],
    "evidence": "please always send it by email, never call me",
    "kind": "contact",
    "confidence": 0.9,
}
Read = Callable[[], Awaitable[object]]


def _at(value: str) -> datetime:
    return datetime.fromisoformat(value)


async def by_hand(
    pool: asyncpg.Pool, sql: str = _WITH_SOURCE
) -> tuple[list[Fact], list[CallRecord]]:
    row = await pool.fetchrow(sql, AGENT, USER, CALLS)
    assert row is not None
    facts = [
        Fact(
            f["id"],
            f["content"],
            _at(f["created_at"]),
            _at(f["updated_at"]),
            source_of(f.get("source")),
        )
        for f in json.loads(row["facts"])
    ]
    calls = [
        CallRecord(
            c["id"],
            _at(c["started_at"]),
            c["duration_seconds"],
            c["outcome"],
            c["run_id"],
            c["summary"],
            _at(c["created_at"]),
            source_of(c.get("source")),
        )
        for c in json.loads(row["calls"])
    ]
    return facts, calls


async def measure(pool: asyncpg.Pool, samples: int) -> list[str]:
    await seed_person(pool, AGENT, USER, 50, 100)
    await pool.execute(
        f"update {S}.memory_facts set source = $1::text::jsonb", json.dumps(_SOURCE | _NOTES)
    )
    await pool.execute(f"update {S}.memory_calls set source = $1::text::jsonb", json.dumps(_SOURCE))
    memory = open_memory(
        MemoryStore(pool), MemoryConfig(base_url="http://127.0.0.1:9", api_key="k")
    )
    found = await memory.recall(AGENT, USER, CALLS)
    assert found.data is not None and len(found.data.facts) == 50
    facts, calls = await by_hand(pool)
    assert [f.content for f in facts] == [f.content for f in found.data.facts]
    assert [c.id for c in calls] == [c.id for c in found.data.calls]
    assert [f.source for f in facts] == [f.source for f in found.data.facts]
    assert found.data.facts[0].source.evidence == _NOTES["evidence"]

    async def select_one() -> object:
        return await pool.fetchval("select 1")

    async def recall() -> object:
        return await memory.recall(AGENT, USER, CALLS)

    async def hand() -> object:
        return await by_hand(pool)

    async def hand_before() -> object:
        return await by_hand(pool, _NO_SOURCE)

    kinds: dict[str, Read] = {
        "`SELECT 1`": select_one,
        "by hand, no source": hand_before,
        "by hand": hand,
        "`Memory.recall`": recall,
    }
    times: dict[str, list[float]] = {name: [] for name in kinds}
    for i in range(samples + 200):
        for name, read in kinds.items():
            started = time.perf_counter()
            await read()
            if i >= 200:  # warmed up
                times[name].append((time.perf_counter() - started) * 1e6)
    await memory.aclose()
    return _table(times)


def _table(times: dict[str, list[float]]) -> list[str]:
    one, hand = pct(times["`SELECT 1`"], 50), pct(times["by hand"], 50)
    rows = [
        "| read | p50 µs | p99 µs | p50 / by hand | p50 / `SELECT 1` |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, got in times.items():
        p50, p99 = pct(got, 50), pct(got, 99)
        rows.append(f"| {name} | {p50:.0f} | {p99:.0f} | {p50 / hand:.2f}x | {p50 / one:.2f}x |")
    return rows


async def main(samples: int) -> None:
    await print_measured("recall-bench-", measure, samples, pool_size=2)


def _args() -> Any:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=3000, help="reads of each kind")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(_args().samples))
