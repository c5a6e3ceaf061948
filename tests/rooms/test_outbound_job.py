"""The job side of an outbound call: dial first, greet only an answered callee.

`sip.line.connect_caller` gets a small stand-in for livekit's JobContext (only the four
members it uses) whose `api` is livekit-api's real client talking to the LiveKit stand-in.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, cast

import pytest
from livekit import api
from livekit.agents import JobContext

from lifecycle.identity import resolve_identity
from sip.caller import SIP_KIND
from sip.dialing import CALLEE_IDENTITY
from sip.job_metadata import outbound_metadata, parse_job_metadata
from sip.line import connect_caller
from tests.livekit_server import OUTBOUND_TRUNK_ID, LiveKitServer

NUMBER = "+34600111222"


@dataclass
class Participant:
    identity: str
    kind: int
    attributes: dict[str, str]


@dataclass
class Job:
    metadata: str
    id: str = "job-1"


@dataclass
class Room:
    name: str = "call-1"


@dataclass
class JobStandIn:
    api: api.LiveKitAPI
    job: Job
    joined: Callable[[], Participant] | None = None
    room: Room = field(default_factory=Room)
    shutdowns: list[str] = field(default_factory=list)
    waited_for: list[str | None] = field(default_factory=list)

    def shutdown(self, reason: str = "") -> None:
        self.shutdowns.append(reason)

    async def wait_for_participant(self, *, identity: str | None = None, **_: Any) -> Any:
        self.waited_for.append(identity)
        assert self.joined is not None
        return self.joined()  # whoever LiveKit put in the room by now


def job(lk: api.LiveKitAPI, metadata: str) -> JobStandIn:
    return JobStandIn(api=lk, job=Job(metadata))


async def test_answered_callee_is_the_dialed_number(
    lk: api.LiveKitAPI, livekit: LiveKitServer
) -> None:
    """The identity resolved for an outbound call is the number dialed, not the trunk's."""
    metadata = outbound_metadata(NUMBER, OUTBOUND_TRUNK_ID)
    ctx = job(lk, metadata)

    def dials() -> list[Any]:
        return livekit.calls("SIP/CreateSIPParticipant")

    ctx.joined = lambda: Participant(
        CALLEE_IDENTITY, SIP_KIND, livekit.callee_attributes(dials()[0])
    )
    caller = await connect_caller(cast(JobContext, ctx), parse_job_metadata(ctx.job.metadata))
    assert len(dials()) == 1 and dials()[0].sip_call_to == NUMBER
    assert caller is not None and caller.phone_number == NUMBER
    assert ctx.waited_for[-1] == CALLEE_IDENTITY and ctx.shutdowns == []
    identity = resolve_identity("phoneNumber", caller, parse_job_metadata(metadata))
    assert identity.user_id == NUMBER
    assert identity.user_id != livekit.callee_attributes(dials()[0])["sip.trunkPhoneNumber"]


@pytest.mark.parametrize(
    ("status", "outcome"),
    [(486, "busy"), (480, "no_answer"), (408, "no_answer"), (603, "rejected")],
)
async def test_failed_dial_ends_the_job_before_any_conversation(
    lk: api.LiveKitAPI, livekit: LiveKitServer, status: int, outcome: str
) -> None:
    """Busy, no answer or rejected: the job shuts down, nobody is waited for, nothing heard."""
    livekit.fail_next_dial(status)
    ctx = job(lk, outbound_metadata(NUMBER, OUTBOUND_TRUNK_ID))
    assert await connect_caller(cast(JobContext, ctx), parse_job_metadata(ctx.job.metadata)) is None
    assert ctx.shutdowns == [f"dial_{outcome}"]
    assert ctx.waited_for == []


async def test_inbound_job_reads_the_participant_already_there(lk: api.LiveKitAPI) -> None:
    ctx = job(lk, "")
    attributes = {"sip.phoneNumber": "+34 911", "sip.ruleID": "r"}
    ctx.joined = lambda: Participant("sip_caller", SIP_KIND, attributes)
    caller = await connect_caller(cast(JobContext, ctx), parse_job_metadata(ctx.job.metadata))
    assert caller is not None and caller.phone_number == "+34 911"
    assert ctx.waited_for == [None]
