"""Turn mode under livekit's own job runner: the memory block the next reply sees, a room that
is gone when a pass publishes, and a pass whose model never answers in time.

Same setting as `test_turn_mode`: a developer's agent attached with
`CallerMemory(..., consolidate="turn")`, a fake job on livekit's mock room with an inbound SIP
caller, fake voice models (`sessions=`), the memory model on the local model server.
"""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Callable, MutableMapping
from typing import Any

import asyncpg
import pytest
import structlog
from livekit import rtc
from livekit.agents import Agent, AgentServer, AgentSession, JobContext, llm

from callmemory import CallerMemory, CodeDefaults
from lifecycle.closing import SETTLE_SECONDS
from memory.api import Memory
from memory.contract._errors import ModelFailed
from memory.ops._event import OpsEvent
from memory.store._ops_log import ops_after
from testkit.call_harness import saved_transcript
from testkit.fake_devices import wait_until
from testkit.job_runner import AGENT, GREETING, FakeCallSide, call_records, serving
from testkit.mock_room import SIP, MockRoom, participant
from testkit.model_server import ModelServer
from tests.jobrunner.desk import Desk
from tests.memory.helpers import add_op, delete_op, update_op

NUMBER = "+34600777666"
ASK, ANSWER = "Can you call me back?", "Of course, on Monday."
ASK_AGAIN, ANSWER_AGAIN = "And on Tuesday?", "Tuesday works too."


async def entrypoint(
    memory: CallerMemory,
    agents: list[Agent],
    ctx: JobContext,
    sessions: Callable[[], AgentSession[None]],
) -> None:
    session, agent = sessions(), Desk()
    agents.append(agent)
    if await memory.attach(ctx, session, agent):
        await session.start(agent=agent, room=ctx.room)


def turn_memory(heard: list[OpsEvent]) -> CallerMemory:
    memory = CallerMemory(
        AGENT, CodeDefaults(read=True, save=True, identity_key="phoneNumber"), consolidate="turn"
    )
    memory.on("ops", heard.append)
    return memory


def server_for(memory: CallerMemory, side: FakeCallSide, agents: list[Agent]) -> AgentServer:
    server = AgentServer(shutdown_process_timeout=memory.shutdown_process_timeout)
    server.rtc_session(
        functools.partial(entrypoint, memory, agents, sessions=side), agent_name=AGENT
    )
    return server


def system_text(side: FakeCallSide, request: int) -> str:
    """The instructions the agent's LLM request number `request` carried."""
    assert side.llm is not None
    return "\n".join(t for role, t in side.llm.calls[request].messages if role == "system")


def spoken(side: FakeCallSide, segments: int) -> Callable[[], bool]:
    return lambda: side.io is not None and len(side.io.speaker.segments) == segments


def said(side: FakeCallSide, text: str) -> Callable[[], bool]:
    """The agent's reply `text` was spoken to its end and is in the session's history."""

    def done() -> bool:
        items = side.session.history.items if side.session is not None else []
        return any(
            isinstance(i, llm.ChatMessage) and i.role == "assistant" and i.text_content == text
            for i in items
        )

    return done


