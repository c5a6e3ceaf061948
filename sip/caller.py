"""Who is on the line, read from a LiveKit participant in one place.

Only an accepted SIP participant can tell us a phone number: the LiveKit SIP service sets its
`sip.phoneNumber` attribute to the external party (the caller on an inbound call, the callee on
an outbound one). That value is kept byte-for-byte. The trunk number, the participant's LiveKit
identity and anything a browser participant sets on itself never stand in for it. A number that
is absent, blank or a withheld marker ("anonymous", "restricted", ...) means no number.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from livekit import rtc

PHONE_NUMBER_ATTR = "sip.phoneNumber"
"""The external party's number, set by the SIP service; omitted when the trunk hides it."""
TRUNK_PHONE_NUMBER_ATTR = "sip.trunkPhoneNumber"
"""Our own trunk's number: never the caller's identity."""
RULE_ID_ATTR = "sip.ruleID"
"""The dispatch rule that accepted an inbound call; absent on calls we dialed."""
WITHHELD_MARKERS = frozenset(
    {"anonymous", "restricted", "unavailable", "unknown", "private", "withheld"}
)
SIP_KIND = int(rtc.ParticipantKind.PARTICIPANT_KIND_SIP)


@dataclass(frozen=True, slots=True)
class ParticipantFacts:
    """The plain values of a participant that identity depends on."""

    identity: str
    kind: int
    attributes: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Caller:
    """The party on the line as far as memory identity is concerned."""

    is_sip: bool
    """An accepted SIP participant (telephone call)."""
    phone_number: str | None = None
    """The SIP party's number exactly as given; None when absent or withheld."""
    outbound: bool = False
    """A SIP call we dialed (no dispatch rule accepted it)."""

    @property
    def withheld(self) -> bool:
        """A telephone caller whose number we were not given."""
        return self.is_sip and self.phone_number is None


def participant_facts(participant: rtc.RemoteParticipant) -> ParticipantFacts:
    """Copy the identity-relevant values out of a live participant."""
    return ParticipantFacts(
        identity=participant.identity,
        kind=int(participant.kind),
        attributes=dict(participant.attributes),
    )


def read_caller(facts: ParticipantFacts) -> Caller:
    """The Caller for these facts; a non-SIP participant has no phone number at all."""
    if facts.kind != SIP_KIND:
        return Caller(is_sip=False)
    return Caller(
        is_sip=True,
        phone_number=usable_number(facts.attributes.get(PHONE_NUMBER_ATTR)),
        outbound=RULE_ID_ATTR not in facts.attributes,
    )


def usable_number(value: str | None) -> str | None:
    """The number unchanged, or None when it is absent, blank or a withheld marker."""
    if value is None:
        return None
    marker = value.strip().casefold()
    if not marker or marker in WITHHELD_MARKERS:
        return None
    return value
