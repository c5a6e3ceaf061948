"""A whole call on a real AgentSession (fake models and audio, no room) with real memory.

It runs `lifecycle.call.attach_memory` on the worker's own agent (`worker.greeter.Greeter`),
the same sequence `callmemory.CallerMemory.attach` runs once the caller is on the line, then
starts the session; only the session start differs (fake audio I/O instead of a LiveKit room).
Job shutdown callbacks are collected so a test can fire them like the job runner does.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import asyncpg
from livekit.agents import Agent, AgentSession

from callmemory.config import load_call_config
from callmemory.runtime import JOB_POOL_MAX, JOB_POOL_MIN, Runtime
from infra.database import PoolTimeouts, new_pool
from infra.deadline import Deadline
from lifecycle.call import CallSetup, MemoryCall, attach_memory
from lifecycle.identity import Identity, NoIdentity, resolve_identity
from lifecycle.journal import JournalSetup
from lifecycle.opening import Opening
from lifecycle.pass_schedule import DEFAULT_CONSOLIDATE, Consolidate
from lifecycle.plan import MemoryPlan, plan_memory
from lifecycle.snapshot import take_snapshot
from lifecycle.start import CallStart
from memory.api import Memory, open_memory
from memory.config import MemoryConfig
from memory.extraction._request import FRAME_CLOSE, FRAME_OPEN
from memory.settings import CodeDefaults
from memory.store._facts import MemoryStore
from memory.store._settings import offer_code_bindings
from sip.caller import Caller
from sip.job_metadata import JobMetadata
from testkit.fake_devices import FakeCallIO, fake_session, wait_until, wire
from testkit.fake_models import FakeLLM, FakeSTT
from testkit.model_server import ModelServer
from worker.greeter import Greeter

AGENT = "support"
CALLER = "+34 600 111 222"
INSTRUCTIONS = "You are the support agent."
GREETING = "Hello, how can I help?"

Callback = Any


@dataclass(slots=True)
class Harness:
    session: AgentSession[None]
    io: FakeCallIO
    llm: FakeLLM
    stt: FakeSTT | None
    agent: Agent
    running: MemoryCall
    opened_at: float
    shutdown_callbacks: list[Callback] = field(default_factory=list)

    async def shutdown(self, reason: str = "room disconnected") -> None:
        """What the job runner does at the end: close the session, then run the callbacks."""
        await self.session.aclose()
        await asyncio.gather(*(cb(reason) for cb in self.shutdown_callbacks))

    async def wait_turns(self, count: int, within: float = 10.0) -> None:
        await wait_until(lambda: len(self.running.recorder.turns) >= count, within=within)

    def first_llm_text(self) -> str:
        return "\n".join(text for _, text in self.llm.calls[0].messages)


async def snapshot_plan(
    pool: asyncpg.Pool, *, read: bool, save: bool, caller: Caller | None = None, bind: bool = True
) -> MemoryPlan:
    """Room open: bind the key (as worker start-up does), take the snapshot, resolve the caller."""
    code = CodeDefaults(read=read, save=save, identity_key="phoneNumber")
    if bind:
        await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    settings = await take_snapshot(pool, AGENT, code)
    key = settings.binding.identity_key if settings and settings.binding else None
    who = caller or Caller(is_sip=True, phone_number=CALLER)
    return plan_memory(AGENT, settings, resolve_identity(key, who, JobMetadata()))


@asynccontextmanager
async def voice_call(
    memory: Memory,
    plan: MemoryPlan,
    *replies: str,
    budget: float = 1.0,
    barge_in: bool = False,
    llm_word_delay: float = 0.0,
    save_timeout: float = 5.0,
    consolidate: Consolidate = DEFAULT_CONSOLIDATE,
    journal: JournalSetup | None = None,
) -> AsyncIterator[Harness]:
    """A call whose plan is already known; recall runs inside `budget` from call open;
    `journal`: where the call's journal is written (None: none, the harness's default)."""
    opened_at = time.monotonic()
    deadline = Deadline.after(budget, start=opened_at)
    identity = Identity(plan.user_id, None if plan.user_id else NoIdentity.IDENTITY_MISSING)
    start = CallStart(None, identity, plan, deadline, datetime.now(UTC), "job-1")
    async with _call(
        memory,
        start,
        opened_at,
        replies,
        barge_in=barge_in,
        word_delay=llm_word_delay,
        save_timeout=save_timeout,
        consolidate=consolidate,
        journal=journal,
    ) as harness:
        yield harness


@asynccontextmanager
async def opening_call(
    runtime: Runtime, code: CodeDefaults, *replies: str, budget: float, caller: Caller | None = None
) -> AsyncIterator[Harness]:
    """A call from room open, as the worker runs it: pool, capability, settings and recall
    inside one deadline (`lifecycle.opening`), the caller on the line at once."""
    opened_at = time.monotonic()
    opening = Opening(runtime, AGENT, code, budget_seconds=budget)
    who = caller or Caller(is_sip=True, phone_number=CALLER)
    start = await opening.on_the_line(
        who, JobMetadata(), started_at=datetime.now(UTC), run_id="job-1", at=opened_at
    )
    async with _call(runtime.memory, start, opened_at, replies) as harness:
        yield harness


@asynccontextmanager
async def _call(
    memory: Memory,
    start: CallStart,
    opened_at: float,
    replies: tuple[str, ...],
    *,
    barge_in: bool = False,
    word_delay: float = 0.0,
    save_timeout: float = 5.0,
    consolidate: Consolidate = DEFAULT_CONSOLIDATE,
    journal: JournalSetup | None = None,
) -> AsyncIterator[Harness]:
    fake_llm = FakeLLM([GREETING, *replies], word_delay=word_delay)
    fake_stt = FakeSTT() if barge_in else None
    session = fake_session(llm_model=fake_llm, stt_model=fake_stt)
    call_io = wire(session, mic=barge_in)
    callbacks: list[Callback] = []

    def register(cb: Callback) -> None:
        callbacks.append(cb)

    setup = CallSetup(start, save_timeout, consolidate, journal=journal)
    agent = Greeter(INSTRUCTIONS)
    running = await attach_memory(session, agent, memory, setup, register_shutdown=register)
    await session.start(agent=agent)
    harness = Harness(session, call_io, fake_llm, fake_stt, agent, running, opened_at, callbacks)
    try:
        yield harness
    finally:
        await session.aclose()
        await call_io.aclose()


def saved_transcript(request: dict[str, Any]) -> list[dict[str, str]]:
    """The transcript a save request carried, read back from its data block."""
    block = request["messages"][-1]["content"]
    payload = json.loads(block.removeprefix(FRAME_OPEN).removesuffix(FRAME_CLOSE))
    return list(payload["transcript"])


async def seed(memory: Memory, server: ModelServer, fact: str) -> None:
    server.answer([{"op": "add", "handle": None, "content": fact}], "Earlier call.")
    result = await memory.add("seed", AGENT, CALLER)
    assert result.error is None, result.error


def job_runtime(url: str, memory_config: MemoryConfig, timeouts: PoolTimeouts) -> Runtime:
    """A job's runtime over `url`, its pool not yet connected (as `callmemory.runtime`'s)."""
    pool = new_pool(url, min_size=JOB_POOL_MIN, max_size=JOB_POOL_MAX, timeouts=timeouts)
    store = MemoryStore(pool)
    return Runtime(load_call_config({}), pool, store, open_memory(store, memory_config))
