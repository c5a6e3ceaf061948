"""The burst benchmark at its smallest: two calls at once through the delaying proxy, read on
and read off, on a real worker with real job processes (figures: docs/performance.md); and the
proxy's own delay and round-trip count."""

from __future__ import annotations

import time
from urllib.parse import urlsplit

import asyncpg

from bench.burst_bench import row, run_bursts
from infra.database import PoolTimeouts
from testkit.delay_proxy import DelayProxy


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


async def test_an_idle_prewarmed_process_greets_after_one_round_trip(
    database_url: str, pool_timeouts: PoolTimeouts
) -> None:
    """livekit's prewarm opened, checked and prepared the job process's connection before the
    call: between the dispatch and the greeting the call's own connections begin one round
    trip, read on (settings, identity and recall in one statement) as read off."""
    on, off = await run_bursts(database_url, [(1, 5, True), (1, 5, False)], facts=3, warm_up=False)
    one = 2.0 if pool_timeouts.pooler == "transaction" else 1.0  # nothing prepared by name
    assert (on.own_turns_per_call, off.own_turns_per_call) == (one, one)
    assert on.recalled == 1 and not on.late


async def test_the_proxy_delays_each_round_trip_and_counts_them(database_url: str) -> None:
    proxy = DelayProxy(database_url, rtt_ms=20)
    await proxy.start()
    try:
        conn = await asyncpg.connect(proxy.url_for(urlsplit(database_url).path.lstrip("/")))
        try:
            counts = []
            for _ in range(2):  # asyncpg prepares a new statement first: two, then one
                start = time.monotonic()
                assert await conn.fetchval("select $1::int + 1", 1) == 2
                counts.append(proxy.turns_between(start, time.monotonic()))
                assert time.monotonic() - start >= 0.02 * counts[-1]  # a round trip each
        finally:
            await conn.close()
    finally:
        await proxy.stop()
    assert counts == [2, 1]
    assert proxy.stats.connections == 1
