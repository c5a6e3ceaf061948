"""Outbound dialing through livekit-api's real client against the LiveKit stand-in."""

from __future__ import annotations

from datetime import timedelta

import pytest
import structlog
from livekit import api

from lifecycle.identity import resolve_identity
from sip.caller import SIP_KIND, ParticipantFacts, read_caller
from sip.destination import InvalidDestination, check_destination
from sip.dialing import CALLEE_IDENTITY, DialOutcome, DialResult, classify, dial
from sip.job_metadata import outbound_metadata, parse_job_metadata
from tests.livekit_server import OUTBOUND_TRUNK_ID, OUTBOUND_TRUNK_NUMBER, LiveKitServer

NUMBER = "+34600111222"
DIAL = "SIP/CreateSIPParticipant"


async def _dial(lk: api.LiveKitAPI, trunk_id: str = OUTBOUND_TRUNK_ID) -> DialResult:
    return await dial(lk, room="call-1", number=NUMBER, trunk_id=trunk_id)


class TestClassify:
    @pytest.mark.parametrize(
        ("code", "outcome"),
        [
            (486, DialOutcome.BUSY),
            (600, DialOutcome.BUSY),
            (480, DialOutcome.NO_ANSWER),
            (408, DialOutcome.NO_ANSWER),
            (487, DialOutcome.NO_ANSWER),
            (603, DialOutcome.REJECTED),
            (404, DialOutcome.FAILED),
            (503, DialOutcome.FAILED),
            (None, DialOutcome.FAILED),
        ],
    )
    def test_sip_status_decides_the_outcome(self, code: int | None, outcome: DialOutcome) -> None:
        """Each SIP final response maps to one outcome; anything unknown is a failure."""
        assert classify(code) is outcome


class TestDestination:
    @pytest.mark.parametrize("number", ["+34600111222", "600111222", "112", "+" + "9" * 20])
    def test_digits_pass_unchanged(self, number: str) -> None:
        assert check_destination(number) == number

    @pytest.mark.parametrize(
        "number", ["", "+", "12", "+" + "9" * 21, "+34 600 111 222", "sip:a@b", 34600111222, None]
    )
    def test_anything_else_is_refused(self, number: object) -> None:
        """Spaces or URIs would give the callee a second memory identity, so they are refused."""
        with pytest.raises(InvalidDestination):
            check_destination(number)


class TestDial:
    async def test_answered_call_sends_one_waiting_request(
        self, lk: api.LiveKitAPI, livekit: LiveKitServer
    ) -> None:
        """An answered dial waits for the answer, dials the number and names no number."""
        result = await dial(
            lk,
            room="call-1",
            number=NUMBER,
            trunk_id=OUTBOUND_TRUNK_ID,
            ringing=timedelta(seconds=20),
        )
        assert result.answered and not result.failed
        assert result.participant_identity == CALLEE_IDENTITY
        [sent] = livekit.calls(DIAL)
        assert sent.wait_until_answered is True
        assert sent.sip_call_to == NUMBER
        assert sent.sip_trunk_id == OUTBOUND_TRUNK_ID
        assert sent.room_name == "call-1"
        assert sent.ringing_timeout.seconds == 20
        assert NUMBER not in (sent.participant_identity + sent.participant_name)

    @pytest.mark.parametrize(
        ("code", "outcome", "reason"),
        [
            (486, DialOutcome.BUSY, "Busy Here"),
            (480, DialOutcome.NO_ANSWER, "Temporarily Unavailable"),
            (408, DialOutcome.NO_ANSWER, "Request Timeout"),
            (603, DialOutcome.REJECTED, "Decline"),
            (503, DialOutcome.FAILED, "Service Unavailable"),
        ],
    )
    async def test_sip_failures_end_cleanly_with_one_event(
        self,
        lk: api.LiveKitAPI,
        livekit: LiveKitServer,
        code: int,
        outcome: DialOutcome,
        reason: str,
    ) -> None:
        """A refused dial returns its SIP status and logs it once, without the number."""
        livekit.fail_next_dial(code)
        with structlog.testing.capture_logs() as logs:
            result = await _dial(lk)
        assert (result.outcome, result.sip_status_code, result.sip_status) == (
            outcome,
            code,
            reason,
        )
        assert not result.answered
        [event] = [e for e in logs if e["event"] == "sip.dial_finished"]
        assert (event["sip_status_code"], event["sip_status"]) == (code, reason)
        assert event["outcome"] == outcome.value
        assert NUMBER not in repr(logs)

    async def test_unknown_trunk_is_a_failure(self, lk: api.LiveKitAPI) -> None:
        """A LiveKit API error without a SIP status is a failure carrying LiveKit's code."""
        result = await _dial(lk, trunk_id="ST_missing")
        assert result.outcome is DialOutcome.FAILED
        assert (result.sip_status_code, result.error_code) == (None, "not_found")

    async def test_rejected_credentials_are_a_failure(self, livekit: LiveKitServer) -> None:
        """A request LiveKit refuses to authenticate does not raise."""
        async with api.LiveKitAPI(livekit.url, livekit.api_key, "wrong-secret-" * 3) as lk:
            result = await _dial(lk)
        assert (result.outcome, result.error_code) == (DialOutcome.FAILED, "unauthenticated")
        assert livekit.calls(DIAL) == []

    async def test_unreachable_server_is_reported_not_raised(self) -> None:
        """A connection error becomes an unreachable outcome and one event."""
        async with api.LiveKitAPI("http://127.0.0.1:9", "key", "secret" * 6) as lk:
            with structlog.testing.capture_logs() as logs:
                result = await _dial(lk)
        assert result.outcome is DialOutcome.UNREACHABLE
        assert [e["outcome"] for e in logs if e["event"] == "sip.dial_finished"] == ["unreachable"]

    async def test_a_ring_past_the_request_deadline_is_unreachable(
        self, lk: api.LiveKitAPI, livekit: LiveKitServer
    ) -> None:
        """If LiveKit never answers within ring time plus margin, dial gives up cleanly."""
        livekit.ring_seconds = 3.5
        result = await dial(
            lk, room="call-1", number=NUMBER, trunk_id=OUTBOUND_TRUNK_ID, ringing=timedelta(0)
        )
        assert result.outcome is DialOutcome.UNREACHABLE


class TestOutboundIdentity:
    async def test_the_dialed_number_is_the_identity_never_the_trunk(
        self, lk: api.LiveKitAPI, livekit: LiveKitServer
    ) -> None:
        """The job resolves the number it dialed, from metadata and from the callee alike."""
        metadata = parse_job_metadata(outbound_metadata(NUMBER, OUTBOUND_TRUNK_ID))
        assert (await _dial(lk)).answered
        [sent] = livekit.calls(DIAL)
        callee = ParticipantFacts(CALLEE_IDENTITY, SIP_KIND, livekit.callee_attributes(sent))
        assert callee.attributes["sip.trunkPhoneNumber"] == OUTBOUND_TRUNK_NUMBER
        for caller in (None, read_caller(callee)):
            identity = resolve_identity("phoneNumber", caller, metadata)
            assert identity.user_id == NUMBER
        hidden = ParticipantFacts(CALLEE_IDENTITY, SIP_KIND, {"sip.trunkPhoneNumber": "+1555"})
        identity = resolve_identity("phoneNumber", read_caller(hidden), metadata)
        assert (identity.user_id, identity.source) == (NUMBER, "dialed")
