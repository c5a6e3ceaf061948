"""Burst benchmark: N calls at once on one worker host, Postgres a round trip away.

One worker (`testkit.burst_worker`: `python -m worker.agent start` with livekit's PROCESS
executor, real job processes from its forkserver, its process pool as in production) gets N
calls at once, for each round-trip delay to Postgres (a `testkit.delay_proxy.DelayProxy`
between every process of the worker and the database), read on and read off interleaved, in
one run. Each call greets a different caller who has facts (one holds `RECALLED_MARK`); the
greeting "carries memory" when the model's context for it held that mark. The worker's job
processes are prewarmed as in production (`callmemory.prewarm`): an idle process holds its
database connection before its job arrives. Every call of a burst
stays on the line until the last one is greeted (as calls of a few minutes would), then all
hang up. Saving is off.

Per burst it prints: the share of greetings that carried memory (read on; by construction
within `CALL_RECALL_BUDGET_SECONDS`, the greeting never waits longer), dispatch -> first
greeting audio frame (p50, p95), the peak of the database's client connections
(`pg_stat_activity`, sampled every 20 ms over a direct connection), the round trips clients
began between the dispatch and the last greeting (per call: all clients', and the calls' own:
those on the connections of the job processes that served the burst, so not the warm-up of
the idle processes livekit starts meanwhile to replace them), the late step of each call whose
greeting missed memory (`call.memory_not_recalled`'s reason), the load average and the share of the
machine's CPU busy from the dispatch to the last greeting (`/proc/stat`).

Usage: python -m bench.burst_bench [--calls 25,50] [--rtt 0,5,20] [--facts 20]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import asyncpg
import psutil

from bench.memory_bench import bench_database
from callmemory.prewarm import PREWARMED
from memory.settings import Overrides, SettingsUpdate
from memory.store import offer_code_bindings, save_settings
from testkit.burst_worker import BURST_DISPATCHED
from testkit.delay_proxy import DelayProxy
from testkit.job_runner import AGENT
from testkit.scripted_call import ON_THE_LINE, RECALLED_MARK, numbered_caller
from testkit.worker_process import WorkerProcess, burst_worker, free_port, worker_environment

S = "stackbone_platform"
SAMPLE_SECONDS = 0.02
POLL = 0.25  # how often the worker's output is looked at: the proxy shares this loop
GREETED_WITHIN = 180.0
MISSED = "call.memory_not_recalled"
IDLE_WITHIN = 30.0
JOB_ENDED = "process exiting"  # livekit's, in the main process, once a job's process exits


@dataclass(frozen=True, slots=True)
class Burst:
    calls: int
    rtt_ms: float
    read: bool
    recalled: int
    greeting_ms: list[float]
    in_job_ms: list[float]
    peak_connections: int
    turns_per_call: float
    own_turns_per_call: float  # on the connections of the burst's own job processes
    late: Counter[str]
    load: float
    cpu_busy: float  # the machine's cores, share busy from the dispatch to the last greeting


async def seed_people(pool: asyncpg.Pool, people: int, facts: int) -> None:
    """`people` callers (`numbered_caller`), `facts` facts and 20 call records each."""
    person = "'+3461' || lpad(p::text, 7, '0')"
    await pool.execute(
        f"insert into {S}.memory_facts (agent_id, user_id, content, created_at, updated_at)"
        f" select $1, {person}, case when f = 1 then $2 else 'Fact ' || f || ': '"
        " || repeat('x', 120) end, now(), now()"
        " from generate_series(0, $3 - 1) p, generate_series(1, $4) f",
        AGENT,
        f"Known as {RECALLED_MARK}.",
        people,
        facts,
    )
    await pool.execute(
        f"insert into {S}.memory_calls (agent_id, user_id, started_at, summary, created_at)"
        f" select $1, {person}, now() - c * interval '1 day', repeat('s', 300), now()"
        " from generate_series(0, $2 - 1) p, generate_series(1, 20) c",
        AGENT,
        people,
    )
    assert numbered_caller("x-1") == "+34610000001"  # the same numbers as the calls'


@contextlib.asynccontextmanager
async def peak_connections(url: str, database: str) -> AsyncIterator[list[int]]:
    """Samples the database's client backends (this sampler's own excluded) until exit."""
    conn = await asyncpg.connect(url)
    peak = [0]

    async def sample() -> None:
        while True:
            n = await conn.fetchval(
                "select count(*) from pg_stat_activity where datname = $1"
                " and backend_type = 'client backend' and pid <> pg_backend_pid()",
                database,
            )
            peak[0] = max(peak[0], n)
            await asyncio.sleep(SAMPLE_SECONDS)

    sampling = asyncio.create_task(sample())
    try:
        yield peak
    finally:
        sampling.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await sampling
        await conn.close()


def cpu_times() -> tuple[int, int]:
    """The machine's busy and total CPU time so far (`/proc/stat`, Linux), in ticks."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle, iowait
    return sum(fields) - idle, sum(fields)


