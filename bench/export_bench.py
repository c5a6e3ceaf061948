"""One person's export at size: time and the web process's memory while it streams.

Builds, server-side with `generate_series`, a person of agent `support` with 10,000 call
records (summaries of ~400 characters), 10,000 ops events, 50 facts and 5,000 chat turns over
100 sessions (~1 kB of messages each), a second person a quarter that size, and 20,000 calls
of other people around them. Then starts the real web process (`python -m worker.http`, its
own process) and exports each person over HTTP several times, alternating, reading the stream
in this process a chunk at a time. While an export runs, the web process's resident set
(`VmRSS` in /proc) is sampled every 5 ms.

Printed per person: the document's size, the export's time (median of the runs), its rate, the
web process's resident set before the first export and its peak during the exports, and the
growth; then the ratios full / quarter of size, time and growth. A streamed export's growth
stays flat while the document grows 4x; one held whole in memory would grow with it.

Usage: python -m bench.export_bench [--calls N] [--turns N] [--runs N]
Uses BENCH_DATABASE_URL when set, else a throwaway embedded Postgres. Linux only (/proc).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import socket
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import aiohttp
import asyncpg

from bench.memory_bench import bench_database
from infra.logs import configure_logging
from infra.long_ops import LongOpLimits, connect_long

S = "stackbone_platform"
AGENT = "support"
KEY = "bench-export-secret-0123456789abc"
SUMMARY = "Called about order {n}: the parcel was late, asked for a refund and a new date. " * 5
MESSAGES = json.dumps(
    [
        {"role": "user", "content": "Where is my order? It was due on Monday. " * 4},
        {"role": "assistant", "content": "It left the warehouse today; tracking follows. " * 4},
        {"role": "user", "content": "Thanks, and can I change the address? " * 3},
        {"role": "assistant", "content": "Yes, until it ships: tell me the new one. " * 3},
    ]
)
OPS = '[{"op": "add", "factId": "00000000-0000-0000-0000-000000000000", "content": "Likes tea."}]'

CALLS = f"""insert into {S}.memory_calls (agent_id, user_id, started_at, duration_seconds,
        outcome, run_id, summary, created_at, channel)
    select $1, $2, now() - make_interval(mins => g), 83.0, 'ok', 'run-' || g,
        replace($4, '{{n}}', g::text), now() - make_interval(mins => g), 'voice'
    from generate_series(1, $3::int) g"""
OPS_ROWS = f"""insert into {S}.memory_ops (agent_id, user_id, call_id, final, revision, model,
        latency_ms, ops)
    select $1, $2, 'job-' || g, true, g, 'bench-model', 900.0, $4::jsonb
    from generate_series(1, $3::int) g"""
FACTS = f"""insert into {S}.memory_facts (agent_id, user_id, content, created_at, updated_at)
    select $1, $2, 'Fact number ' || g || ': prefers email over phone calls.', now(), now()
    from generate_series(1, 50) g"""
SESSIONS = f"""insert into {S}.chat_sessions (id, kind, agent_id, session_key, user_id, turns,
        identities, customers)
    select $2 || '-session-' || g, 'session', $1, 'thread-' || g, $2, $3::int / 100,
        jsonb_build_object('phoneNumber', $2), array[$2]
    from generate_series(1, 100) g"""
TURNS = f"""insert into {S}.chat_turns (session_id, position, messages, user_message, reply,
        prompt_tokens, completion_tokens, duration_ms)
    select $1 || '-session-' || (g % 100 + 1), g / 100, $3::jsonb,
        'Where is my order?', 'It left the warehouse today.', 420, 60, 800.0
    from generate_series(0, $2::int - 1) g"""


@dataclass(frozen=True, slots=True)
class Person:
    user_id: str
    calls: int
    turns: int


async def build(conn: asyncpg.Connection, person: Person) -> None:
    user = person.user_id
    await conn.execute(CALLS, AGENT, user, person.calls, SUMMARY)
    await conn.execute(OPS_ROWS, AGENT, user, person.calls, OPS)
    await conn.execute(FACTS, AGENT, user)
    await conn.execute(SESSIONS, AGENT, user, person.turns)
    await conn.execute(TURNS, user, person.turns, MESSAGES)


async def load(url: str, people: list[Person]) -> None:
    conn = await connect_long(url, LongOpLimits())
    try:
        for person in people:
            await build(conn, person)
        for n in range(20):  # other people of the same agent: the export must skip them
            await conn.execute(CALLS, AGENT, f"+34 600 000 {n:03d}", 1000, SUMMARY)
        await conn.execute("analyze")
    finally:
        await conn.close()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


async def sampled_peak(pid: int, stop: asyncio.Event) -> int:
    peak = 0
    while not stop.is_set():
        peak = max(peak, rss_kb(pid))
        await asyncio.sleep(0.005)
    return max(peak, rss_kb(pid))


async def export_once(http: aiohttp.ClientSession, base: str, user: str) -> tuple[float, int]:
    """One export read a chunk at a time: (seconds, bytes)."""
    start = time.perf_counter()
    size = 0
    url = f"{base}/api/memory/customers/{AGENT}/export"
    async with http.post(url, json={"userId": user}) as response:
        assert response.status == 200, await response.text()
        async for chunk in response.content.iter_chunked(1 << 16):
            size += len(chunk)
    return time.perf_counter() - start, size


async def start_web(url: str, port: int) -> asyncio.subprocess.Process:
    keys = [{"name": "bench", "key": KEY, "scopes": ["memory:read"]}]
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("LIVEKIT_", "WEB_"))},
        "DATABASE_URL": url,
        "PORT": str(port),
        "WEB_HOST": "127.0.0.1",
        "MEMORY_API_KEYS": json.dumps(keys),
    }
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "worker.http",
        env=env,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )


async def wait_healthy(http: aiohttp.ClientSession, base: str) -> None:
    for _ in range(600):
        try:
            async with http.get(f"{base}/healthz") as response:
                if response.status == 200:
                    return
        except aiohttp.ClientConnectionError:
            pass
        await asyncio.sleep(0.1)
    raise TimeoutError("the web process did not become healthy")


async def measure(
    http: aiohttp.ClientSession, base: str, pid: int, people: list[Person], runs: int
) -> None:
    cold = rss_kb(pid)
    await export_once(http, base, people[-1].user_id)  # warm: imports, plans, the pool
    before = rss_kb(pid)
    times: dict[str, list[float]] = {p.user_id: [] for p in people}
    sizes: dict[str, int] = {}
    peaks: dict[str, int] = {p.user_id: 0 for p in people}
    for _ in range(runs):
        for person in people:
            stop = asyncio.Event()
            sampler = asyncio.create_task(sampled_peak(pid, stop))
            seconds, size = await export_once(http, base, person.user_id)
            stop.set()
            peaks[person.user_id] = max(peaks[person.user_id], await sampler)
            times[person.user_id].append(seconds)
            sizes[person.user_id] = size
    print(f"web process resident before any export: {cold / 1024:.1f} MiB")
    print(f"after one warm-up export of the full person: {before / 1024:.1f} MiB")
    print("person                        document   time (p50)    rate      peak RSS   growth")
    growth = {}
    for p in people:
        t = statistics.median(times[p.user_id])
        growth[p.user_id] = peaks[p.user_id] - before
        print(
            f"{p.calls:>6} calls {p.turns:>5} turns  {sizes[p.user_id] / 1e6:7.1f} MB"
            f"  {t * 1000:8.0f} ms  {sizes[p.user_id] / 1e6 / t:6.1f} MB/s"
            f"  {peaks[p.user_id] / 1024:7.1f} MiB  {growth[p.user_id] / 1024:+6.1f} MiB"
        )
    small, full = people[0].user_id, people[-1].user_id
    print(
        f"full / quarter: document {sizes[full] / sizes[small]:.2f}x,"
        f" time {statistics.median(times[full]) / statistics.median(times[small]):.2f}x,"
        f" peak RSS {peaks[full] / peaks[small]:.3f}x"
    )


async def main(calls: int, turns: int, runs: int) -> None:
    configure_logging(logging.WARNING)
    url = await bench_database("export-bench-")
    people = [
        Person("+34 611 00 00 01", calls // 4, turns // 4),
        Person("+34 611 00 00 02", calls, turns),
    ]
    await load(url, people)
    port = free_port()
    process = await start_web(url, port)
    base = f"http://127.0.0.1:{port}"
    try:
        headers = {"Authorization": f"Bearer {KEY}"}
        async with aiohttp.ClientSession(headers=headers) as http:
            await wait_healthy(http, base)
            await measure(http, base, process.pid, people, runs)
    finally:
        process.terminate()
        await process.wait()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=5_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.turns, args.runs))