async def test_the_reply_after_a_saved_pass_sees_the_facts_as_they_are_now(
    job_env: None,
    monkeypatch: pytest.MonkeyPatch,
    *,
    room: MockRoom,
    side: FakeCallSide,
    memory: Memory,
    model_server: ModelServer,
) -> None:
    monkeypatch.setenv("CALL_SAVE_TIMEOUT_SECONDS", "12")  # a running pass gets (12 - 4) / 2 s
    model_server.answer([add_op("Lives in Miraflores."), add_op("Works Saturdays.")], "Earlier.")
    assert (await memory.add("an earlier call", AGENT, NUMBER)).error is None
    heard: list[OpsEvent] = []
    agents: list[Agent] = []
    turn = turn_memory(heard)
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    side.replies = (ANSWER,)
    # the greeting's pass: one update, one delete, one add
    model_server.answer(
        [update_op("f1", "Lives in San Isidro."), delete_op("f2"), add_op("Prefers WhatsApp.")],
        "Moved.",
    )
    async with serving(server_for(turn, side, agents)) as running:
        await running.simulate_job("call-room", fake_job=True)
        await side.greeted()
        await wait_until(lambda: len(heard) == 1, within=10)
        await wait_until(lambda: "San Isidro" in str(agents[0].instructions), within=10)
        # the next pass answers once the call closed while it ran, so it must not refresh
        closed = asyncio.Event()
        model_server.answer_text(
            json.dumps({"operations": [add_op("Has a dog.")], "summary": "s"}), hold=closed
        )
        side.in_job(side.session.generate_reply, user_input=ASK)  # type: ignore[union-attr]
        try:
            await wait_until(spoken(side, 2))
            await wait_until(lambda: len(model_server.requests) == 3, within=10)
            model_server.answer([], "Asked for a call back.")  # the final pass
            room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
            await wait_until(lambda: side.closes != [], within=10)
        finally:
            closed.set()
        await wait_until(lambda: len(model_server.requests) == 4, within=15)
        await wait_until(lambda: len(heard) == 2, within=10)

    greeting, reply = system_text(side, 0), system_text(side, 1)
    assert "Lives in Miraflores." in greeting and "Works Saturdays." in greeting
    assert "Lives in San Isidro." in reply and "Prefers WhatsApp." in reply  # updated, added
    assert "Miraflores" not in reply and "Works Saturdays." not in reply  # replaced, deleted
    assert reply.startswith("You answer the phone.") and "{{MEMORY}}" not in reply
    assert "Lives in San Isidro." in json.dumps(model_server.requests[2])  # what the pass held
    # the pass that ended while the call closed was saved and emitted, but not shown
    assert [(e["turn"], e["final"]) for e in heard] == [(1, False), (2, False)]
    assert [o["text"] for o in heard[1]["ops"]] == ["Has a dog."]
    assert "Has a dog." not in str(agents[0].instructions)


async def test_a_pass_after_the_room_disconnected_is_saved_logged_and_not_published(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    heard: list[OpsEvent] = []
    turn = turn_memory(heard)
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    model_server.answer([add_op("Calls from Madrid.")], "partial")  # the greeting's pass
    model_server.answer([add_op("Wants a call back.")], "Asked for a call back.")  # the final
    with structlog.testing.capture_logs() as logs:
        async with serving(server_for(turn, side, [])) as running:
            await running.simulate_job("call-room", fake_job=True)
            await side.greeted()
            await wait_until(lambda: len(heard) == 1, within=10)
            # the data channel publishes from a task of its own: published while connected
            published = room.room.local_participant.publish_data
            await wait_until(lambda: published.call_count == 1, within=5)
            room.disconnect()  # the room is gone before the caller's departure is handled
            room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
            await wait_until(lambda: len(heard) == 2, within=15)
            await wait_until(lambda: any(e["event"] == "call.save_finished" for e in logs))

    packets = room.room.local_participant.publish_data.call_args_list
    assert [json.loads(c.args[0]) for c in packets] == heard[:1]  # the final one was skipped
    assert heard[1]["final"] is True
    assert await ops_after(pool, AGENT, 0, 100) == heard  # the log has both events
    saves = [e for e in logs if e["event"] == "call.save_finished"]
    assert [(e["status"], e["reason"]) for e in saves] == [("saved", None)]
    failures = [e for e in logs if e["log_level"] in ("error", "warning", "critical")]
    assert failures == []
    records = await call_records(pool)
    assert [(r["user_id"], r["outcome"]) for r in records] == [(NUMBER, "caller_hung_up")]


MODEL_TIMEOUT, SAVE_TIMEOUT = 8.0, 12.0  # at close a running pass gets (12 - 8) / 2 s
HUNG = 10.0  # a hung model would answer after this: past the client's own timeout
HUNG_ANSWER = json.dumps({"operations": [add_op("Hung fact.")], "summary": "s"})


async def hung_pass_call(
    monkeypatch: pytest.MonkeyPatch,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    heard: list[OpsEvent],
) -> tuple[list[MutableMapping[str, Any]], float]:
    """A call whose greeting pass hangs; two replies, then the caller hangs up.

    The logs of the call and how long the save took after the hang-up.
    """
    monkeypatch.setenv("STACKBONE_MEMORY_TIMEOUT_SECONDS", str(MODEL_TIMEOUT))
    monkeypatch.setenv("CALL_SAVE_TIMEOUT_SECONDS", str(SAVE_TIMEOUT))
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER})
    room.join(caller)
    side.replies = (ANSWER, ANSWER_AGAIN)
    with structlog.testing.capture_logs() as logs:
        async with serving(server_for(turn_memory(heard), side, [])) as running:
            await running.simulate_job("call-room", fake_job=True)
            await side.greeted()
            await wait_until(lambda: len(model_server.requests) == 1, within=10)
            for ask, answer in ((ASK, ANSWER), (ASK_AGAIN, ANSWER_AGAIN)):
                side.in_job(side.session.generate_reply, user_input=ask)  # type: ignore[union-attr]
                await wait_until(said(side, answer), within=10)
            # both replies were spoken while the pass still waited for its model
            assert not any(e["event"] == "memory.pass_finished" for e in logs)
            assert len(model_server.requests) == 1  # and no second pass started meanwhile
            room.leave(caller, rtc.DisconnectReason.CLIENT_INITIATED)
            hung_up = time.monotonic()
            await wait_until(
                lambda: any(e["event"] == "call.save_finished" for e in logs), within=30
            )
            took = time.monotonic() - hung_up
    # the save did not wait for the hung pass to time out: it cancelled it, and ended in bound
    events = [e["event"] for e in logs]
    assert "memory.pass_abandoned" in events and "memory.pass_finished" not in events
    abandoned = [e for e in logs if e["event"] == "deadline.abandoned_ended"]
    assert [(e["step"], e["ending"]) for e in abandoned] == [("turn_pass", "cancelled")]
    assert took < SAVE_TIMEOUT + SETTLE_SECONDS
    # the final pass read everything the hung pass never covered
    assert [m["text"] for m in saved_transcript(model_server.requests[1])] == [
        GREETING,
        ASK,
        ANSWER,
        ASK_AGAIN,
        ANSWER_AGAIN,
    ]
    return logs, took


