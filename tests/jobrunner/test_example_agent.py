"""The example agent of `docs/attach.md` (`examples/front_desk.py`) under livekit's job runner.

The agent is the developer's own: its instructions say nothing of memory (the block is
appended), it greets in its own `on_enter` and has its own function tool. Its entrypoint runs
unchanged in a fake job (THREAD executor, livekit's mock room) with an inbound SIP caller; the only
substitution is its session factory (`sessions=`: fake models and audio I/O). The agent's
identity key is declared only in the example's code, so its first call also binds it.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
from livekit import rtc
from livekit.agents import AgentServer, llm

from examples import front_desk
from memory.api import Memory
from memory.store import reads_of
from testkit.call_harness import saved_transcript
from testkit.fake_devices import wait_until
from testkit.job_runner import GREETING, FakeCallSide, call_records, serving, tool_call
from testkit.mock_room import SIP, MockRoom, participant
from testkit.model_server import ModelServer

AGENT = "front-desk"
NUMBER = "+34600111222"
REMEMBERED = "Prefers appointments after 16:00."
ASK = "Are you open on Monday?"
ANSWER = "Yes, on Monday we are open from nine to five."


@asynccontextmanager
async def front_desk_server(side: FakeCallSide) -> AsyncIterator[AgentServer]:
    """The example's entrypoint with fake models, on a server configured as the example's."""
    server = AgentServer(shutdown_process_timeout=front_desk.memory.shutdown_process_timeout)
    server.rtc_session(functools.partial(front_desk.entrypoint, sessions=side), agent_name=AGENT)
    async with serving(server) as running:
        yield running


async def seed(memory: Memory, model_server: ModelServer) -> None:
    """An earlier call with this caller left one fact (the seed's own extraction request)."""
    model_server.answer([{"op": "add", "handle": None, "content": REMEMBERED}], "Earlier call.")
    result = await memory.add("seed", AGENT, NUMBER)
    assert result.error is None, result.error


def instructions_of(request: llm.ChatContext) -> str:
    return "\n".join(m.text_content or "" for m in request.messages() if m.role == "system")


def tool_outputs(request: llm.ChatContext) -> list[str]:
    return [i.output for i in request.items if isinstance(i, llm.FunctionCallOutput)]


async def test_the_example_recalls_before_its_own_greeting_uses_its_tool_and_saves_once(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    memory: Memory,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    await seed(memory, model_server)
    seeded = len(model_server.requests)
    side.replies = (tool_call("opening_hours", day="Monday"), ANSWER)
    model_server.answer([], "Asked about Monday's opening hours.")
    async with front_desk_server(side) as server:
        await server.simulate_job("call-room", fake_job=True)
        await side.greeted()
        fake, session = side.llm, side.session
        assert fake is not None and session is not None
        # the greeting played, and the session committed it to its history (a moment later on a
        # busy machine) before the caller speaks: the heard transcript keeps that order
        await wait_until(lambda: any(m.role == "assistant" for m in session.history.messages()))
        side.in_job(session.generate_reply, user_input=ASK)
        await wait_until(lambda: len(fake.calls) == 3, within=10)
        await wait_until(lambda: len(side.io.speaker.segments) == 2 if side.io else False)
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == seeded + 1, within=10)

    greeting, asked, answered = (call.chat_ctx for call in fake.calls)
    said = instructions_of(greeting)  # the greeting's own request, from the agent's on_enter
    assert said.startswith("You answer the phone at Oak Street Dental.\n\n## Memory of this")
    assert REMEMBERED in said  # recalled, appended
    assert fake.tools[0] == ["opening_hours"]  # the agent's own tool, and no memory tools

    assert tool_outputs(asked) == [] and len(tool_outputs(answered)) == 1
    assert (
        "9:00 to 17:00" in tool_outputs(answered)[0]
    )  # the tool ran; its result reached the model

    assert len(model_server.requests) == seeded + 1  # the call saved exactly once
    assert saved_transcript(model_server.requests[-1]) == [
        {"role": "assistant", "text": GREETING},
        {"role": "user", "text": ASK},
        {"role": "assistant", "text": ANSWER},
    ]
    record = (await call_records(pool))[-1]
    assert (record["user_id"], record["outcome"]) == (NUMBER, "caller_hung_up")
    assert record["run_id"].startswith("mock-job-")
    binding = await pool.fetchrow(
        "select identity_key, source from stackbone_platform.memory_identity_bindings"
        " where agent_id = $1",
        AGENT,
    )
    assert binding is not None and tuple(binding) == ("phoneNumber", "code")
    # the recall before the greeting left its read's record in the opening statement
    [read] = await reads_of(pool, AGENT, NUMBER)
    assert (read.reader, read.channel, read.route) == (record["run_id"], "voice", "call_opening")
    assert read.returned == {"facts": 1, "calls": 1}
