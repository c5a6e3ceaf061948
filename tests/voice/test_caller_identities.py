"""Identities beside the phone number on every call path, as tables of plain values: what a SIP
participant's attributes name (`sip.identity_attributes`), and which identity a call resolves
when attributes, dispatch metadata and the dialed number all offer one."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from lifecycle.identity import (
    Identity,
    IdentitySource,
    NoIdentity,
    offered_identities,
    resolve_identity,
)
from sip.caller import SIP_KIND, Caller, ParticipantFacts, read_caller
from sip.identity_attributes import caller_identities, identity_attribute
from sip.job_metadata import JobMetadata, MetadataProblem, OutboundPlan

NUMBER = "+34600111222"
CRM_ID = "CRM-4711"
CUSTOMER = identity_attribute("customerId")
INBOUND = {"sip.ruleID": "SDR_1", "sip.trunkPhoneNumber": "+15550100", "sip.phoneNumber": NUMBER}

ATTRIBUTE_CASES: list[tuple[str, Mapping[str, str], dict[str, str]]] = [
    ("none", INBOUND, {}),
    ("the trunk's mapped header", {**INBOUND, CUSTOMER: CRM_ID}, {"customerId": CRM_ID}),
    (
        "a dotted key is one literal key",
        {"callmemory.identity.contact.email": "a@b.c"},
        {"contact.email": "a@b.c"},
    ),
    ("values byte-for-byte", {CUSTOMER: " Zoë\t4711 "}, {"customerId": " Zoë\t4711 "}),
    ("an empty value is no identity", {CUSTOMER: ""}, {}),
    ("the prefix alone names no key", {"callmemory.identity.": "x"}, {}),
    ("phoneNumber stays telephony's", {"callmemory.identity.phoneNumber": "+1999"}, {}),
    ("include_headers' sip.h.* is not read", {"sip.h.x-customer-id": CRM_ID}, {}),
    ("a bare key is not read", {"customerId": CRM_ID}, {}),
    ("the prefix is case-sensitive", {"CallMemory.Identity.customerId": CRM_ID}, {}),
]


@pytest.mark.parametrize(
    ("attributes", "identities"),
    [pytest.param(a, i, id=name) for name, a, i in ATTRIBUTE_CASES],
)
def test_caller_identities(attributes: Mapping[str, str], identities: dict[str, str]) -> None:
    assert caller_identities(attributes) == identities


def test_only_a_sip_participant_brings_attribute_identities() -> None:
    attributes = {**INBOUND, CUSTOMER: CRM_ID}
    sip = read_caller(ParticipantFacts("sip_caller", SIP_KIND, attributes))
    browser = read_caller(ParticipantFacts("user-1", 0, attributes))
    assert dict(sip.identities) == {"customerId": CRM_ID}
    assert browser == Caller(is_sip=False)


def found(user_id: str, source: IdentitySource) -> Identity:
    return Identity(user_id=user_id, source=source)


def missing(reason: NoIdentity) -> Identity:
    return Identity(user_id=None, reason=reason)


CALLER = Caller(is_sip=True, phone_number=NUMBER, identities={"customerId": CRM_ID})
BARE_CALLER = Caller(is_sip=True, phone_number=NUMBER)
CALLEE = Caller(is_sip=True, phone_number=NUMBER, outbound=True)
DIAL = OutboundPlan(NUMBER, "ST_1")
NONE = JobMetadata()

RESOLVE_CASES: list[tuple[str, str, Caller | None, JobMetadata, Identity]] = [
    ("inbound: the attribute", "customerId", CALLER, NONE, found(CRM_ID, "attribute")),
    (
        "inbound: the attribute before the dispatch rule's metadata",
        "customerId",
        CALLER,
        JobMetadata(identities={"customerId": "rule-wide"}),
        found(CRM_ID, "attribute"),
    ),
    (
        "inbound: the dispatch rule's metadata without an attribute",
        "customerId",
        BARE_CALLER,
        JobMetadata(identities={"customerId": "rule-wide"}),
        found("rule-wide", "metadata"),
    ),
    (
        "inbound: no attribute, no metadata",
        "customerId",
        BARE_CALLER,
        NONE,
        missing(NoIdentity.ATTRIBUTE_MISSING),
    ),
    (
        "inbound: another key's attribute",
        "email",
        CALLER,
        NONE,
        missing(NoIdentity.ATTRIBUTE_MISSING),
    ),
    (
        "inbound: malformed metadata, no attribute",
        "customerId",
        BARE_CALLER,
        JobMetadata(problem=MetadataProblem.NOT_JSON),
        missing(NoIdentity.METADATA_INVALID),
    ),
    (
        "inbound: an attribute too long for a user id",
        "customerId",
        Caller(is_sip=True, identities={"customerId": "x" * 501}),
        NONE,
        missing(NoIdentity.IDENTITY_INVALID),
    ),
    ("inbound: the number stays the caller's", "phoneNumber", CALLER, NONE, found(NUMBER, "sip")),
    (
        "inbound: a dispatch rule's phoneNumber never stands in",
        "phoneNumber",
        BARE_CALLER,
        JobMetadata(identities={"phoneNumber": "+1999"}),
        found(NUMBER, "sip"),
    ),
    (
        "outbound: the request's customerId",
        "customerId",
        CALLEE,
        JobMetadata(identities={"customerId": CRM_ID}, dialed_number=NUMBER, outbound=DIAL),
        found(CRM_ID, "metadata"),
    ),
    (
        "outbound: no customerId named",
        "customerId",
        CALLEE,
        JobMetadata(dialed_number=NUMBER, outbound=DIAL),
        missing(NoIdentity.IDENTITY_MISSING),
    ),
    (
        "outbound: the dialed number is the phoneNumber",
        "phoneNumber",
        CALLEE,
        JobMetadata(dialed_number=NUMBER, outbound=DIAL),
        found(NUMBER, "sip"),
    ),
    (
        "outbound: unless the request named one",
        "phoneNumber",
        CALLEE,
        JobMetadata(identities={"phoneNumber": "34600111222"}, dialed_number=NUMBER, outbound=DIAL),
        found("34600111222", "metadata"),
    ),
    (
        "outbound, still ringing: the request's phoneNumber",
        "phoneNumber",
        None,
        JobMetadata(identities={"phoneNumber": "34600111222"}, dialed_number=NUMBER, outbound=DIAL),
        found("34600111222", "metadata"),
    ),
]


@pytest.mark.parametrize(
    ("key", "caller", "metadata", "identity"),
    [pytest.param(k, c, m, i, id=name) for name, k, c, m, i in RESOLVE_CASES],
)
def test_resolve_identity(
    key: str, caller: Caller | None, metadata: JobMetadata, identity: Identity
) -> None:
    assert resolve_identity(key, caller, metadata) == identity


def test_the_opening_statement_is_offered_the_attribute_identities() -> None:
    metadata = JobMetadata(identities={"email": "a@b.c"})
    offered = offered_identities(CALLER, metadata)
    assert offered == {"phoneNumber": NUMBER, "customerId": CRM_ID, "email": "a@b.c"}
