"""An agent defined in a package outside this repository (`tests/agents/outside.py`), attached in
a worker under livekit's job runner (THREAD executor, mock room) from its definition: memory
recalled before its own greeting, its function tool on the voice agent, one save at the end.
The same definition answers text in `tests/agents/`."""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from livekit import rtc
from livekit.agents import Agent, AgentServer, AgentSession, JobContext

from callmemory import AgentDefinition, CallerMemory
from memory.api import Memory
from testkit.fake_devices import wait_until
from testkit.job_runner import FakeCallSide, serving, tool_call
from testkit.mock_room import SIP, MockRoom, participant
from testkit.model_server import ModelServer
from tests.agents.outside import AGENT, PACKAGE, write_package
from tests.jobrunner.test_example_agent import instructions_of, tool_outputs

NUMBER = "+34600111666"
REMEMBERED = "Ordered a blue bike last week."


@pytest.fixture(name="shop")
def _shop(tmp_path: Path) -> Iterator[AgentDefinition]:
    sys.path.insert(0, str(write_package(tmp_path)))
    try:
        definition: AgentDefinition = importlib.import_module(PACKAGE).shop
        yield definition
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop(PACKAGE, None)


class Shop(Agent):
    def __init__(self, definition: AgentDefinition) -> None:
        super().__init__(instructions=definition.instructions, tools=list(definition.tools))

    async def on_enter(self) -> None:
        self.session.generate_reply(instructions="Greet the caller.")


async def entrypoint(
    ctx: JobContext, sessions: FakeCallSide, definition: AgentDefinition, memory: CallerMemory
) -> None:
    session: AgentSession[Any] = sessions()
    await memory.start(ctx, session, agent=Shop(definition), room=ctx.room)


@asynccontextmanager
async def shop_server(
    side: FakeCallSide, definition: AgentDefinition
) -> AsyncIterator[AgentServer]:
    memory = CallerMemory(definition.name, definition.memory)
    server = AgentServer(shutdown_process_timeout=10)
    run = functools.partial(entrypoint, sessions=side, definition=definition, memory=memory)
    server.rtc_session(run, agent_name=AGENT)
    async with serving(server) as running:
        yield running


async def test_the_definition_attached_recalls_before_greeting_and_saves_once(
    job_env: None,
    shop: AgentDefinition,
    *,
    room: MockRoom,
    memory: Memory,
    model_server: ModelServer,
) -> None:
    side = FakeCallSide(room, speech=True)  # the caller speaks: the session's own turn
    model_server.answer([{"op": "add", "handle": None, "content": REMEMBERED}], "Earlier call.")
    assert (await memory.add("seed", AGENT, NUMBER)).error is None
    seeded = len(model_server.requests)
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    side.replies = (tool_call("lookup_order", order_id="A-100"), "It shipped on Monday.")
    model_server.answer([], "Asked about an order.")
    async with shop_server(side, shop) as server:
        await server.simulate_job("call-room", fake_job=True)
        await side.greeted()
        fake = side.llm
        assert fake is not None and side.session is not None
        await side.say("Where is my order A-100?")
        await wait_until(lambda: len(fake.calls) == 3, within=10)
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == seeded + 1, within=10)
    greeting, _, answered = (call.chat_ctx for call in fake.calls)
    assert REMEMBERED in instructions_of(greeting)  # recalled before the greeting
    assert fake.tools[0] == ["lookup_order"]  # the definition's tool on the voice agent
    [output] = tool_outputs(answered)
    assert output == f"order A-100 of {NUMBER} at {AGENT}: shipped on Monday"  # tool_context()
    assert len(model_server.requests) == seeded + 1  # one save


async def test_a_reply_started_outside_the_sessions_tasks_sees_the_caller(
    job_env: None,
    shop: AgentDefinition,
    *,
    room: MockRoom,
    model_server: ModelServer,
) -> None:
    """A reply the agent's own code starts from a callback of its own (here: a callback the
    job's loop runs, in a context the session never saw) runs its tool for the call's caller:
    `tool_context()` falls back to the call running on this loop."""
    side = FakeCallSide(room)
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    side.replies = (tool_call("lookup_order", order_id="A-100"), "It shipped on Monday.")
    model_server.answer([], "Asked about an order.")
    async with shop_server(side, shop) as server:
        await server.simulate_job("call-room", fake_job=True)
        await side.greeted()
        fake, session = side.llm, side.session
        assert fake is not None and session is not None
        side.in_job(session.generate_reply, instructions="Tell the caller about order A-100.")
        await wait_until(lambda: len(fake.calls) == 3, within=10)
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
    [output] = tool_outputs(fake.calls[2].chat_ctx)
    assert output == f"order A-100 of {NUMBER} at {AGENT}: shipped on Monday"
