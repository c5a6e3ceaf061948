"""Voice benchmark: time from room open to the first greeting audio frame, read on vs off.

Two paths, each read on against read off, interleaved, in one run:

- session: the call sequence (`lifecycle.call.attach_memory`, then the session's start and the
  agent's own `on_enter` greeting) on a real AgentSession with fake models and audio (the test
  harness); "room open" is the start of the sequence.
- job runner: `worker.agent`'s entrypoint unchanged in a fake job under livekit's own job
  runner (THREAD executor, mock room, one warm job runner as in production; `tests.jobrunner`);
  "room open" is the dispatch, so the figure includes the job's start, its pool, the settings
  snapshot, identity and recall.

- reply (turn mode): on the session path with saving on, the time from a caller's turn to the
  agent speaking its reply, `consolidate="turn"` against `"call.ended"`. In turn mode the pass
  after the greeting is in flight while the reply is generated (a model server in its own
  process, `bench.model_process`, answers each pass after `PASS_SECONDS`, as a remote
  provider would): the pass must not delay the reply.
- reply (journal): the same reply time in the default mode (`call.ended`), the call's journal
  on (`lifecycle.journal`, as `CALL_JOURNAL=1` runs it: each heard message written to Postgres
  as it is committed, off the reply's path) against off (`CALL_JOURNAL=0`).

Real Postgres; the person recalled has 50 facts of 500 characters and 100 call records.
Usage: python -m bench.voice_bench [--quick | --rounds N] [--replies-only | --journal-only]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import statistics
import time
from collections.abc import Awaitable, Callable

import asyncpg
from livekit.agents import AgentServer

from bench.memory_bench import bench_database, seed_person
from bench.model_process import model_process
from callmemory.environment import DEFAULT_JOURNAL_HEARTBEAT_SECONDS
from infra.database import create_pool
from infra.logs import configure_logging
from lifecycle.journal import JournalSetup
from lifecycle.plan import MemoryPlan
from memory.api import Memory, open_memory
from memory.config import MemoryConfig
from memory.settings import Overrides, SettingsUpdate
from memory.store import MemoryStore, offer_code_bindings, save_settings
from testkit.call_harness import AGENT, CALLER, snapshot_plan, voice_call
from testkit.fake_devices import wait_until
from testkit.job_runner import FakeCallSide, dispatch, job_ended, job_server
from testkit.mock_room import SIP, MockRoom, participant

Sample = Callable[[bool], Awaitable[float]]
PASS_SECONDS = 0.3
PASS_ANSWER = json.dumps(
    {"operations": [{"op": "add", "handle": None, "content": "Asks about hours."}], "summary": "s"}
)


async def session_path(memory: Memory, plans: dict[bool, MemoryPlan], read: bool) -> float:
    async with voice_call(memory, plans[read]) as call:
        await call.wait_turns(1)
        assert call.io.speaker.first_frame_at is not None
        return (call.io.speaker.first_frame_at - call.opened_at) * 1000


async def job_path(
    pool: asyncpg.Pool, server: AgentServer, side: FakeCallSide, read: bool
) -> float:
    """One fake job from dispatch to its first greeting frame, then its shutdown."""
    await save_settings(
        pool, AGENT, SettingsUpdate(Overrides(read=read, save=False), None), "bench"
    )
    side.room.reset()
    side.io = None
    side.room.join(participant("sip_caller", SIP, {"sip.phoneNumber": CALLER, "sip.ruleID": "r"}))
    opened = time.monotonic()
    await dispatch(server)
    await wait_until(lambda: side.io is not None and side.io.speaker.first_frame_at is not None)
    assert side.io is not None and side.io.speaker.first_frame_at is not None and side.ctx
    first_frame = side.io.speaker.first_frame_at
    side.in_job(side.ctx.shutdown, "bench round done")
    await job_ended(server)
    return (first_frame - opened) * 1000


async def reply_path(
    memory: Memory, plan: MemoryPlan, turn: bool, journal: JournalSetup | None = None
) -> float:
    """One call: the greeting, then one caller turn; ms from the turn to the agent speaking."""
    speaking: list[float] = []
    async with voice_call(
        memory,
        plan,
        "Yes, we open at nine.",
        consolidate="turn" if turn else "call.ended",
        journal=journal,
    ) as call:
        await call.wait_turns(1)  # the greeting committed: in turn mode its pass now runs
        call.session.on(
            "agent_state_changed",
            lambda ev: speaking.append(time.monotonic()) if ev.new_state == "speaking" else None,
        )
        asked = time.monotonic()
        call.session.generate_reply(user_input="Are you open on Monday?")
        await wait_until(lambda: bool(speaking), within=10)
    await call.running.save.wait("bench")  # the save (final pass) ends before the next round
    return (speaking[0] - asked) * 1000


def pct(samples: list[float], p: int) -> float:
    return statistics.quantiles(samples, n=100, method="inclusive")[p - 1]


def report(title: str, on: list[float], off: list[float], what: str = "read") -> None:
    print(f"\n| {title} | p50 ms | p95 ms |\n|---|---:|---:|")
    for name, values in ((f"{what} on", on), (f"{what} off", off)):
        print(f"| {name} | {pct(values, 50):.1f} | {pct(values, 95):.1f} |")
    print(
        f"| {what} on / {what} off | {pct(on, 50) / pct(off, 50):.2f}x"
        f" | {pct(on, 95) / pct(off, 95):.2f}x |"
    )
    print(
        f"| {what} on - {what} off | {pct(on, 50) - pct(off, 50):+.1f} ms"
        f" | {pct(on, 95) - pct(off, 95):+.1f} ms |"
    )


async def interleave(sample: Sample, rounds: int) -> tuple[list[float], list[float]]:
    on: list[float] = []
    off: list[float] = []
    for _ in range(rounds):  # interleaved so both see the same machine state
        on.append(await sample(True))
        off.append(await sample(False))
    return on, off


async def main(rounds: int, replies_only: bool, journal_only: bool = False) -> None:
    configure_logging(logging.WARNING)
    logging.getLogger("livekit").setLevel(logging.ERROR)
    url = await bench_database("voice-bench-")
    pool = await create_pool(url, min_size=2, max_size=2)
    await seed_person(pool, AGENT, CALLER, facts=50, calls=100)
    plans = {read: await snapshot_plan(pool, read=read, save=False) for read in (True, False)}
    saving = await snapshot_plan(pool, read=True, save=True)
    journal = JournalSetup(pool, DEFAULT_JOURNAL_HEARTBEAT_SECONDS)
    async with model_process(PASS_SECONDS, PASS_ANSWER) as model_url:
        config = MemoryConfig(base_url=model_url, api_key="bench")
        memory = open_memory(MemoryStore(pool), config)
        journalled = await interleave(
            lambda on: reply_path(memory, saving, False, journal if on else None), rounds
        )
        if journal_only:
            await memory.aclose()
            await pool.close()
            report("reply: caller's turn -> agent speaking (journal)", *journalled, "journal")
            return
        replies = await interleave(lambda turn: reply_path(memory, saving, turn), rounds)
    if replies_only:
        await memory.aclose()
        await pool.close()
        report("reply: caller's turn -> agent speaking (turn passes)", *replies, what="turn mode")
        report("reply: caller's turn -> agent speaking (journal)", *journalled, what="journal")
        return
    session = await interleave(lambda read: session_path(memory, plans, read), rounds)

    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    os.environ.update({"DATABASE_URL": url, "OPENAI_API_KEY": "bench"})
    os.environ["STACKBONE_MEMORY_EMBEDDING_MODEL"] = ""  # as before: no embeddings in the jobs
    side = FakeCallSide(MockRoom())
    async with job_server(side, save_timeout=40.0, idle_processes=1) as server:
        jobs = await interleave(lambda read: job_path(pool, server, side, read), rounds // 2)
    await memory.aclose()
    await pool.close()
    report("session: start of the call sequence -> first greeting audio frame", *session)
    report("job runner: dispatch -> first greeting audio frame", *jobs)
    report("reply: caller's turn -> agent speaking (turn passes)", *replies, what="turn mode")
    report("reply: caller's turn -> agent speaking (journal)", *journalled, what="journal")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="10 rounds instead of 60")
    parser.add_argument("--rounds", type=int, default=60, help="rounds of each path (60)")
    parser.add_argument("--replies-only", action="store_true", help="only the reply figures")
    parser.add_argument("--journal-only", action="store_true", help="only the journal's reply")
    args = parser.parse_args()
    asyncio.run(main(10 if args.quick else args.rounds, args.replies_only, args.journal_only))
