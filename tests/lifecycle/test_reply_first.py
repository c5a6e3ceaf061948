"""A turn pass leaves the event loop to a reply being generated: its model request goes out only
once the agent stopped thinking (real AgentSession, fake models, local model server)."""

from __future__ import annotations

import time

import asyncpg

from memory.api import Memory
from testkit.call_harness import snapshot_plan, voice_call
from testkit.fake_devices import wait_until
from testkit.model_server import ModelServer
from tests.memory.helpers import add_op

THINKING = 0.3  # the fake LLM's delay before each word: the reply thinks at least this long


async def test_the_pass_request_waits_until_the_reply_is_spoken(
    memory: Memory, model_server: ModelServer, pool: asyncpg.Pool
) -> None:
    plan = await snapshot_plan(pool, read=True, save=True)
    model_server.answer([add_op("Asks about Monday.")], "greeting pass")
    model_server.answer([], "final pass")
    states: list[tuple[str, float]] = []
    async with voice_call(
        memory, plan, "Yes, we open at nine.", consolidate="turn", llm_word_delay=THINKING
    ) as call:
        await call.wait_turns(1)  # the greeting is committed: its pass is due now
        call.session.on(
            "agent_state_changed", lambda ev: states.append((ev.new_state, time.monotonic()))
        )
        asked = time.monotonic()
        call.session.generate_reply(user_input="Are you open on Monday?")
        await wait_until(
            lambda: bool(model_server.received_at) and any(s == "speaking" for s, _ in states),
            within=10,
        )
    await call.running.save.wait("test")
    thinking = [at for state, at in states if state == "thinking"]
    spoke = [at for state, at in states if state == "speaking"]
    assert thinking and spoke, states
    assert spoke[0] - asked >= THINKING  # the reply did think while the pass was due
    assert model_server.received_at[0] >= spoke[0]  # and the pass's request waited for it
