"""The held tools benchmark runs at a tiny size and prints one row per kind of turn (no
timings are asserted: speed is read from the script's ratios)."""

from __future__ import annotations

import asyncpg

from bench.held_bench import HEADER, measure


async def test_the_benchmark_runs_at_a_tiny_size(pool: asyncpg.Pool) -> None:
    rows = await measure(pool, 3)
    assert rows[0] == HEADER and len(rows) == 4
    assert rows[1].startswith("| a plain streamed turn") and rows[1].endswith("| 1.00x |")