def busy_since(start: tuple[int, int]) -> float:
    busy, total = cpu_times()
    return (busy - start[0]) / max(1, total - start[1])


def tagged(worker: WorkerProcess, tag: str, message: str) -> list[dict[str, object]]:
    prefix = f"{tag}-job-"
    return [
        r
        for r in worker.records()
        if r.get("message") == message and str(r.get("job_id", "")).startswith(prefix)
    ]


def client_ports(pids: set[int], server_port: int) -> set[int]:
    """The local ports of the TCP connections processes `pids` hold to `server_port`."""
    ports = set()
    for pid in pids:
        with contextlib.suppress(psutil.Error):
            for conn in psutil.Process(pid).net_connections(kind="tcp"):
                if conn.raddr and conn.raddr.port == server_port:
                    ports.add(conn.laddr.port)
    return ports


async def run_burst(
    worker: WorkerProcess, direct: tuple[str, str], tag: str, calls: int, proxy_port: int
) -> tuple[float, list[dict[str, object]], int, float, set[int]]:
    """Launch, wait for every greeting, hang up every call, wait for every job's end; returns
    the dispatch time, the greetings, the peak of connections, the share of CPU busy until
    the last greeting and the client ports of the burst's job processes."""
    async with peak_connections(*direct) as peak:
        start = cpu_times()
        await worker.burst(tag, calls)
        await worker.wait_for(
            lambda: len(tagged(worker, tag, ON_THE_LINE)) == calls, GREETED_WITHIN, POLL
        )
        busy = busy_since(start)
        pids = {int(str(g["pid"])) for g in tagged(worker, tag, ON_THE_LINE)}
        ports = client_ports(pids, proxy_port)
        worker.hang_up(tag)
        try:  # the next burst starts on a quiet worker
            await worker.wait_for(lambda: len(tagged(worker, tag, JOB_ENDED)) == calls, 90, POLL)
        except TimeoutError:
            ended = len(tagged(worker, tag, JOB_ENDED))
            print(f"({tag}: {calls - ended} of {calls} jobs did not report their end)")
    [dispatched] = [
        r for r in worker.records() if r.get("message") == BURST_DISPATCHED and r["tag"] == tag
    ]
    return float(dispatched["at"]), tagged(worker, tag, ON_THE_LINE), peak[0], busy, ports


def idle_warm(worker: WorkerProcess) -> int:
    """Job processes that hold their warm connection and have served no call yet."""
    records = worker.records()
    warm = {r.get("pid") for r in records if r.get("message") == PREWARMED}
    served = {r.get("pid") for r in records if r.get("message") == ON_THE_LINE}
    return len(warm - served)


async def measure(
    worker: WorkerProcess,
    proxy: DelayProxy,
    pool: asyncpg.Pool,
    direct: tuple[str, str],
    shape: tuple[int, float, bool],
) -> Burst:
    calls, rtt, read = shape
    await save_settings(
        pool, AGENT, SettingsUpdate(Overrides(read=read, save=False), None), "bench"
    )
    proxy.rtt_ms = rtt
    tag = f"b{calls}r{int(rtt)}{'on' if read else 'off'}{time.monotonic_ns() % 10**6}"
    try:  # an idle process has finished its warm-up, as between calls in production
        await worker.wait_for(lambda: idle_warm(worker) > 0, IDLE_WITHIN, POLL)
    except TimeoutError:
        print(f"({tag}: no prewarmed idle process within {IDLE_WITHIN:g} s)")
    load = os.getloadavg()[0]
    at, greetings, peak, busy, ports = await run_burst(worker, direct, tag, calls, proxy.port)
    frames = [float(str(g["first_frame_at"])) for g in greetings]
    late = Counter(str(r["reason"]) for r in tagged(worker, tag, MISSED))
    return Burst(
        calls,
        rtt,
        read,
        recalled=sum(1 for g in greetings if g["greeting_recalled"] is True),
        greeting_ms=[(f - at) * 1000 for f in frames],
        in_job_ms=[
            (float(str(g["first_frame_at"])) - float(str(g["job_started_at"]))) * 1000
            for g in greetings
        ],
        peak_connections=peak,
        turns_per_call=proxy.turns_between(at, max(frames)) / calls,
        own_turns_per_call=proxy.turns_between(at, max(frames), ports) / calls,
        late=late,
        load=load,
        cpu_busy=busy,
    )


