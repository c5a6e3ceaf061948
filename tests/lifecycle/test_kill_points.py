"""Kill points, generated: wherever the job and the sweepers die, a call ends exactly once.

Each example is one call whose journal is written with the real statements (`memory.store`),
its job killed at a drawn point, then up to two sweepers killed at drawn points (a death is a
cancelled task or a lease left to expire), then a healthy sweeper sweeps until nothing is left.
Against real Postgres and the model-server stand-in, which counts extraction requests. The
property: the call ends in exactly one call record or one counted drop, a saved record carries
every journalled turn, no journal is left, and never two extraction requests for one call.
Turns not yet written to the journal when the job dies are not covered: that is the journal's
bound (one batch, at most a heartbeat).
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import asyncpg
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from prometheus_client import REGISTRY

from lifecycle.sweeper import SweepConfig, Sweeper
from memory.api import Memory
from memory.settings import Brief
from memory.store import (
    JournalEntry,
    JournalHeader,
    append_entries,
    claim_silent,
    drop_journal,
    mark_save_started,
    open_journal,
    start_swept_save,
)
from testkit.call_harness import saved_transcript
from testkit.fake_devices import wait_until
from testkit.model_server import ModelServer, Reply

S = "stackbone_platform"
AGENT, USER = "support", "+34600111222"
CONFIG = SweepConfig(
    lost_after_seconds=60.0, drop_after_seconds=600.0, interval_seconds=0.1, lease_seconds=120.0
)
JOB_KILLS = ("before_mark", "after_mark", "during_model", "after_save")
SWEEPER_KILLS = ("after_claim", "after_start", "during_model")
ANSWER = '{"operations": [], "summary": "Saved."}'
_jobs = itertools.count()


def heard(count: int) -> list[JournalEntry]:
    return [
        JournalEntry(i, "assistant" if i % 2 == 0 else "user", f"turn {i} of the call")
        for i in range(count)
    ]


def swept() -> dict[str, float]:
    """The sweepers' counted actions so far, by action."""
    found = dict.fromkeys(("saved", "failed", "dropped", "interrupted"), 0.0)
    for metric in REGISTRY.collect():
        for sample in metric.samples:
            if sample.name == "caller_memory_journal_swept_total":
                found[sample.labels["action"]] += sample.value
    return found


async def killed_in_model_call(server: ModelServer, work: asyncio.Task[object]) -> None:
    """Die (the task cancelled, nothing of it runs again) once its request reached the model."""
    before = len(server.requests)
    await wait_until(lambda: len(server.requests) > before or work.done(), within=10)
    work.cancel()
    await asyncio.gather(work, return_exceptions=True)


async def age(pool: asyncpg.Pool, job_id: str) -> None:
    """The job is gone: its heartbeat older than the lost-after bound, any lease over."""
    await pool.execute(
        f"update {S}.call_journals set heartbeat_at = now() - interval '90 seconds',"
        " lease_until = case when lease_until is null then null else now() end"
        " where job_id = $1",
        job_id,
    )


@dataclass(frozen=True, slots=True)
class Job:
    """One call's job: `n` heard turns, killed at `kill`, `k` of them written when that is
    `before_mark`."""

    id: str
    n: int
    kill: str
    k: int


async def run_job(pool: asyncpg.Pool, memory: Memory, server: ModelServer, job: Job) -> str:
    """The job's part up to its death; the journal's id."""
    job_id, n, kill, k = job.id, job.n, job.kill, job.k
    head = JournalHeader(
        job_id, AGENT, USER, None, Brief(), "call.ended", datetime.now(UTC) - timedelta(minutes=3)
    )
    journal_id = await open_journal(pool, head)
    entries = heard(n)
    assert await append_entries(pool, journal_id, entries[: k if kill == "before_mark" else n])
    if kill == "before_mark":
        return journal_id
    assert await mark_save_started(pool, journal_id)
    if kill == "after_mark":
        return journal_id
    if n == 0:  # the job's save: nothing heard, no model call; it drops its journal
        assert await drop_journal(pool, journal_id)
        return journal_id
    messages = [{"role": e.role, "content": e.content} for e in entries]
    call = {"started_at": head.started_at, "outcome": "caller_hung_up", "run_id": job_id}
    save = asyncio.create_task(memory.add(messages, AGENT, USER, call))
    if kill == "during_model":
        server.replies.append(Reply(content=ANSWER, delay=0.3))
        await killed_in_model_call(server, save)
        return journal_id
    server.replies.append(Reply(content=ANSWER))
    assert (await save).error is None  # its write deleted the journal
    return journal_id


