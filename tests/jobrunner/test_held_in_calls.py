"""Held tools in a live call never run (livekit's job runner, THREAD executor, mock room): a call
has no session to park on and the caller is on the line, so the model's call of a held tool is
refused in words it can put to the caller, on an agent built from `definition.voice_tools`, on
one built from the plain `definition.tools` (attach swaps the held ones) and on the worker's own
agent. A tool that is not held runs as before; livekit's text mode refuses held tools too. The
stand-in keeps the tool's name, description and parameters."""

from __future__ import annotations

import functools
import importlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from livekit import rtc
from livekit.agents import Agent, AgentServer, AgentSession, JobContext, llm
from livekit.agents.llm.utils import build_legacy_openai_schema
from prometheus_client import REGISTRY

from callmemory import AgentDefinition, CallerMemory, TextMemory
from callmemory.held_in_calls import REFUSAL, call_tools
from testkit.fake_devices import wait_until
from testkit.job_runner import FakeCallSide, serving, tool_call
from testkit.mock_room import SIP, MockRoom, participant
from tests.held.conftest import ran
from tests.held.outside import AGENT, AGENTS, PACKAGE, write_package
from tests.jobrunner.test_example_agent import tool_outputs
from tests.jobrunner.test_text_session import TEXT_ONLY, TextSide, customer, turn
from tests.team_package import importable
from worker import agent as worker_agent

NUMBER = "+34600111777"
REFUSED = "caller_memory_call_held_tools_refused_total"


@pytest.fixture(name="ran_file")
def _ran_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where the team's tools write what they ran (`tests.held.outside`)."""
    monkeypatch.setenv("HELD_RAN", str(tmp_path / "ran.jsonl"))
    return tmp_path / "ran.jsonl"


@pytest.fixture(name="refunds")
def _refunds(tmp_path: Path, ran_file: Path) -> Iterator[AgentDefinition]:
    with importable(write_package(tmp_path / "team"), PACKAGE):
        definition: AgentDefinition = importlib.import_module(PACKAGE).refunds
        yield definition


class Desk(Agent):
    async def on_enter(self) -> None:
        self.session.generate_reply(instructions="Greet the caller.")


async def entrypoint(
    ctx: JobContext, sessions: FakeCallSide, agent: Agent, memory: CallerMemory
) -> None:
    session: AgentSession[Any] = sessions()
    await memory.start(ctx, session, agent=agent, room=ctx.room)


def desk_server(side: FakeCallSide, agent: Agent, memory: CallerMemory) -> AgentServer:
    server = AgentServer(shutdown_process_timeout=10)
    run = functools.partial(entrypoint, sessions=side, agent=agent, memory=memory)
    server.rtc_session(run, agent_name=AGENT)
    return server


async def one_call(
    room: MockRoom, side: FakeCallSide, server: AgentServer, *replies: str
) -> llm.ChatContext:
    """A call whose model answers the caller's question with `replies`: its last request."""
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    side.replies = replies
    async with serving(server) as running:
        await running.simulate_job("call-room", fake_job=True)
        await side.greeted()
        fake, session = side.llm, side.session
        assert fake is not None and session is not None
        side.in_job(session.generate_reply, user_input="Refund order A-1, please.")
        await wait_until(lambda: len(fake.calls) == 3, within=10)
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
    return fake.calls[2].chat_ctx


async def call_desk(
    room: MockRoom, agent: Agent, memory: CallerMemory, *replies: str
) -> llm.ChatContext:
    side = FakeCallSide(room)
    return await one_call(room, side, desk_server(side, agent, memory), *replies)


REFUND = tool_call("issue_refund", order_id="A-1", amount="500")


@pytest.mark.parametrize("built_from", ["voice_tools", "tools"])
async def test_a_held_tool_in_a_call_is_refused_and_never_runs(
    job_env: None,
    refunds: AgentDefinition,
    *,
    room: MockRoom,
    ran_file: Path,
    caplog: pytest.LogCaptureFixture,
    built_from: str,
) -> None:
    caplog.set_level(logging.INFO)
    before = REGISTRY.get_sample_value(REFUSED) or 0.0
    agent = Desk(instructions=refunds.instructions, tools=list(getattr(refunds, built_from)))
    memory = CallerMemory(refunds.name, refunds.memory, held=frozenset(refunds.interrupt_on))
    answered = await call_desk(room, agent, memory, REFUND, "I cannot do that now.")
    [output] = tool_outputs(answered)
    assert output == REFUSAL.format(tool="issue_refund")
    [outcome] = [i for i in answered.items if isinstance(i, llm.FunctionCallOutput)]
    assert outcome.is_error
    assert ran(ran_file) == []  # the refund never ran
    events = [r.getMessage() for r in caplog.records]
    assert events.count("call.held_tool_refused") == 1
    assert REGISTRY.get_sample_value(REFUSED) == before + 1
    guarded = events.count("call.held_tools_guarded")
    assert guarded == (1 if built_from == "tools" else 0)  # swapped at attach only if needed


