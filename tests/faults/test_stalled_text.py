"""A LiveKit text session's turn under a stalled database: the turn's settings read is given up
at its deadline and the turn runs with memory tools that tell the model memory is unavailable
(tests/jobrunner/test_text_unavailable.py calls them), never waiting for the stall's end."""

from __future__ import annotations

import time

from livekit.agents import Agent, AgentSession

from callmemory.text import SETTINGS_SECONDS, TextMemory
from infra.database import PoolTimeouts
from infra.deadline import ABANDONED
from memory.config import MemoryConfig
from memory.settings import CodeDefaults
from testkit.call_harness import job_runtime
from testkit.fake_models import FakeLLM
from testkit.mock_room import STANDARD, participant
from tests.faults.server import FaultServer

COMMAND_SECONDS = 1.0
SLACK = 1.0  # what a loaded machine may add (the stall itself lasts until resumed)


async def test_a_text_turn_under_a_stalled_database_goes_on_at_the_deadline(
    fault_db: str, fault_server: FaultServer, memory_config: MemoryConfig
) -> None:
    runtime = job_runtime(fault_db, memory_config, PoolTimeouts(command_seconds=COMMAND_SECONDS))
    session: AgentSession[None] = AgentSession(llm=FakeLLM())
    agent = Agent(instructions="You answer customers in a web chat.")
    await session.start(agent)  # no room: the turns are begun here directly
    code = CodeDefaults(read=True, save=True, identity_key="customerId")
    text = TextMemory("text-desk", code, runtime, session)
    who = participant("web-user", STANDARD, {"customerId": "crm/1"})
    try:
        warm = await text.begin_turn(who)
        assert warm.scope is not None and warm.scope.offered == ("memory_read", "memory_save")
        assert [t.id for t in agent.tools] == ["memory_read", "memory_save"]
        fault_server.stall()
        try:
            started = time.monotonic()
            stalled = await text.begin_turn(who)
            took = time.monotonic() - started
        finally:
            fault_server.resume()
    finally:
        await session.aclose()
        await text.aclose()
    print(f"\ntext turn under a stalled database bound after {took * 1000:.0f} ms")
    assert (stalled.scope, stalled.reason) == (None, "settings_unavailable")
    # the tools stay offered: called, each answers memory_unavailable (not silently gone)
    assert [t.id for t in agent.tools] == ["memory_read", "memory_save"]
    assert SETTINGS_SECONDS <= took < SETTINGS_SECONDS + SLACK
    assert await ABANDONED.settle(COMMAND_SECONDS + 3.0)
