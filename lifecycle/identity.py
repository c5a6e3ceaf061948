"""Which memory user a call belongs to, decided once when the call opens.

The agent's fixed identity key names the field. On a phone call `phoneNumber` comes only from
telephony: the accepted SIP participant's number, or on a call we dialed, the number we dialed
(server-owned job metadata), unless the request that started the call named a `phoneNumber`
identity of its own. In a browser test room it comes only from the explicit `phoneNumber` test
identity the API validated into the dispatch metadata (never from a phone-shaped `customerId`).
Every other key (`email`, `customerId`, any custom literal such as `contact.email`) comes from a
SIP participant's `callmemory.identity.<key>` attribute, which the operator's trunk or dispatch
rule sets per caller (`sip.identity_attributes`), else from identities the integration put in
the server-owned dispatch metadata (`sip.job_metadata`), looked up by its literal name; an
inbound SIP caller with neither says so (`identity_attribute_missing`). What a browser
participant sets on itself is never read. Without an identity the call runs without memory and
the result names why. The id found is validated here, once, for the whole call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Literal

from memory.contract import InvalidRequest, requests
from memory.settings import CallSettings
from sip.caller import Caller, usable_number
from sip.job_metadata import JobMetadata

PHONE_NUMBER_KEY = "phoneNumber"

IdentitySource = Literal["sip", "dialed", "metadata", "attribute"]


class NoIdentity(StrEnum):
    """Why a call runs without memory."""

    NO_BINDING = "no_binding"
    IDENTITY_MISSING = "identity_missing"
    CALLER_WITHHELD = "caller_withheld"
    METADATA_INVALID = "metadata_invalid"
    IDENTITY_INVALID = "identity_invalid"
    ATTRIBUTE_MISSING = "identity_attribute_missing"
    """An inbound SIP caller named nothing under the key: no attribute, no dispatch metadata."""


@dataclass(frozen=True, slots=True)
class Identity:
    """The memory user id for a call, or the reason there is none."""

    user_id: str | None
    reason: NoIdentity | None = None
    source: IdentitySource | None = None


def identity_key(settings: CallSettings | None) -> str | None:
    """The key that names the caller's identity, from the snapshot's binding."""
    return settings.binding.identity_key if settings and settings.binding else None


@dataclass(frozen=True, slots=True)
class Offered:
    """Who the caller can be, decided once from what is on the line: key -> identity.

    Holds the phone number's identity (or why there is none) and one for each key of the
    dispatch metadata. The call's opening statement looks its bound key up among the user ids
    (`user_ids`), and the call's start takes the same key's identity from here (`under`):
    neither decides again.
    """

    identities: Mapping[str, Identity]
    absent: NoIdentity  # the reason for a key nobody offered

    def under(self, key: str | None) -> Identity:
        """The identity under the agent's bound key (None: the agent has no binding)."""
        if key is None:
            return Identity(user_id=None, reason=NoIdentity.NO_BINDING)
        return self.identities.get(key) or Identity(user_id=None, reason=self.absent)

    def user_ids(self) -> dict[str, str]:
        """Each key that names a usable user id -> that id (what the opening statement reads)."""
        return {k: i.user_id for k, i in self.identities.items() if i.user_id is not None}


def offer(caller: Caller | None, metadata: JobMetadata) -> Offered:
    """Every identity the caller offers, each validated once for the whole call."""
    named = caller.identities if caller is not None else {}
    keys = dict.fromkeys((PHONE_NUMBER_KEY, *named, *metadata.identities))
    identities = {key: _checked(_found(key, caller, metadata)) for key in keys}
    return Offered(identities, _absent(caller, metadata))


def resolve_identity(key: str | None, caller: Caller | None, metadata: JobMetadata) -> Identity:
    """The memory user id for this call under the agent's identity key."""
    return offer(caller, metadata).under(key)


def offered_identities(caller: Caller | None, metadata: JobMetadata) -> dict[str, str]:
    """Each key that names a usable user id -> that id (`offer(...).user_ids()`)."""
    return offer(caller, metadata).user_ids()


def _found(key: str, caller: Caller | None, metadata: JobMetadata) -> Identity:
    if key == PHONE_NUMBER_KEY and metadata.outbound and metadata.identities.get(key):
        return _from_metadata(key, metadata)  # the request that dials named the callee's
    if key == PHONE_NUMBER_KEY:
        return _phone_number(caller, metadata)
    if caller is not None and (value := caller.identities.get(key)):
        return Identity(user_id=value, source="attribute")  # per caller: before the dispatch's
    return _from_metadata(key, metadata)


def _absent(caller: Caller | None, metadata: JobMetadata) -> NoIdentity:
    """The reason for a key nobody offered."""
    if metadata.problem is not None:
        return NoIdentity.METADATA_INVALID
    if caller is not None and caller.is_sip and not caller.outbound:
        return NoIdentity.ATTRIBUTE_MISSING  # the trunk's mapping or the rule brought none
    return NoIdentity.IDENTITY_MISSING


def _checked(found: Identity) -> Identity:
    if found.user_id is None:
        return found
    try:
        requests.user_id(found.user_id)
    except InvalidRequest:
        return Identity(user_id=None, reason=NoIdentity.IDENTITY_INVALID)
    return found


def _phone_number(caller: Caller | None, metadata: JobMetadata) -> Identity:
    if caller is not None and caller.phone_number is not None:
        return Identity(user_id=caller.phone_number, source="sip")
    dialing = caller is None or (caller.is_sip and caller.outbound)
    dialed = usable_number(metadata.dialed_number)
    if dialing and dialed is not None:
        return Identity(user_id=dialed, source="dialed")
    if caller is not None and not caller.is_sip:
        # a browser test room: only the explicit test identity the API validated and stored
        return _from_metadata(PHONE_NUMBER_KEY, metadata)
    if caller is not None and caller.withheld:
        return Identity(user_id=None, reason=NoIdentity.CALLER_WITHHELD)
    if metadata.problem is not None:
        return Identity(user_id=None, reason=NoIdentity.METADATA_INVALID)
    return Identity(user_id=None, reason=NoIdentity.IDENTITY_MISSING)


def _from_metadata(key: str, metadata: JobMetadata) -> Identity:
    if metadata.problem is not None:
        return Identity(user_id=None, reason=NoIdentity.METADATA_INVALID)
    value = metadata.identities.get(key)
    if not value:  # values are opaque: whitespace-only is a value, as the API accepted it
        return Identity(user_id=None, reason=NoIdentity.IDENTITY_MISSING)
    return Identity(user_id=value, source="metadata")
