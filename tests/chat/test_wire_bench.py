"""The chat wire benchmark runs at a tiny size and prints one row per kind of turn (no timings
are asserted: speed is read from the script's ratios)."""

from __future__ import annotations

import asyncpg

from bench.chat_wire_bench import legs_table, measure


async def test_the_benchmark_runs_at_a_tiny_size(pool: asyncpg.Pool) -> None:
    rows = await measure(pool, 3)
    assert rows[0] == legs_table({})[0]
    assert len(rows) == 6
    assert rows[1].startswith("| bare aiohttp echo route") and "| 1.00x |" in rows[1]
    assert all(row.count("x |") == 2 for row in rows[1:])
