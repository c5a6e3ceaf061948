"""Where an outbound call goes: the number to dial and the outbound trunk, checked the same way
by the route, the CLI and the job, before anything asks LiveKit (no livekit import here)."""

from __future__ import annotations

import re

from memory.contract import CodedError

_DESTINATION = re.compile(r"\+?[0-9]{3,20}")
_TRUNK_ID = re.compile(r"[A-Za-z0-9_-]{1,100}")


class InvalidDestination(CodedError, ValueError):
    """A destination number or trunk id the web process will not dispatch (400)."""

    code = "invalid_destination"

    def __init__(self, field: str, rule: str) -> None:
        super().__init__(f"{field}: {rule}", field=field)


def check_destination(number: object) -> str:
    """A number to dial: digits with an optional leading `+`, no spaces, returned unchanged.

    The dialed number becomes the callee's memory identity, so it must be written the way the
    SIP service will report it back (`sip.phoneNumber`); spaces or punctuation would split one
    person into two memories.
    """
    if not isinstance(number, str) or not _DESTINATION.fullmatch(number):
        raise InvalidDestination("phoneNumber", "must be 3-20 digits with an optional leading +")
    return number


def check_trunk_id(trunk_id: object) -> str:
    if not isinstance(trunk_id, str) or not _TRUNK_ID.fullmatch(trunk_id):
        raise InvalidDestination("trunkId", "must be a LiveKit outbound trunk id (ST_...)")
    return trunk_id
