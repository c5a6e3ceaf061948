"""A starter-shaped agent (`examples/assistant.py`) with memory, under livekit's job runner.

Shaped like LiveKit's public starter: the models set on the session, preemptive generation and
no greeting of its own, plus one business tool (`lookup_order`) and the `define_agent(...)`
that the web process also serves over text (`tests/agents/test_example_text.py`); memory is
attached by `memory.start(...)` in place of `session.start(...)`. Its entrypoint runs in a fake
job (THREAD executor, livekit's mock room) with an inbound SIP caller. The seam: the session
options the agent asks for go to a fake session (its preemptive generation kept, models and
audio fake).
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import pytest
from livekit import rtc
from livekit.agents import AgentServer, AgentSession, AutoSubscribe, JobContext, inference

from callmemory import ConnectOptions
from examples import assistant
from memory.api import Memory
from testkit.call_harness import saved_transcript
from testkit.fake_devices import wait_until
from testkit.job_runner import GREETING, FakeCallSide, call_records, serving
from testkit.mock_room import SIP, MockRoom, participant
from testkit.model_server import ModelServer
from tests.jobrunner.test_example_agent import instructions_of

AGENT = "assistant"
NUMBER = "+34600999888"
REMEMBERED = "Is planning a trip to Lisbon in May."
ASK = "What should I pack"


@pytest.fixture
def inference_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """The starter's LiveKit inference models need keys to be built (they are never called)."""
    monkeypatch.setenv("LIVEKIT_API_KEY", "devkey")
    monkeypatch.setenv("LIVEKIT_API_SECRET", "devsecret-of-at-least-32-characters-long")


@asynccontextmanager
async def assistant_server(entrypoint: Any, side: FakeCallSide) -> AsyncIterator[AgentServer]:
    """The example's entrypoint on a server configured as the example's."""
    server = AgentServer(shutdown_process_timeout=assistant.memory.shutdown_process_timeout)
    server.rtc_session(functools.partial(entrypoint, sessions=side), agent_name=AGENT)
    async with serving(server) as running:
        yield running


async def seed(memory: Memory, model_server: ModelServer) -> int:
    model_server.answer([{"op": "add", "handle": None, "content": REMEMBERED}], "Earlier call.")
    result = await memory.add("seed", AGENT, NUMBER)
    assert result.error is None, result.error
    return len(model_server.requests)


async def test_the_starter_shaped_agent_answers_with_memory_and_saves_once(
    job_env: None,
    inference_keys: None,
    *,
    room: MockRoom,
    memory: Memory,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    side = FakeCallSide(room, speech=True)
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    seeded = await seed(memory, model_server)
    model_server.answer([], "Asked what to pack.")
    async with assistant_server(assistant.my_agent, side) as server:
        await server.simulate_job("call-room", fake_job=True)
        await wait_until(lambda: side.llm is not None and side.session is not None)
        fake = side.llm
        assert fake is not None and side.io is not None and side.session is not None
        assert fake.calls == []  # no greeting of its own: nothing said before the caller
        await side.say(ASK)
        io = side.io
        await wait_until(lambda: len(io.speaker.segments) == 1, within=10)
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == seeded + 1, within=10)

    assert side.options["turn_handling"]["preemptive_generation"] == {"enabled": True}
    assert side.session.options.preemptive_generation["enabled"] is True
    said = instructions_of(fake.calls[-1].chat_ctx)  # the reply's request
    assert said.startswith("You are a helpful voice AI assistant.")
    assert REMEMBERED in said and "\n\n## Memory of this caller\n\n" in said  # appended

    assert fake.tools[0] == ["lookup_order"]  # the definition's tool, and no memory tools
    tts = side.options["tts"]  # set on the session, as in the starter, with word timestamps
    assert isinstance(tts, inference.TTS) and tts.capabilities.aligned_transcript
    connected = room.room.connect.await_args
    assert connected is not None and connected.kwargs["options"].auto_subscribe is True

    assert len(model_server.requests) == seeded + 1  # the call saved exactly once
    assert saved_transcript(model_server.requests[-1]) == [
        {"role": "user", "text": ASK},
        {"role": "assistant", "text": GREETING},
    ]
    record = (await call_records(pool))[-1]
    assert (record["user_id"], record["outcome"]) == (NUMBER, "caller_hung_up")


async def audio_only(ctx: JobContext, sessions: Any = AgentSession) -> None:
    """The starter's entrypoint with its own connect options, handed to memory."""
    session = sessions(turn_handling={"preemptive_generation": {"enabled": True}})
    agent = assistant.Assistant()
    connect: ConnectOptions = {"auto_subscribe": AutoSubscribe.AUDIO_ONLY}
    await assistant.memory.start(ctx, session, agent=agent, room=ctx.room, connect=connect)


async def test_memory_joins_the_room_with_the_agent_s_connect_options(
    job_env: None, inference_keys: None, *, room: MockRoom, model_server: ModelServer
) -> None:
    side = FakeCallSide(room, speech=True)
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    model_server.answer([], "Asked what to pack.")
    async with assistant_server(audio_only, side) as server:
        await server.simulate_job("call-room", fake_job=True)
        await wait_until(lambda: side.session is not None)
        await side.say(ASK)
        await wait_until(lambda: side.io is not None and len(side.io.speaker.segments) == 1)
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == 1, within=10)  # the save
    assert room.room.connect.await_count == 1
    options = room.room.connect.await_args.kwargs["options"]
    assert options.auto_subscribe is False  # AUDIO_ONLY: livekit subscribes per track itself
