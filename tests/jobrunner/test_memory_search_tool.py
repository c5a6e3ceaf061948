"""`memory_search()` in an agent next to `CallerMemory`, under livekit's job runner (THREAD
executor, mock room), against the test database and the local model server: the tool finds the
caller's own facts and never another person's or another agent's; a save-only call gets no
fact; past its deadline the model is told at once that search is unavailable."""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import pytest
from livekit import rtc
from livekit.agents import Agent, AgentServer, AgentSession, JobContext, ToolError

import callmemory
from callmemory import PHONE_CALLERS, CallerMemory, CodeDefaults, memory_search
from callmemory.caller_search import NOT_AVAILABLE, UNAVAILABLE, forget_call, register_call
from lifecycle.plan import MemoryPlan
from memory.api import Memory
from memory.config import ConfigError
from memory.store._reads import reads_of
from testkit.fake_devices import wait_until
from testkit.job_runner import AGENT, FakeCallSide, serving, tool_call
from testkit.mock_room import SIP, MockRoom, participant
from testkit.model_server import ModelServer
from tests.jobrunner.test_docs_tool import tool_outputs
from tests.memory.helpers import add_op

NUMBER = "+34600222444"
OTHER = "+34600222555"
MINE = "Rides a red bicycle to work."
THEIRS = "Drives a red van."
OTHER_AGENTS = "Keeps a red kayak."
ASK = "Do you remember what I ride?"
DEADLINE = 1.5  # an embedding and a search in time on a loaded machine too


class Desk(Agent):
    def __init__(self) -> None:
        super().__init__(
            instructions="You answer the phone.",
            tools=[memory_search(deadline_seconds=DEADLINE)],  # the one line
        )

    async def on_enter(self) -> None:
        self.session.generate_reply(instructions="Greet the caller.")


async def entrypoint(ctx: JobContext, sessions: FakeCallSide, memory: CallerMemory) -> None:
    session: AgentSession[None] = sessions()
    await memory.start(ctx, session, agent=Desk(), room=ctx.room)


@asynccontextmanager
async def desk(side: FakeCallSide, defaults: CodeDefaults) -> AsyncIterator[AgentServer]:
    server = AgentServer(shutdown_process_timeout=10)
    memory = CallerMemory(AGENT, defaults)
    server.rtc_session(
        functools.partial(entrypoint, sessions=side, memory=memory), agent_name=AGENT
    )
    async with serving(server) as running:
        yield running


@pytest.fixture
async def remembered(job_env: None, memory: Memory, model_server: ModelServer) -> None:
    """The caller's fact, another caller's and another agent's, all matching "red"."""
    for agent, user, fact in [(AGENT, NUMBER, MINE), (AGENT, OTHER, THEIRS)]:
        model_server.answer([add_op(fact)], "Earlier call.")
        assert (await memory.add("earlier", agent, user)).error is None
    model_server.answer([add_op(OTHER_AGENTS)], "Earlier call.")
    assert (await memory.add("earlier", "other-agent", NUMBER)).error is None


async def call_and_ask(
    room: MockRoom, side: FakeCallSide, defaults: CodeDefaults, model_server: ModelServer
) -> str:
    """One call: the caller asks, the model searches (naming another caller), then answers."""
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    side.replies = (tool_call("memory_search", query="red", userId=OTHER), "A red bicycle.")
    model_server.answer([], "Asked what they ride.")  # the save at the end
    async with desk(side, defaults) as server:
        await server.simulate_job("call-room", fake_job=True)
        await side.greeted()
        fake = side.llm
        assert fake is not None and side.session is not None
        side.in_job(side.session.generate_reply, user_input=ASK)
        await wait_until(lambda: len(fake.calls) == 3, within=10)
        side.answered_when_replying = model_server.embeddings_answered  # type: ignore[attr-defined]
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
    assert fake.tools[1] == ["memory_search"]
    [output] = tool_outputs(fake.calls[2].chat_ctx)
    return output


async def test_the_tool_finds_the_callers_own_facts_only(
    remembered: None,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    output = await call_and_ask(room, side, PHONE_CALLERS, model_server)
    assert MINE in output and output.startswith("[")
    assert THEIRS not in output and OTHER_AGENTS not in output  # a userId argument is ignored
    # the search left a read record of the caller's memory: the job, the channel, counts only
    [read] = [r for r in await reads_of(pool, AGENT, NUMBER) if r.route == "memory_search"]
    assert (read.channel, read.returned) == ("voice", {"hits": 1})
    assert read.reader is not None and read.reader.startswith("mock-job-")
    assert not [r for r in await reads_of(pool, AGENT, OTHER) if r.route == "memory_search"]


async def test_a_save_only_call_searches_nothing(
    remembered: None, room: MockRoom, side: FakeCallSide, model_server: ModelServer
) -> None:
    save_only = CodeDefaults(read=False, save=True, identity_key="phoneNumber")
    assert await call_and_ask(room, side, save_only, model_server) == NOT_AVAILABLE


async def test_a_slow_search_never_holds_the_reply(
    remembered: None,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The default embedding model (`openai/text-embedding-3-small`) embeds the query at the
    stand-in, which answers far past the tool's deadline."""
    caplog.set_level(logging.INFO)
    answered = model_server.embeddings_answered
    model_server.embedding_delay = 4.0
    assert await call_and_ask(room, side, PHONE_CALLERS, model_server) == UNAVAILABLE
    # the model was asked again while the query's embedding was still unanswered
    assert side.answered_when_replying == answered  # type: ignore[attr-defined]
    late = [r for r in caplog.records if r.getMessage() == "memory.search_tool_late"]
    assert late and "red" not in repr(vars(late[0]))


def test_the_package_face_exports_it() -> None:
    assert "memory_search" in callmemory.__all__ and callmemory.memory_search is memory_search


@pytest.mark.parametrize(("k", "deadline"), [(0, 1.0), (51, 1.0), (True, 1.0), (5, 0.0)])
def test_bad_options_are_refused_naming_them(k: int, deadline: float) -> None:
    with pytest.raises(ConfigError, match="^deadline_seconds: " if k == 5 else "^k: "):
        memory_search(k=k, deadline_seconds=deadline)
    memory_search(k=1), memory_search(k=50, deadline_seconds=0.01)  # the limits themselves


async def test_a_query_at_the_limit_runs_and_one_past_it_is_a_tool_error(
    memory: Memory, model_server: ModelServer
) -> None:
    """The tool's own rule for the model's query, on a call registered as `attach` does."""
    model_server.answer([add_op(MINE)], "Earlier call.")
    assert (await memory.add("earlier", AGENT, NUMBER)).error is None
    plan = MemoryPlan(AGENT, NUMBER, read=True, save=True, instructions=None)
    register_call(memory, plan)
    tool = memory_search()
    try:
        assert MINE in await tool(("red " * 125)[:500])  # 500 characters: searched
        with pytest.raises(ToolError, match=r"^query: must have at most 500 characters"):
            await tool("x" * 501)
        with pytest.raises(ToolError, match=r"^query: must not be blank"):
            await tool("   ")
    finally:
        forget_call(asyncio.get_running_loop())
    assert await tool("red") == NOT_AVAILABLE  # no call on this loop
