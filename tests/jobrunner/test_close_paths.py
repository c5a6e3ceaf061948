"""Every way a phone call ends, through livekit's own job runner: one save, the true outcome.

Each test runs `worker.agent`'s entrypoint unchanged in a fake job (THREAD executor, livekit's
mock room) with an inbound SIP caller, then ends the call one way and reads back what the
model server received (exactly one extraction request) and the stored call record.
"""

from __future__ import annotations

import asyncio
import logging

import asyncpg
import pytest
from livekit import rtc

from testkit.call_harness import saved_transcript
from testkit.fake_devices import wait_for_state, wait_until
from testkit.job_runner import FAIL, FakeCallSide, call_records, dispatch, job_ended, job_server
from testkit.mock_room import SIP, MockRoom, participant
from testkit.model_server import ModelServer
from tests.jobrunner.conftest import SAVE_TIMEOUT

NUMBER = "+34600111222"
Reason = rtc.DisconnectReason


def sip_caller(room: MockRoom) -> rtc.RemoteParticipant:
    caller = participant("sip_caller", SIP, {"sip.phoneNumber": NUMBER, "sip.ruleID": "rule-1"})
    room.join(caller)
    return caller


async def saved_one(pool: asyncpg.Pool, model_server: ModelServer, outcome: str) -> None:
    assert len(model_server.requests) == 1  # exactly one extraction, never retried
    [record] = await call_records(pool)
    assert (record["user_id"], record["outcome"]) == (NUMBER, outcome)
    assert record["run_id"].startswith("mock-job-")


@pytest.mark.parametrize(
    ("reason", "closed_by"),
    [
        (Reason.CLIENT_INITIATED, "participant_disconnected"),  # RoomIO closes the session
        (Reason.SIP_TRUNK_FAILURE, "user_initiated"),  # RoomIO would wait for a rejoin
        (Reason.MEDIA_FAILURE, "user_initiated"),
        (Reason.CONNECTION_TIMEOUT, "user_initiated"),
        (Reason.USER_UNAVAILABLE, "user_initiated"),
    ],
)
async def test_sip_hang_up_with_any_reason_saves_at_once(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    reason: int,
    closed_by: str,
) -> None:
    caller = sip_caller(room)
    model_server.answer([], "A short call.")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server)
        await side.greeted()
        room.leave(caller, reason)
        await wait_until(lambda: len(model_server.requests) == 1, within=10)
        assert server.active_jobs  # saved while the job still runs, not at its shutdown
        await wait_until(lambda: bool(side.closes), within=5)
    # the worker stop afterwards awaited the same save
    await saved_one(pool, model_server, "caller_hung_up")
    assert side.closes == [closed_by]


async def test_hang_up_mid_reply_keeps_the_prefix_committed_by_the_close(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    """The interrupted reply is committed while the session closes; the save reads after."""
    caller = sip_caller(room)
    story = "Sure thing. Here is how it went. " + "The keeper lit the lamp at dusk. " * 12
    side.replies = (story.strip(),)
    model_server.answer([], "Story time.")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server)
        await side.greeted()
        session, speaker = side.session, side.io.speaker if side.io else None
        assert session is not None and speaker is not None
        side.in_job(session.generate_reply, user_input="Tell me a story.")
        await wait_until(lambda: len(speaker.segments) == 1 and session.agent_state == "speaking")
        await asyncio.sleep(2.0)
        room.leave(caller, Reason.SIP_TRUNK_FAILURE)
        await wait_until(lambda: len(model_server.requests) == 1, within=10)
    sent = saved_transcript(model_server.requests[0])
    assert sent[:2] == [
        {"role": "assistant", "text": "Hello, how can I help?"},
        {"role": "user", "text": "Tell me a story."},
    ]
    assert len(sent) == 3 and sent[2]["role"] == "assistant"
    heard = sent[2]["text"].strip()
    assert heard and len(heard) < len(story.strip()) and story.startswith(heard)
    await saved_one(pool, model_server, "caller_hung_up")


async def test_ctx_shutdown_is_a_job_shutdown(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    sip_caller(room)
    model_server.answer([], "A short call.")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server)
        await side.greeted()
        assert side.ctx is not None
        side.in_job(side.ctx.shutdown, "operator ended the call")
        await job_ended(server)
    await saved_one(pool, model_server, "job_shutdown")
    assert side.closes == ["user_initiated"]  # what livekit's runner closes with


async def test_worker_stop_is_a_worker_drain(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    sip_caller(room)
    model_server.answer([], "A short call.")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server)
        await side.greeted()
    # leaving the block stops the worker: livekit sends the job its shutdown request
    await saved_one(pool, model_server, "worker_drain")


async def test_agent_ending_the_call_like_end_call_tool(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    """livekit's EndCallTool: `session.shutdown()`, then on close `ctx.shutdown(close reason)`."""
    sip_caller(room)
    model_server.answer([], "A short call.")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server)
        await side.greeted()
        session, ctx = side.session, side.ctx
        assert session is not None and ctx is not None

        def end_call() -> None:
            session.once("close", lambda ev: ctx.shutdown(reason=ev.reason.value))
            session.shutdown()

        side.in_job(end_call)
        await job_ended(server)
    await saved_one(pool, model_server, "agent_ended")


async def test_agent_closing_the_session_alone_is_agent_ended(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    """No job shutdown follows the close: after the cause wait, the agent side ended it."""
    sip_caller(room)
    model_server.answer([], "A short call.")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server)
        await side.greeted()
        assert side.session is not None
        side.in_job(side.session.shutdown)
        await wait_until(lambda: len(model_server.requests) == 1, within=10)
        assert server.active_jobs
    await saved_one(pool, model_server, "agent_ended")


async def test_unrecoverable_session_error_is_an_error(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    """More provider failures than livekit tolerates close the session with `error`."""
    sip_caller(room)
    side.replies = (FAIL,) * 4
    model_server.answer([], "A short call.")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server)
        await side.greeted()
        session, fake_llm = side.session, side.llm
        assert session is not None and fake_llm is not None
        for turn in range(4):
            await wait_for_state(session, "listening")
            side.in_job(session.generate_reply, user_input=f"Question {turn}?")
            calls = turn + 2  # the greeting, then one per question
            await wait_until(lambda: len(fake_llm.calls) >= calls)  # noqa: B023
        await wait_until(lambda: len(model_server.requests) == 1, within=10)
    await saved_one(pool, model_server, "error")
    assert side.closes == ["error"]


@pytest.mark.parametrize("end", ["hang_up", "ctx_shutdown"])
async def test_call_events_carry_room_and_job_and_never_the_number(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    caplog: pytest.LogCaptureFixture,
    end: str,
) -> None:
    caplog.set_level(logging.INFO)
    caller = sip_caller(room)
    model_server.answer([], "A short call.")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server)
        await side.greeted()
        if end == "hang_up":
            room.leave(caller, Reason.CLIENT_INITIATED)
        else:
            assert side.ctx is not None
            side.in_job(side.ctx.shutdown, "operator ended the call")
        await wait_until(lambda: len(model_server.requests) == 1, within=10)
    [record] = await call_records(pool)
    events = [r for r in caplog.records if r.getMessage().startswith("call.")]
    names = {r.getMessage() for r in events}
    assert {"call.memory_plan", "call.ended", "call.save_finished"} <= names
    for event in events:
        fields = vars(event)
        assert fields.get("job_id") == record["run_id"], event.getMessage()
        assert fields.get("room"), event.getMessage()
    assert all(NUMBER not in f"{r.getMessage()} {vars(r)!r}" for r in caplog.records)
