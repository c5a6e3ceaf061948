"""A browser test room and an outbound dial through livekit's own job runner."""

from __future__ import annotations

import asyncpg
from livekit import api, rtc

from sip.dialing import CALLEE_IDENTITY
from sip.job_metadata import browser_metadata, outbound_metadata
from testkit.fake_devices import wait_until
from testkit.job_runner import FakeCallSide, call_records, dispatch, job_ended, job_server
from testkit.mock_room import SIP, STANDARD, MockRoom, participant
from testkit.model_server import ModelServer
from tests.jobrunner.conftest import SAVE_TIMEOUT
from tests.livekit_server import OUTBOUND_TRUNK_ID, LiveKitServer

TESTER_NUMBER = "+34 600 999 888"
DIALED = "+34600111222"


async def test_browser_room_identity_comes_from_dispatch_metadata(
    job_env: None,
    *,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    """A tab closing (CLIENT_INITIATED) is RoomIO's close; the user is the metadata identity."""
    tester = participant("browser-tester", STANDARD, {"sip.phoneNumber": "+1 ignored"})
    room.join(tester)
    model_server.answer([], "A test call.")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server, browser_metadata({"phoneNumber": TESTER_NUMBER}))
        await side.greeted()
        room.leave(tester, rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == 1, within=10)
    [record] = await call_records(pool)
    assert (record["user_id"], record["outcome"]) == (TESTER_NUMBER, "caller_hung_up")
    assert len(model_server.requests) == 1 and side.closes == ["participant_disconnected"]


async def test_outbound_dial_then_the_callee_hangs_up(
    job_env: None,
    *,
    livekit: LiveKitServer,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    """The job dials first; the answered callee joins; the dialed number is the identity."""
    callee: list[rtc.RemoteParticipant] = []

    def answered(request: api.CreateSIPParticipantRequest) -> None:
        callee.append(participant(CALLEE_IDENTITY, SIP, livekit.callee_attributes(request)))
        room.join(callee[0])

    livekit.on_answer = answered
    model_server.answer([], "An outbound call.")
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server, outbound_metadata(DIALED, OUTBOUND_TRUNK_ID))
        await side.greeted()
        [dial] = livekit.calls("SIP/CreateSIPParticipant")
        assert dial.sip_call_to == DIALED and dial.wait_until_answered
        room.leave(callee[0], rtc.DisconnectReason.CLIENT_INITIATED)
        await wait_until(lambda: len(model_server.requests) == 1, within=10)
    [record] = await call_records(pool)
    assert (record["user_id"], record["outcome"]) == (DIALED, "caller_hung_up")


async def test_failed_dial_ends_the_job_without_a_save(
    job_env: None,
    *,
    livekit: LiveKitServer,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
) -> None:
    livekit.fail_next_dial(486)
    async with job_server(side, SAVE_TIMEOUT) as server:
        await dispatch(server, outbound_metadata(DIALED, OUTBOUND_TRUNK_ID))
        await wait_until(lambda: bool(livekit.recorded), within=10)
        await job_ended(server)
    assert side.llm is not None and side.io is not None  # the session was built, not started
    assert side.llm.calls == [] and side.io.speaker.segments == []  # no greeting
    assert model_server.requests == [] and await call_records(pool) == []
