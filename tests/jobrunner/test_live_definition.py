"""Live memory chosen in an agent's definition (`define_agent(..., consolidate="turn")`), served
by the bundled worker (`worker.agent`'s entrypoint, the agent loaded through `AGENTS`) under
livekit's job runner (THREAD executor, mock room): a pass after each agent reply while the call
runs, and one final pass at close that carries the call record. `CallerMemory.from_env` takes
the definition's choice, or its own `consolidate=`; a bad value names `consolidate`."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest
from livekit import rtc

from callmemory import PHONE_CALLERS, CallerMemory, DefinitionError, define_agent
from memory.store._ops_log import ops_after
from testkit.call_harness import saved_transcript
from testkit.fake_devices import wait_until
from testkit.job_runner import AGENT, GREETING, FakeCallSide, call_records, job_server
from testkit.mock_room import SIP, MockRoom, participant
from testkit.model_server import ModelServer
from tests.jobrunner.conftest import SAVE_TIMEOUT
from tests.memory.helpers import add_op

NUMBER = "+34600777555"
ASK = "Please send the invoice to my office."
ANSWER = "I will send it to your office."

live = define_agent(
    name=AGENT,
    instructions="You answer the phone.",
    memory=PHONE_CALLERS,
    consolidate="turn",
)
agents = [live]
"""What `AGENTS` names in these tests (`tests.jobrunner.test_live_definition:agents`)."""


async def test_a_defined_turn_agent_passes_after_each_reply_and_once_at_close(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AGENTS", f"{__name__}:agents")
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    side.replies = (ANSWER,)
    model_server.answer([add_op("Called about an invoice.")], "Greeted.")  # the greeting's pass
    model_server.answer([add_op("Wants invoices at the office.")], "Asked for the invoice.")
    model_server.answer([], "Asked for the invoice to go to the office.")  # the final pass
    async with job_server(side, SAVE_TIMEOUT) as server:
        await server.simulate_job("call-room", fake_job=True)
        await side.greeted()
        await wait_until(lambda: len(model_server.requests) == 1, within=10)  # while it runs
        assert side.session is not None
        side.in_job(side.session.generate_reply, user_input=ASK)
        await wait_until(lambda: len(model_server.requests) == 2, within=10)
        assert await call_records(pool) == []  # passes write facts, not the call record
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == 3, within=10)
    greeting_pass, reply_pass, final = model_server.requests
    assert saved_transcript(greeting_pass) == [{"role": "assistant", "text": GREETING}]
    exchange = [{"role": "user", "text": ASK}, {"role": "assistant", "text": ANSWER}]
    assert saved_transcript(reply_pass) == exchange
    assert saved_transcript(final) == exchange  # all covered: the last exchange, for the summary
    [record] = await call_records(pool)
    assert (record["user_id"], record["outcome"]) == (NUMBER, "caller_hung_up")
    logged = await ops_after(pool, AGENT, 0, 100)  # one event per pass that changed facts
    assert [(e["turn"], e["final"]) for e in logged] == [(1, False), (2, False)]


def test_the_definition_says_how_its_calls_write_memory() -> None:
    assert define_agent(name="d", instructions="x").consolidate == "call.ended"  # the default
    assert live.consolidate == "turn"
    bad: Any = "every-turn"
    with pytest.raises(DefinitionError, match="agent 'd': consolidate: must be one of"):
        define_agent(name="d", instructions="x", consolidate=bad)


def test_from_env_takes_the_definitions_choice_or_its_own(
    job_env: None, capsys: pytest.CaptureFixture[str]
) -> None:
    assert CallerMemory.from_env(live).consolidate == "turn"
    assert CallerMemory.from_env(live, consolidate="call.ended").consolidate == "call.ended"
    assert CallerMemory.from_env(AGENT, consolidate="turn").consolidate == "turn"
    assert CallerMemory.from_env(AGENT).consolidate == "call.ended"
    bad: Any = "hourly"
    with pytest.raises(SystemExit) as ended:
        CallerMemory.from_env(AGENT, consolidate=bad)
    assert ended.value.code == 2
    assert "configuration error: consolidate: must be one of" in capsys.readouterr().err
