"""`memory_search()` among a LiveKit text session's own tools, under livekit's job runner
(THREAD executor, mock room) against the test database and the local model server: it searches
for the agent and the customer the turn's memory tools act for, records each search as a read
on channel `livekit-text`, keeps the query's limit, and answers as the memory tools do when the
session cannot read memory."""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import pytest
from livekit import rtc
from livekit.agents import Agent, AgentServer, JobContext

from callmemory import CallerMemory, TextMemory, memory_search
from callmemory.caller_search import NOT_AVAILABLE
from memory.api import Memory
from memory.settings import CodeDefaults
from memory.store._reads import reads_of
from testkit.fake_devices import wait_until
from testkit.job_runner import serving, tool_call
from testkit.mock_room import MockRoom
from testkit.model_server import ModelServer
from tests.jobrunner.test_text_session import (
    AGENT,
    TEXT_ONLY,
    USER,
    TextSide,
    customer,
    override,
    turn,
)
from tests.jobrunner.test_text_unavailable import closed_port, errors
from tests.memory.helpers import add_op

OTHER = "crm/person_43"
MINE = "Rides a red bicycle to work."
THEIRS = "Drives a red van."
READS = CodeDefaults(read=True, save=True, identity_key="customerId")


async def entrypoint(ctx: JobContext, side: TextSide, memory: CallerMemory) -> None:
    agent = Agent(instructions="You answer customers in a web chat.", tools=[memory_search()])
    started = await memory.start(ctx, side(), agent=agent, room=ctx.room, room_options=TEXT_ONLY)
    assert isinstance(started, TextMemory)
    side.text = started


@asynccontextmanager
async def searching_desk(side: TextSide, defaults: CodeDefaults) -> AsyncIterator[None]:
    server = AgentServer(shutdown_process_timeout=10)
    memory = CallerMemory(AGENT, defaults)
    server.rtc_session(functools.partial(entrypoint, side=side, memory=memory), agent_name=AGENT)
    async with serving(server) as running:
        await running.simulate_job("chat-room", fake_job=True)
        await wait_until(lambda: side.text is not None, within=10)
        yield


async def searched(
    room: MockRoom, side: TextSide, defaults: CodeDefaults, attributes: dict[str, str] | None
) -> list[tuple[str, bool]]:
    """One customer message; the scripted model's searches, then its reply: the tool outputs
    (and whether each is an error) the reply's request carries."""
    who = customer(attributes)
    room.join(who)
    requests = len(side.replies)  # each scripted search, then the reply
    async with searching_desk(side, defaults):
        await turn(room, side, who, "Do you remember what I ride?", requests=requests)
        room.leave(who, rtc.DisconnectReason.CLIENT_INITIATED)
    assert side.llm is not None and "memory_search" in side.llm.tools[0]
    return errors(side.llm.calls[-1].chat_ctx)


@pytest.fixture
async def remembered(job_env: None, memory: Memory, model_server: ModelServer) -> None:
    """The customer's fact and another customer's, both matching "red"."""
    for user, fact in [(USER, MINE), (OTHER, THEIRS)]:
        model_server.answer([add_op(fact)], "Earlier chat.")
        assert (await memory.add("earlier", AGENT, user)).error is None


async def test_it_finds_the_customers_own_fact_and_records_the_read(
    remembered: None, room: MockRoom, pool: asyncpg.Pool
) -> None:
    side = TextSide(room, [tool_call("memory_search", query="red", userId=OTHER), "A bicycle."])
    [(output, is_error)] = await searched(room, side, READS, None)
    assert not is_error and MINE in output and output.startswith("[")
    assert THEIRS not in output  # a userId argument is ignored
    [read] = [r for r in await reads_of(pool, AGENT, USER) if r.route == "memory_search"]
    assert (read.channel, read.returned) == ("livekit-text", {"hits": 1})
    assert read.reader is not None and read.reader.startswith("mock-job-")
    assert not [r for r in await reads_of(pool, AGENT, OTHER) if r.route == "memory_search"]


async def test_another_customer_finds_only_their_own(remembered: None, room: MockRoom) -> None:
    side = TextSide(room, [tool_call("memory_search", query="red"), "A van."])
    [(output, is_error)] = await searched(room, side, READS, {"customerId": OTHER})
    assert not is_error and THEIRS in output and MINE not in output


async def test_a_query_at_the_limit_runs_and_one_past_it_is_a_tool_error(
    remembered: None, room: MockRoom
) -> None:
    at_limit = tool_call("memory_search", query=("red " * 125)[:500])
    past = tool_call("memory_search", query="x" * 501)
    side = TextSide(room, [at_limit, past, "A bicycle."])
    (found, found_error), (refused, refused_error) = await searched(room, side, READS, None)
    assert not found_error and MINE in found
    assert refused_error and refused.startswith("query: must have at most 500 characters")


Case = tuple[bool, bool, dict[str, str] | None]  # the overrides read and save, who writes


@pytest.mark.parametrize(
    "case",
    [(False, True, None), (False, False, None), (True, True, {"email": "ada@example.com"})],
    ids=["save-only", "memory-off", "no-customer"],
)
async def test_without_a_readable_customer_nothing_is_searched(
    remembered: None, room: MockRoom, pool: asyncpg.Pool, case: Case
) -> None:
    read, save, attributes = case
    await override(pool, read, save)
    side = TextSide(room, [tool_call("memory_search", query="red"), "I cannot say."])
    assert await searched(room, side, READS, attributes) == [(NOT_AVAILABLE, False)]
    assert not [r for r in await reads_of(pool, AGENT, USER) if r.route == "memory_search"]


async def test_unreadable_settings_are_the_memory_tools_error(
    job_env: None, room: MockRoom, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", f"postgresql://127.0.0.1:{closed_port()}/memory")
    side = TextSide(room, [tool_call("memory_search", query="red"), "I cannot look it up."])
    [(output, is_error)] = await searched(room, side, READS, None)
    assert is_error and '"error": "memory_unavailable"' in output
