"""The pre-greeting deadline from room open: each late step names itself, the greeting is on time.

Each step is made late by a real table lock held by another connection (the settings snapshot,
whose statement also checks the capability, and recall); a stalled server (late pool) is in
tests/faults. Locks are held until the greeting played, so nothing here waits for a lock to go
away.
"""

from __future__ import annotations

import asyncpg
import pytest
import structlog.testing

from infra.database import PoolTimeouts
from memory.api import Memory
from memory.config import MemoryConfig
from memory.settings import CodeDefaults
from memory.store._settings import offer_code_bindings
from testkit.call_harness import AGENT, job_runtime, opening_call, seed
from testkit.model_server import ModelServer

REMEMBERED = "Has a dog named Rex."
CODE = CodeDefaults(read=True, save=True, identity_key="phoneNumber")
BUDGET = 1.5  # the steps before the locked one must fit in it on a loaded machine too
S = "stackbone_platform"


@pytest.mark.parametrize(
    ("table", "reason"),
    [
        (f"{S}.memory_identity_bindings", "settings_over_budget"),
        # the capability is checked by the settings read's own statement: one round trip
        (f"{S}.capabilities", "settings_over_budget"),
        (f"{S}.memory_facts", "recall_over_budget"),
    ],
)
async def test_a_late_step_greets_at_the_deadline_and_names_the_step(
    *,
    memory: Memory,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    database_url: str,
    memory_config: MemoryConfig,
    table: str,
    reason: str,
) -> None:
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    await seed(memory, model_server, REMEMBERED)
    runtime = job_runtime(database_url, memory_config, PoolTimeouts())
    await runtime.connect()  # the pool step is done: only the locked step can be late
    blocker = await asyncpg.connect(database_url)
    tx = blocker.transaction()
    await tx.start()
    await blocker.execute(f"lock table {table} in access exclusive mode")
    try:
        with structlog.testing.capture_logs() as logs:
            async with opening_call(runtime, CODE, budget=BUDGET) as call:
                await call.wait_turns(1)
                assert call.io.speaker.first_frame_at is not None
                waited = call.io.speaker.first_frame_at - call.opened_at
                held = not blocker.is_closed()
    finally:
        await tx.rollback()
        await blocker.close()
        await runtime.aclose()
    assert held and BUDGET <= waited < BUDGET + 2.0  # at the deadline, not when the lock went
    assert REMEMBERED not in call.first_llm_text()
    late = [e["reason"] for e in logs if e["event"] == "call.memory_not_recalled"]
    assert late == [reason]  # one code, naming the step that was late


async def test_a_healthy_opening_recalls_before_the_greeting(
    memory: Memory,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    database_url: str,
    memory_config: MemoryConfig,
) -> None:
    await offer_code_bindings(pool, {AGENT: "phoneNumber"})
    await seed(memory, model_server, REMEMBERED)
    runtime = job_runtime(database_url, memory_config, PoolTimeouts())
    try:
        with structlog.testing.capture_logs() as logs:
            async with opening_call(runtime, CODE, budget=5.0) as call:
                await call.wait_turns(1)
    finally:
        await runtime.aclose()
    assert REMEMBERED in call.first_llm_text()
    assert [e for e in logs if e["event"] == "call.memory_not_recalled"] == []