async def test_a_tool_that_is_not_held_runs_in_a_call(
    job_env: None, refunds: AgentDefinition, room: MockRoom, ran_file: Path
) -> None:
    agent = Desk(instructions=refunds.instructions, tools=refunds.voice_tools)
    memory = CallerMemory(refunds.name, refunds.memory, held=frozenset(refunds.interrupt_on))
    lookup = tool_call("lookup_order", order_id="A-1")
    answered = await call_desk(room, agent, memory, lookup, "It was delivered.")
    assert tool_outputs(answered) == ["order A-1: delivered"]
    assert [r["tool"] for r in ran(ran_file)] == ["lookup_order"]


def test_a_stand_in_keeps_the_tools_name_description_and_parameters(
    refunds: AgentDefinition,
) -> None:
    tools = call_tools(refunds.tools, refunds.interrupt_on, refunds.name)
    by_name = {t.id: t for t in tools}
    plain = {t.id: t for t in refunds.tools}
    assert list(by_name) == ["lookup_order", "issue_refund", "cancel_order"]
    assert by_name["lookup_order"] is plain["lookup_order"]  # not held: the same tool
    for name in ("issue_refund", "cancel_order"):
        stand_in = by_name[name]
        assert isinstance(stand_in, llm.RawFunctionTool)
        assert stand_in.info.raw_schema == build_legacy_openai_schema(plain[name])["function"]
    again = call_tools(tools, refunds.interrupt_on, refunds.name)
    assert again[1] is tools[1]  # a stand-in is never wrapped twice


async def test_a_held_tool_in_livekits_text_mode_is_refused_too(
    job_env: None, refunds: AgentDefinition, *, room: MockRoom, ran_file: Path
) -> None:
    """livekit's text mode has no session to park on either: `attach_text` swaps the held
    tools of an agent built from the plain `tools`."""
    side = TextSide(room, [REFUND, "I cannot do that now."])
    memory = CallerMemory(refunds.name, refunds.memory, held=frozenset(refunds.interrupt_on))

    async def entry(ctx: JobContext) -> None:
        agent = Agent(instructions=refunds.instructions, tools=list(refunds.tools))
        started = await memory.start(
            ctx, side(), agent=agent, room=ctx.room, room_options=TEXT_ONLY
        )
        side.text = started if isinstance(started, TextMemory) else None

    server = AgentServer(shutdown_process_timeout=10)
    server.rtc_session(entry, agent_name=AGENT)
    who = customer()
    room.join(who)
    async with serving(server) as running:
        await running.simulate_job("chat-room", fake_job=True)
        await wait_until(lambda: side.text is not None, within=10)
        await turn(room, side, who, "Refund order A-1, please.", requests=2)
        room.leave(who, rtc.DisconnectReason.CLIENT_INITIATED)
    assert side.llm is not None
    assert tool_outputs(side.llm.calls[1].chat_ctx) == [REFUSAL.format(tool="issue_refund")]
    assert ran(ran_file) == []


async def test_the_workers_own_agent_holds_them_back_too(
    job_env: None,
    refunds: AgentDefinition,
    *,
    room: MockRoom,
    ran_file: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`worker.agent`'s entrypoint serving an agent of `AGENTS` with a held tool."""
    monkeypatch.setenv("AGENTS", AGENTS)
    side = FakeCallSide(room)
    server = AgentServer(shutdown_process_timeout=10)
    server.rtc_session(functools.partial(worker_agent.entrypoint, sessions=side), agent_name=AGENT)
    answered = await one_call(room, side, server, REFUND, "I cannot do that now.")
    assert tool_outputs(answered) == [REFUSAL.format(tool="issue_refund")]
    assert ran(ran_file) == []
