"""The call's opening statement with the read's record against without, in one run.

The opening (`memory.store.open_call`: settings, identity, recall, and since migration 0032
the read's record written by a data-modifying CTE of the same statement) for a person with 50
facts of 500 characters and 100 call records, recalling 5 calls; against the same statement
without the record (the statement as it was, kept here) and a bare `SELECT 1`, interleaved on
one pool of 2 connections so the machine's drift hits all alike. Both are one round trip; the
difference is the insert (and its WAL) inside the statement. The reads table grows by one row
per opening with the record, as it does in production.

Usage: python -m bench.opening_reads_bench [--samples N]   (default 2,000 of each)
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres.
"""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

import asyncpg

from bench.memory_bench import interleaved, pct, seed_person
from bench.serving import print_measured
from memory.settings import CodeDefaults
from memory.store import offer_code_bindings, open_call
from memory.store._facts import CAPABILITY

S = "stackbone_platform"
AGENT, USER, CALLS = "support", "+15550100", 5
CODE = CodeDefaults(read=True, identity_key="phoneNumber")
WITHOUT = (
    f"select -2, null::bigint, null::text, {S}.call_prompt($1), null::timestamptz,"
    " null::timestamptz, null::double precision, null::text, null::text, null::text"
    " union all"
    " select kind, seq, id, body, first_at, second_at, duration_seconds, outcome, run_id, source"
    f" from {S}.call_opening($1, $2, $3, $4, $5, $6)"
)
"""The opening statement before reads were recorded (migration 0034's, without the CTE)."""


async def measure(pool: asyncpg.Pool, samples: int) -> list[str]:
    await seed_person(pool, AGENT, USER, 50, 100)
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    offered = {"phoneNumber": USER}

    async def select_one() -> object:
        return await pool.fetchval("select 1")

    async def without() -> object:
        args = (AGENT, CAPABILITY, True, ["phoneNumber"], [USER], CALLS)
        return await pool.fetch(WITHOUT, *args)

    async def recorded() -> object:
        return await open_call(pool, AGENT, CODE, offered, CALLS, reader="AJ_bench")

    one, bare, with_read = await interleaved([select_one, without, recorded], samples)
    reads = await pool.fetchval(f"select count(*) from {S}.memory_reads")
    rows = [
        "| statement | p50 µs | p99 µs | p50 / without | p50 / `SELECT 1` |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, got in (
        ("`SELECT 1`", one),
        ("opening, no record", bare),
        ("opening, read recorded", with_read),
    ):
        p50, p99 = pct(got, 50), pct(got, 99)
        ratios = f"{p50 / pct(bare, 50):.2f}x | {p50 / pct(one, 50):.2f}x"
        rows.append(f"| {name} | {p50:.0f} | {p99:.0f} | {ratios} |")
    rows.append(f"(read records written: {reads})")
    return rows


async def main(samples: int) -> None:
    await print_measured("opening-reads-bench-", measure, samples, pool_size=2)


def _args() -> Any:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--samples", type=int, default=2000, help="openings of each kind")
    return parser.parse_args()


if __name__ == "__main__":
    asyncio.run(main(_args().samples))
