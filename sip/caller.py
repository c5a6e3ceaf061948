"""Who is on the line, read from a LiveKit participant in one place.

Only an accepted SIP participant can tell us a phone number: the LiveKit SIP service sets its
`sip.phoneNumber` attribute to the external party (the caller on an inbound call, the callee on
an outbound one). That value is kept byte-for-byte. The trunk number, the participant's LiveKit
identity and anything a browser participant sets on itself never stand in for it.

A value is a usable number only when its judged part (the user part of a `sip:`/`sips:`/`tel:`
URI or of `user@host`, else the whole value) is not a withheld marker ("anonymous",
"restricted", ...) and holds at least three decimal digits. So `sip:anonymous@anonymous.invalid`,
`+`, `0` and `**` are no number at all. A usable value is kept byte-for-byte, URI and all.

A SIP participant may also carry identities other than the number, in attributes the operator's
trunk or dispatch rule sets (`sip.identity_attributes`); a browser participant's never count.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from sip.identity_attributes import caller_identities

if TYPE_CHECKING:  # the phone rules load without livekit (the CLI, text turns)
    from livekit import rtc

PHONE_NUMBER_ATTR = "sip.phoneNumber"
"""The external party's number, set by the SIP service; omitted when the trunk hides it."""
TRUNK_PHONE_NUMBER_ATTR = "sip.trunkPhoneNumber"
"""Our own trunk's number: never the caller's identity."""
RULE_ID_ATTR = "sip.ruleID"
"""The dispatch rule that accepted an inbound call; absent on calls we dialed."""
WITHHELD_MARKERS = frozenset(
    {
        "anonymous",
        "restricted",
        "unavailable",
        "unknown",
        "private",
        "withheld",
        "blocked",
        "privatenumber",
        "nocallerid",
        "notavailable",
    }
)
"""Compared after case folding and dropping everything but letters ("Private Number" matches)."""
MIN_DIGITS = 3
"""Fewer decimal digits than this is not a telephone number ("+", "0", "#1")."""
_URI_SCHEME = re.compile(r"^(?:sips?|tel):", re.IGNORECASE)
SIP_KIND: Final = 3
"""livekit's `rtc.ParticipantKind.PARTICIPANT_KIND_SIP` (a test holds them equal)."""


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
    identities: Mapping[str, str] = field(default_factory=dict)
    """Other identities the SIP participant's attributes name (key -> value, unchanged)."""

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
        identities=caller_identities(facts.attributes),
    )


def usable_number(value: str | None) -> str | None:
    """The number unchanged, or None when it is absent, withheld or not a number."""
    if value is None:
        return None
    judged = judged_part(value)
    if _letters(judged) in WITHHELD_MARKERS:
        return None
    if sum(ch.isdecimal() for ch in judged) < MIN_DIGITS:
        return None
    return value


def judged_part(value: str) -> str:
    """The part of a caller value that says who it is: a URI's user part, else the value.

    `"Anon" <sip:anonymous@host;tag=1>` gives `anonymous`; `tel:+1555;ext=2` gives `+1555`.
    """
    text = value.strip()
    if "<" in text and text.endswith(">"):
        text = text[text.rindex("<") + 1 : -1].strip()
    text = _URI_SCHEME.sub("", text, count=1)
    user = text.split("@", 1)[0] if "@" in text else text
    return user.split(";", 1)[0].strip()


def _letters(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalpha())
