"""The burst benchmark at its smallest: two calls at once through the delaying proxy, read on
and read off, on a real worker with real job processes (figures: docs/performance.md)."""

from __future__ import annotations

from bench.burst_bench import row, run_bursts


async def test_two_calls_at_once_are_measured_read_on_and_read_off(database_url: str) -> None:
    on, off = await run_bursts(database_url, [(2, 5, True), (2, 5, False)], facts=3, warm_up=False)
    for burst in (on, off):
        assert len(burst.greeting_ms) == 2 and min(burst.greeting_ms) > 0
        assert burst.peak_connections >= 1  # the jobs' pools, seen in pg_stat_activity
        assert burst.turns_per_call > 0  # their round trips went through the proxy
    # read on: each greeting carried memory, or its call says which step was late
    assert on.recalled + sum(on.late.values()) == 2
    assert off.recalled == 0 and not off.late  # read off: memory is never looked for
    assert row(on).startswith("| 2 | 5 | on |")
