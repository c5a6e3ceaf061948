"""Job processes killed for real (livekit's PROCESS executor): what the caller said survives.

The worker runs as its own process group (`testkit.worker_process`), with small journal bounds
so a dead job's journal is silent within seconds; the sweeper that acts on it is the one
`worker.agent` starts in the worker's main process on livekit's `worker_started`. The model
server counts extraction requests: one per call, never two.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import asyncpg

from testkit.call_harness import saved_transcript
from testkit.model_server import ModelServer, Reply
from testkit.scripted_call import CALLER_SPOKE, GREETING, NUMBER, ON_THE_LINE, REPLY
from testkit.worker_process import WorkerProcess, worker_process

S = "stackbone_platform"
SAID = "I moved to Porto last week."
FACT, SUMMARY = "Lives in Porto.", "Moved to Porto."
BEAT, LOST_AFTER = 0.2, 3.0
"""A live job beats every 0.2 s; its journal is lost after 3 s of silence, so a job process
starved of CPU for a second on a loaded machine is not swept while its call runs."""
HEARD = [
    {"role": "assistant", "text": GREETING},
    {"role": "user", "text": SAID},
    {"role": "assistant", "text": REPLY},
]
SWEPT_WITHIN = LOST_AFTER + 15.0
"""The sweeper's bound (silent for `LOST_AFTER`, then the next sweep), with room for a loaded
machine: a wait, not a measurement."""


def fast(env: dict[str, str], **more: str) -> dict[str, str]:
    """The worker's environment with a journal that beats every `BEAT`, lost after `LOST_AFTER`."""
    return {
        **env,
        "CALL_JOURNAL_HEARTBEAT_SECONDS": str(BEAT),
        "CALL_JOURNAL_LOST_AFTER_SECONDS": str(LOST_AFTER),
        "LOG_FORMAT": "json",
        **more,
    }


async def until(found: Any, within: float, what: str) -> Any:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if value := await found():
            return value
        await asyncio.sleep(0.05)
    raise TimeoutError(f"{what} not within {within} s")


async def journalled(pool: asyncpg.Pool, count: int = 3) -> list[dict[str, str]]:
    """The journal's messages once it holds `count` of them, as a save request carries them."""

    async def enough() -> list[dict[str, str]] | None:
        rows = await pool.fetch(
            f"select role, content from {S}.call_journal_entries order by position"
        )
        held = [{"role": r["role"], "text": r["content"]} for r in rows]
        return held if len(held) >= count else None

    found: list[dict[str, str]] = await until(enough, 30, f"{count} journalled messages")
    return found


async def call_of(pool: asyncpg.Pool, job_id: str, within: float) -> asyncpg.Record:
    async def record() -> asyncpg.Record | None:
        return await pool.fetchrow(
            f"select outcome, run_id, summary from {S}.memory_calls where run_id = $1", job_id
        )

    found: asyncpg.Record = await until(record, within, f"the call record of {job_id}")
    return found


async def journals(pool: asyncpg.Pool) -> int:
    return int(await pool.fetchval(f"select count(*) from {S}.call_journals"))


def events(worker: WorkerProcess, name: str) -> list[dict[str, Any]]:
    return [r for r in worker.records() if r.get("message") == name]


def assert_private(worker: WorkerProcess) -> None:
    text = "\n".join(worker.output)
    for secret in (NUMBER, NUMBER[-9:], GREETING, SAID, FACT, SUMMARY):  # [-9:]: any form
        assert secret not in text, secret


async def test_a_job_killed_mid_call_is_saved_once_by_the_workers_sweeper(
    worker_env: dict[str, str], model_server: ModelServer, pool: asyncpg.Pool, tmp_path: Path
) -> None:
    model_server.answer([{"op": "add", "handle": None, "content": FACT}], SUMMARY)
    async with worker_process(
        "start", fast(worker_env), room="call-k1", job_id="job-k1", hold=True, says=[SAID],
        cwd=tmp_path,
    ) as worker:  # fmt: skip
        await worker.wait_for_event(CALLER_SPOKE)
        assert await journalled(pool) == HEARD
        pid = await worker.kill_job()
        record = await call_of(pool, "job-k1", SWEPT_WITHIN)
        await worker.wait_for_event("journal.swept")
        await worker.wait_for_event("call.lost")
        await asyncio.sleep(3 * BEAT)  # more sweeps: nothing is left to act on
    assert (record["outcome"], record["summary"]) == ("job_lost", SUMMARY)
    assert len(model_server.requests) == 1  # exactly one extraction request
    assert saved_transcript(model_server.requests[0]) == HEARD
    assert await journals(pool) == 0
    facts = await pool.fetch(f"select content from {S}.memory_facts")
    assert [f["content"] for f in facts] == [FACT]
    [swept] = events(worker, "journal.swept")
    assert (swept["action"], swept["pid"]) == ("saved", worker.process.pid)  # the main process
    [lost] = events(worker, "call.lost")
    assert (lost["job_id"], lost["job_pid"], lost["last_event"]) == (
        "job-k1",
        pid,
        "call.memory_plan",
    )
    assert (lost["journal"], lost["caller_turns"], lost["agent_turns"]) == ("held", 1, 2)
    assert_private(worker)


