"""Turn mode under livekit's own job runner: a pass after each agent reply, one `memory.ops`
event per pass that changed something, to the listener, the ops log and the room's data
channel; a conflicting pass is dropped; the final pass covers the rest and carries the call.

The agent is a developer's own, attached with `CallerMemory(..., consolidate="turn")` as in
`docs/voice-call.md`; its entrypoint runs in a fake job (THREAD executor, livekit's mock room)
with an inbound SIP caller and fake models (`sessions=`).
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable
from typing import Any

import asyncpg
import pytest
from livekit import rtc
from livekit.agents import AgentServer, AgentSession, JobContext

from callmemory import CallerMemory, CodeDefaults
from memory.api import Memory
from memory.config import ConfigError
from memory.ops._event import TOPIC, OpsEvent
from memory.store._ops_log import ops_after
from testkit.call_harness import saved_transcript
from testkit.fake_devices import wait_until
from testkit.job_runner import AGENT, GREETING, FakeCallSide, call_records, serving
from testkit.mock_room import SIP, MockRoom, participant
from testkit.model_server import ModelServer
from tests.jobrunner.desk import Desk
from tests.memory.helpers import add_op

NUMBER = "+34600999888"
ASK = "Can you call me back on Monday?"
ANSWER = "Of course, we will call you on Monday."


async def entrypoint(
    memory: CallerMemory, ctx: JobContext, sessions: Callable[[], AgentSession[None]]
) -> None:
    session, agent = sessions(), Desk()
    if await memory.attach(ctx, session, agent):
        await session.start(agent=agent, room=ctx.room)


def published(room: MockRoom) -> list[tuple[OpsEvent, dict[str, Any]]]:
    calls = room.room.local_participant.publish_data.call_args_list
    return [(json.loads(c.args[0]), c.kwargs) for c in calls]


async def test_turn_passes_reach_listener_log_and_data_channel_in_order(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    memory: Memory,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    turn = CallerMemory(
        AGENT, CodeDefaults(read=True, save=True, identity_key="phoneNumber"), consolidate="turn"
    )
    heard: list[OpsEvent] = []
    turn.on("ops", heard.append)
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    side.replies = (ANSWER,)
    model_server.answer([add_op("Calls from Madrid.")], "partial")  # the greeting's pass
    server = AgentServer(shutdown_process_timeout=turn.shutdown_process_timeout)
    server.rtc_session(functools.partial(entrypoint, turn, sessions=side), agent_name=AGENT)
    async with serving(server) as running:
        await running.simulate_job("call-room", fake_job=True)
        await side.greeted()
        await wait_until(lambda: len(heard) == 1, within=10)  # the pass after the greeting
        assert side.session is not None
        # the next pass's model answers once another writer moved the revision
        moved = asyncio.Event()
        model_server.answer_text(
            json.dumps({"operations": [add_op("Dropped fact.")], "summary": "s"}), hold=moved
        )
        side.in_job(side.session.generate_reply, user_input=ASK)
        try:
            await wait_until(lambda: len(model_server.requests) == 2, within=10)
            model_server.answer([add_op("Speaks Catalan.")], "Another writer.")
            assert (await memory.add("other writer", AGENT, NUMBER)).error is None
        finally:
            moved.set()
        model_server.answer([add_op("Wants a call back on Monday.")], "Asked for a call back.")
        await wait_until(lambda: side.io is not None and len(side.io.speaker.segments) == 2)
        room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == 4, within=15)
        await wait_until(lambda: len(heard) == 2, within=10)

    greeting_pass, dropped, _, final = model_server.requests
    assert saved_transcript(greeting_pass) == [{"role": "assistant", "text": GREETING}]
    # the dropped pass's exchange is read again by the final pass, against fresh facts
    exchange = [{"role": "user", "text": ASK}, {"role": "assistant", "text": ANSWER}]
    assert saved_transcript(dropped) == exchange == saved_transcript(final)
    assert "Speaks Catalan." in json.dumps(final) and "Dropped fact." not in json.dumps(final)

    first, last = heard  # the dropped pass emitted nothing
    assert [(e["turn"], e["final"]) for e in heard] == [(1, False), (2, True)]
    assert [o["text"] for o in first["ops"]] == ["Calls from Madrid."]
    assert [o["text"] for o in last["ops"]] == ["Wants a call back on Monday."]
    assert first["memory"]["revision"] < last["memory"]["revision"]
    assert {e["contact"] for e in heard} == {NUMBER}
    assert all(e["call_id"].startswith("mock-job-") for e in heard)

    log = await ops_after(pool, AGENT, 0, 100)  # the other writer's event sits between them
    assert [e["id"] for e in log] == sorted(e["id"] for e in log)
    assert [log[0], log[2]] == heard
    for i, cursor in enumerate(e["id"] for e in log):
        assert await ops_after(pool, AGENT, cursor, 100) == log[i + 1 :]

    packets = published(room)
    assert [p for p, _ in packets] == heard
    assert all(kw == {"reliable": True, "topic": TOPIC} for _, kw in packets)

    records = await call_records(pool)  # only the final pass wrote the call record
    assert [(r["user_id"], r["outcome"]) for r in records] == [
        (NUMBER, None),  # the other writer's add
        (NUMBER, "caller_hung_up"),
    ]


def test_the_option_and_the_event_name_are_checked_where_memory_is_attached() -> None:
    bad: Any = "every-turn"
    with pytest.raises(ConfigError, match="consolidate"):
        CallerMemory(AGENT, consolidate=bad)
    with pytest.raises(ValueError, match="event"):
        CallerMemory(AGENT).on("memory.facts", print)
    assert CallerMemory(AGENT).consolidate == "call.ended"  # the default: one save at the end
