"""Outbound calls: which number a job must dial, and dialing it through LiveKit's SIP service.

The web process never dials. It dispatches the agent with job metadata that names the number
and the outbound trunk (`sip.job_metadata`); the job reads that plan back and calls `dial`
before it greets anyone. `dial` waits until the callee answers
and never raises for the ways a call can fail to connect (busy, no answer, rejected, a LiveKit
API error, an unreachable server): it returns a `DialResult` and logs one event with the SIP
status code and reason. The number is never logged; it is the callee's memory identity.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum
from typing import Final

import aiohttp
import structlog
from livekit import api

log = structlog.get_logger(__name__)


CALLEE_IDENTITY: Final = "callee"
"""The LiveKit identity of the dialed participant: fixed, so it never carries the number."""
DEFAULT_RINGING_TIMEOUT = timedelta(seconds=30)


class DialOutcome(StrEnum):
    ANSWERED = "answered"
    BUSY = "busy"
    NO_ANSWER = "no_answer"
    REJECTED = "rejected"
    FAILED = "failed"
    """LiveKit or the trunk refused the call for another reason (bad trunk, 5xx, auth)."""
    UNREACHABLE = "unreachable"
    """LiveKit's API could not be reached or did not answer in time."""


_BY_SIP_STATUS: dict[int, DialOutcome] = {
    486: DialOutcome.BUSY,  # Busy Here
    600: DialOutcome.BUSY,  # Busy Everywhere
    408: DialOutcome.NO_ANSWER,  # Request Timeout (ringing ran out)
    480: DialOutcome.NO_ANSWER,  # Temporarily Unavailable
    487: DialOutcome.NO_ANSWER,  # Request Terminated (cancelled while ringing)
    603: DialOutcome.REJECTED,  # Decline
    607: DialOutcome.REJECTED,  # Unwanted
    608: DialOutcome.REJECTED,  # Rejected
}


@dataclass(frozen=True, slots=True)
class DialResult:
    """How an outbound dial ended; only an answered call goes on to a conversation."""

    outcome: DialOutcome
    sip_status_code: int | None = None
    sip_status: str | None = None
    error_code: str | None = None
    """LiveKit's API error code (`resource_exhausted`, `not_found`, ...) when it refused."""
    participant_identity: str | None = None

    @property
    def answered(self) -> bool:
        return self.outcome is DialOutcome.ANSWERED

    @property
    def failed(self) -> bool:
        return not self.answered


def classify(sip_status_code: int | None) -> DialOutcome:
    """The outcome of a dial that LiveKit refused with this SIP status (None: no SIP answer)."""
    if sip_status_code is None:
        return DialOutcome.FAILED
    return _BY_SIP_STATUS.get(sip_status_code, DialOutcome.FAILED)


def dial_request(
    *, room: str, number: str, trunk_id: str, participant_identity: str, ringing: timedelta
) -> api.CreateSIPParticipantRequest:
    """The CreateSIPParticipant request: wait for an answer, keep the number out of the name."""
    request = api.CreateSIPParticipantRequest(
        sip_trunk_id=trunk_id,
        sip_call_to=number,
        room_name=room,
        participant_identity=participant_identity,
        participant_name="Callee",
        wait_until_answered=True,
    )
    request.ringing_timeout.FromTimedelta(ringing)
    return request


async def dial(
    lk: api.LiveKitAPI,
    *,
    room: str,
    number: str,
    trunk_id: str,
    participant_identity: str = CALLEE_IDENTITY,
    ringing: timedelta = DEFAULT_RINGING_TIMEOUT,
) -> DialResult:
    """Dial `number` into `room` and wait until it is answered or fails; never raises for it."""
    request = dial_request(
        room=room,
        number=number,
        trunk_id=trunk_id,
        participant_identity=participant_identity,
        ringing=ringing,
    )
    result = await _attempt(lk, request)
    log.info(
        "sip.dial_finished",
        outcome=result.outcome.value,
        sip_status_code=result.sip_status_code,
        sip_status=result.sip_status,
        error_code=result.error_code,
        room=room,
        trunk_id=trunk_id,
    )
    return result


async def _attempt(lk: api.LiveKitAPI, request: api.CreateSIPParticipantRequest) -> DialResult:
    try:
        info = await lk.sip.create_sip_participant(request)
    except api.SipCallError as err:
        code = err.sip_status_code
        return DialResult(classify(code), code, err.sip_status, err.code)
    except api.ServerError as err:
        return DialResult(DialOutcome.FAILED, error_code=err.code)
    except (aiohttp.ClientError, TimeoutError):
        return DialResult(DialOutcome.UNREACHABLE)
    return DialResult(DialOutcome.ANSWERED, participant_identity=info.participant_identity)