def pct(samples: list[float], p: int) -> float:
    if len(samples) < 2:
        return samples[0]
    return statistics.quantiles(samples, n=100, method="inclusive")[p - 1]


HEADER = (
    "| calls | RTT ms | read | greeting with memory | dispatch -> greeting p50 ms | p95 ms"
    " | job start -> greeting p50 ms | p95 ms | peak PG connections"
    " | round trips per call before greetings | the calls' own | late step (memory missed)"
    " | load avg | CPU busy |\n"
    "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|"
)


def row(b: Burst) -> str:
    share = f"{b.recalled}/{b.calls} ({100 * b.recalled / b.calls:.0f} %)" if b.read else "-"
    late = ", ".join(f"{reason} {n}" for reason, n in b.late.most_common()) or "-"
    return (
        f"| {b.calls} | {b.rtt_ms:g} | {'on' if b.read else 'off'} | {share}"
        f" | {pct(b.greeting_ms, 50):.0f} | {pct(b.greeting_ms, 95):.0f}"
        f" | {pct(b.in_job_ms, 50):.0f} | {pct(b.in_job_ms, 95):.0f}"
        f" | {b.peak_connections} | {b.turns_per_call:.1f} | {b.own_turns_per_call:.1f}"
        f" | {late} | {b.load:.1f}"
        f" | {100 * b.cpu_busy:.0f} % |"
    )


Shape = tuple[int, float, bool]  # calls, round trip ms, read


def shapes(sizes: list[int], rtts: list[float]) -> list[Shape]:
    """Every size and delay, read on then read off for each (interleaved)."""
    return [(n, rtt, read) for n in sizes for rtt in rtts for read in (True, False)]


async def run_bursts(
    url: str,
    plan: list[Shape],
    *,
    facts: int = 20,
    warm_up: bool = True,
    report: Callable[[Burst], None] = lambda _: None,
) -> list[Burst]:
    """Every burst of `plan` on one worker, against the migrated database at `url`."""
    database = urlsplit(url).path.lstrip("/")
    pool = await asyncpg.create_pool(url, min_size=1, max_size=2)
    await seed_people(pool, max(calls for calls, _, _ in plan), facts)
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    proxy = DelayProxy(url)
    await proxy.start()
    env = worker_environment(proxy.url_for(database), f"http://127.0.0.1:{free_port()}")
    bursts: list[Burst] = []
    cwd = Path(tempfile.mkdtemp(prefix="burst-"))
    try:
        async with burst_worker(env, cwd=cwd) as worker:
            try:
                if warm_up:  # the forkserver's first process, not measured
                    await measure(worker, proxy, pool, (url, database), (2, 0, True))
                for shape in plan:
                    bursts.append(await measure(worker, proxy, pool, (url, database), shape))
                    report(bursts[-1])
            finally:  # for a look afterwards: every job's events
                (cwd / "worker.log").write_text("\n".join(worker.output))
    finally:
        await proxy.stop()
        await pool.close()
    return bursts


async def main(sizes: list[int], rtts: list[float], facts: int) -> None:
    url = await bench_database("burst-bench-")
    print(f"cores: {os.cpu_count()}, load average at start: {os.getloadavg()[0]:.1f}")
    print(HEADER, flush=True)
    await run_bursts(
        url, shapes(sizes, rtts), facts=facts, report=lambda b: print(row(b), flush=True)
    )
    print(f"load average at end: {os.getloadavg()[0]:.1f}; the worker's output: burst-*/worker.log")


def numbers(text: str) -> list[float]:
    return [float(x) for x in text.split(",")]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", default="25,50", help="burst sizes, comma-separated (25,50)")
    parser.add_argument("--rtt", default="0,5,20", help="round trips to Postgres, ms (0,5,20)")
    parser.add_argument("--facts", type=int, default=20, help="facts per caller (20)")
    args = parser.parse_args()
    sizes = [int(n) for n in numbers(args.calls)]
    asyncio.run(main(sizes, numbers(args.rtt), args.facts))