def save_outcomes(logs: list[MutableMapping[str, Any]]) -> list[tuple[str, str | None]]:
    return [(e["status"], e["reason"]) for e in logs if e["event"] == "call.save_finished"]


async def test_a_hung_pass_delays_no_reply_overlaps_no_pass_and_the_final_pass_saves(
    job_env: None,
    monkeypatch: pytest.MonkeyPatch,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    model_server.answer_text(HUNG_ANSWER, delay=HUNG)  # the greeting's pass
    model_server.answer([add_op("Wants a call back.")], "Asked for a call back.")  # the final
    heard: list[OpsEvent] = []
    logs, _ = await hung_pass_call(monkeypatch, room, side, model_server, heard)

    assert save_outcomes(logs) == [("saved", None)]
    assert [(e["turn"], e["final"]) for e in heard] == [(3, True)]
    assert [o["text"] for o in heard[0]["ops"]] == ["Wants a call back."]
    records = await call_records(pool)
    assert [(r["user_id"], r["outcome"]) for r in records] == [(NUMBER, "caller_hung_up")]
    facts = await pool.fetch("select content from stackbone_platform.memory_facts")
    assert [f["content"] for f in facts] == ["Wants a call back."]  # the hung pass wrote nothing


async def test_when_the_final_pass_hangs_too_the_save_fails_in_bound_and_says_why(
    job_env: None,
    monkeypatch: pytest.MonkeyPatch,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    model_server.answer_text(HUNG_ANSWER, delay=HUNG)  # the greeting's pass
    model_server.answer_text(HUNG_ANSWER, delay=HUNG)  # the final pass
    heard: list[OpsEvent] = []
    logs, took = await hung_pass_call(monkeypatch, room, side, model_server, heard)

    # the final pass kept its model call's whole timeout, so the model's own failure is reported
    assert save_outcomes(logs) == [("failed", ModelFailed.code)]
    assert took > MODEL_TIMEOUT
    assert heard == []
    assert await call_records(pool) == []
    assert await pool.fetch("select content from stackbone_platform.memory_facts") == []
