"""The agents benchmark runs end to end on a few samples and prints one row per measure."""

from __future__ import annotations

import sys
from pathlib import Path

import asyncpg

from bench.agents_bench import loading, registering, turns


async def test_the_benchmark_prints_every_row(
    tmp_path: Path, pool: asyncpg.Pool, database_url: str
) -> None:
    try:
        rows = loading(tmp_path, 3)
        rows += await registering(pool, database_url, 3)
        rows += await turns(pool, 3)
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith(("bench_agents_", "bench_empty_"))]:
            del sys.modules[name]
    assert len(rows) == 6
    assert all(row.startswith("| ") and row.rstrip().endswith("x |") for row in rows)