async def test_a_job_killed_during_its_saves_model_call_is_recorded_interrupted(
    worker_env: dict[str, str], model_server: ModelServer, pool: asyncpg.Pool, tmp_path: Path
) -> None:
    model_server.replies.append(Reply(content='{"operations": [], "summary": "x"}', delay=5.0))
    model_server.answer([], "A second request: never sent.")
    async with worker_process(
        "start", fast(worker_env), room="call-k2", job_id="job-k2", says=[SAID], cwd=tmp_path
    ) as worker:
        await worker.wait_for_event(CALLER_SPOKE)

        async def asked() -> bool:
            return len(model_server.requests) == 1

        await until(asked, 30, "the save's model call")
        await worker.kill_job()
        record = await call_of(pool, "job-k2", SWEPT_WITHIN)
        await worker.wait_for_event("journal.swept")
        await asyncio.sleep(3 * BEAT)
    assert (record["outcome"], record["summary"]) == ("save_interrupted", "")
    assert len(model_server.requests) == 1  # the job's one request; none from the sweeper
    assert await journals(pool) == 0
    assert await pool.fetchval(f"select count(*) from {S}.memory_facts") == 0
    [swept] = events(worker, "journal.swept")
    assert (swept["action"], swept["reason"]) == ("interrupted", "save_started")
    [lost] = events(worker, "call.lost")
    assert lost["last_event"] == "call.ended"  # it was saving
    assert (lost["journal"], lost["caller_turns"], lost["agent_turns"]) == ("held", 1, 2)
    assert_private(worker)


async def test_a_whole_worker_killed_is_swept_by_the_next_workers_start(
    worker_env: dict[str, str], model_server: ModelServer, pool: asyncpg.Pool, tmp_path: Path
) -> None:
    model_server.answer([{"op": "add", "handle": None, "content": FACT}], SUMMARY)
    env = fast(worker_env)
    async with worker_process(
        "start", env, room="call-k3", job_id="job-k3", hold=True, says=[SAID], cwd=tmp_path
    ) as first:
        await first.wait_for_event(CALLER_SPOKE)
        assert await journalled(pool) == HEARD
        first.kill_worker()  # main process, forkserver and job process at once
        await first.process.wait()
    await asyncio.sleep(LOST_AFTER + 2 * BEAT)
    assert await journals(pool) == 1  # nobody left to sweep it
    assert model_server.requests == []
    async with worker_process(
        "start", env, room="call-k4", job_id="job-k4", hold=True, cwd=tmp_path
    ) as second:
        record = await call_of(pool, "job-k3", SWEPT_WITHIN + 30)  # includes the start-up
        await second.wait_for_event(ON_THE_LINE)  # its own call runs meanwhile
        second.kill_worker()
    assert (record["outcome"], record["summary"]) == ("job_lost", SUMMARY)
    assert len(model_server.requests) == 1
    assert saved_transcript(model_server.requests[0]) == HEARD
    [swept] = events(second, "journal.swept")
    assert (swept["action"], swept["pid"]) == ("saved", second.process.pid)
    assert_private(first)
    assert_private(second)


async def test_a_job_that_outlives_its_shutdown_timeout_is_killed_after_its_one_save(
    worker_env: dict[str, str], model_server: ModelServer, pool: asyncpg.Pool, tmp_path: Path
) -> None:
    """The worker stops (`dev`: no drain); the job's save finishes inside its bound, a hung
    shutdown callback of the agent's own keeps the process, and livekit kills it once the
    shutdown timeout (the save's bound plus 15 s) is over. Nothing is saved twice."""
    model_server.answer([{"op": "add", "handle": None, "content": FACT}], SUMMARY)
    env = fast(worker_env, STACKBONE_MEMORY_TIMEOUT_SECONDS="1", CALL_SAVE_TIMEOUT_SECONDS="1.5")
    async with worker_process(
        "dev", env, room="call-k5", job_id="job-k5", hold=True, says=[SAID],
        stuck_shutdown=True, cwd=tmp_path, stop_within=40,
    ) as worker:  # fmt: skip
        await worker.wait_for_event(CALLER_SPOKE)
        assert await journalled(pool) == HEARD
    killing = worker.lines_with("killing process")
    assert killing, worker.tail()
    [lost] = worker.lines_with(" call.lost ")
    assert '"killed_by_worker": true' in lost and '"job_id": "job-k5"' in lost
    assert '"last_event": "call.save_finished"' in lost  # killed after its save finished
    assert '"journal": "none"' in lost  # its save's write deleted it
    [record] = await pool.fetch(f"select outcome, summary from {S}.memory_calls")
    assert record["summary"] == SUMMARY
    assert len(model_server.requests) == 1
    assert saved_transcript(model_server.requests[0]) == HEARD
    assert await journals(pool) == 0  # the save's write deleted it: nothing left to sweep
    assert_private(worker)