async def dying_sweeper(
    pool: asyncpg.Pool, memory: Memory, server: ModelServer, job_id: str, kill: str
) -> None:
    await age(pool, job_id)
    holder = f"dead-{job_id}"
    if kill == "during_model":
        server.replies.append(Reply(content=ANSWER, delay=0.3))
        sweeping = Sweeper(pool, memory, {AGENT}.__contains__, CONFIG, holder=holder)
        await killed_in_model_call(server, asyncio.create_task(sweeping.sweep()))
        return
    claimed = await claim_silent(pool, holder, silent_for=60, lease_seconds=120, limit=20)
    if kill == "after_start":
        for journal in claimed:
            await start_swept_save(pool, journal.id, holder, silent_for=60)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    n=st.integers(min_value=0, max_value=4),
    written=st.integers(min_value=0, max_value=4),
    job_kill=st.sampled_from(JOB_KILLS),
    sweeper_kills=st.lists(st.sampled_from(SWEEPER_KILLS), max_size=2),
)
async def test_every_journalled_call_ends_once_and_is_never_asked_twice(
    pool: asyncpg.Pool,
    memory: Memory,
    model_server: ModelServer,
    *,
    n: int,
    written: int,
    job_kill: str,
    sweeper_kills: list[str],
) -> None:
    job_id = f"AJ_{next(_jobs)}"
    k = min(written, n)
    asked, before = len(model_server.requests), swept()
    await run_job(pool, memory, model_server, Job(job_id, n, job_kill, k))
    for kill in sweeper_kills:
        await dying_sweeper(pool, memory, model_server, job_id, kill)
    model_server.replies.append(Reply(content=ANSWER))  # for a healthy sweeper's one request
    for _ in range(3):
        await age(pool, job_id)
        await Sweeper(pool, memory, {AGENT}.__contains__, CONFIG, holder="healthy").sweep()
    model_server.replies.clear()
    requests = model_server.requests[asked:]
    records = await pool.fetch(
        f"select outcome, summary from {S}.memory_calls where run_id = $1", job_id
    )
    acted = {action: count - before[action] for action, count in swept().items()}
    drops = acted["dropped"] + acted["failed"]  # counted, with no call record
    event(f"job {job_kill}, sweepers {sweeper_kills}: {[r['outcome'] for r in records]}")
    assert len(requests) <= 1, "two extraction requests for one call"
    ended_by_job = job_kill == "after_save" or (job_kill == "during_model" and n == 0)
    if ended_by_job and n == 0:  # the job's own save found nothing heard and dropped it
        assert (records, drops) == ([], 0)
    else:
        assert len(records) + drops == 1, (records, acted)
    assert acted["saved"] + acted["interrupted"] == (
        len(records) if job_kill != "after_save" else 0
    )
    assert (
        await pool.fetchval(f"select count(*) from {S}.call_journals where job_id = $1", job_id)
        == 0
    )
    journalled = heard(n)[: k if job_kill == "before_mark" else n]
    if records and records[0]["outcome"] in ("caller_hung_up", "job_lost"):
        [request] = requests
        sent = saved_transcript(request)
        assert sent == [{"role": e.role, "text": e.content} for e in journalled]
    if not records:  # a counted drop, or the job's own: nothing was journalled
        assert journalled == []
