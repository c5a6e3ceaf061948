"""Who is on the line and which memory user the call belongs to, as tables of plain values."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from lifecycle.identity import Identity, IdentitySource, NoIdentity, resolve_identity
from sip.caller import SIP_KIND, Caller, ParticipantFacts, read_caller
from sip.job_metadata import JobMetadata, MetadataProblem, parse_job_metadata

STANDARD_KIND = 0
AGENT_KIND = 4
NUMBER = "+34 600 111 222"
TRUNK = "+1 555 0100"
INBOUND = {"sip.ruleID": "SDR_1", "sip.trunkPhoneNumber": TRUNK}
WITHHELD = Caller(is_sip=True)


def sip(attributes: Mapping[str, str], identity: str = "sip_+15550199") -> ParticipantFacts:
    return ParticipantFacts(identity=identity, kind=SIP_KIND, attributes=attributes)


def browser(attributes: Mapping[str, str], identity: str = "user-42") -> ParticipantFacts:
    return ParticipantFacts(identity=identity, kind=STANDARD_KIND, attributes=attributes)


CALLER_CASES: list[tuple[str, ParticipantFacts, Caller]] = [
    (
        "inbound SIP caller",
        sip({**INBOUND, "sip.phoneNumber": NUMBER}),
        Caller(is_sip=True, phone_number=NUMBER),
    ),
    (
        "outbound SIP callee (no dispatch rule)",
        sip({"sip.phoneNumber": NUMBER, "sip.trunkPhoneNumber": TRUNK}),
        Caller(is_sip=True, phone_number=NUMBER, outbound=True),
    ),
    ("trunk number but no phoneNumber", sip(INBOUND), Caller(is_sip=True)),
    ("empty phoneNumber", sip({**INBOUND, "sip.phoneNumber": ""}), Caller(is_sip=True)),
    ("blank phoneNumber", sip({**INBOUND, "sip.phoneNumber": "  "}), Caller(is_sip=True)),
    *[
        (f"withheld marker {marker!r}", sip({**INBOUND, "sip.phoneNumber": marker}), WITHHELD)
        for marker in ("anonymous", "Restricted", " UNAVAILABLE ", "unknown", "Private", "withheld")
    ],
    (
        "Unicode and whitespace kept byte-for-byte",
        sip({**INBOUND, "sip.phoneNumber": " +34\u00a0600\u2011111 "}),
        Caller(is_sip=True, phone_number=" +34\u00a0600\u2011111 "),
    ),
    (
        "participant identity never stands in",
        sip(INBOUND, identity=NUMBER),
        Caller(is_sip=True),
    ),
    (
        "browser participant setting sip.phoneNumber on itself",
        browser({"sip.phoneNumber": NUMBER, "phoneNumber": NUMBER}),
        Caller(is_sip=False),
    ),
    (
        "agent participant",
        ParticipantFacts(identity="agent", kind=AGENT_KIND, attributes={"sip.phoneNumber": NUMBER}),
        Caller(is_sip=False),
    ),
]


@pytest.mark.parametrize(
    ("facts", "caller"), [pytest.param(f, c, id=name) for name, f, c in CALLER_CASES]
)
def test_read_caller(facts: ParticipantFacts, caller: Caller) -> None:
    """Only a SIP participant's own sip.phoneNumber, unchanged, gives a number."""
    assert read_caller(facts) == caller


def test_withheld_is_a_sip_caller_without_number() -> None:
    """A telephone caller with no number is withheld; a browser participant is not."""
    assert Caller(is_sip=True).withheld
    assert not Caller(is_sip=True, phone_number=NUMBER).withheld
    assert not Caller(is_sip=False).withheld


def found(user_id: str, source: IdentitySource) -> Identity:
    return Identity(user_id=user_id, source=source)


def missing(reason: NoIdentity) -> Identity:
    return Identity(user_id=None, reason=reason)


INBOUND_CALLER = Caller(is_sip=True, phone_number=NUMBER)
OUTBOUND_HIDDEN = Caller(is_sip=True, outbound=True)
BROWSER = Caller(is_sip=False)
NONE = JobMetadata()

RESOLVE_CASES: list[tuple[str, str | None, Caller | None, JobMetadata, Identity]] = [
    ("no binding", None, INBOUND_CALLER, NONE, missing(NoIdentity.NO_BINDING)),
    ("inbound SIP", "phoneNumber", INBOUND_CALLER, NONE, found(NUMBER, "sip")),
    (
        "outbound: callee's number",
        "phoneNumber",
        Caller(is_sip=True, phone_number=NUMBER, outbound=True),
        NONE,
        found(NUMBER, "sip"),
    ),
    (
        "outbound, number hidden: the number we dialed",
        "phoneNumber",
        OUTBOUND_HIDDEN,
        JobMetadata(dialed_number=NUMBER),
        found(NUMBER, "dialed"),
    ),
    (
        "dialing, callee not joined yet",
        "phoneNumber",
        None,
        JobMetadata(dialed_number=NUMBER),
        found(NUMBER, "dialed"),
    ),
    ("withheld inbound caller", "phoneNumber", WITHHELD, NONE, missing(NoIdentity.CALLER_WITHHELD)),
    (
        "withheld inbound caller, dialed number ignored",
        "phoneNumber",
        WITHHELD,
        JobMetadata(dialed_number=NUMBER),
        missing(NoIdentity.CALLER_WITHHELD),
    ),
    (
        "phone-shaped customerId never stands in for phoneNumber",
        "phoneNumber",
        BROWSER,
        JobMetadata(identities={"customerId": NUMBER}),
        missing(NoIdentity.IDENTITY_MISSING),
    ),
    (
        "browser test room: the explicit phoneNumber test identity",
        "phoneNumber",
        BROWSER,
        JobMetadata(identities={"customerId": "crm-1", "phoneNumber": NUMBER}),
        found(NUMBER, "metadata"),
    ),
    (
        "SIP caller: a phoneNumber in metadata never replaces sip.phoneNumber",
        "phoneNumber",
        INBOUND_CALLER,
        JobMetadata(identities={"phoneNumber": "+1 555"}),
        found(NUMBER, "sip"),
    ),
    (
        "withheld SIP caller: a phoneNumber in metadata is not used",
        "phoneNumber",
        WITHHELD,
        JobMetadata(identities={"phoneNumber": NUMBER}),
        missing(NoIdentity.CALLER_WITHHELD),
    ),
    (
        "whitespace-only identity is an opaque value",
        "email",
        BROWSER,
        JobMetadata(identities={"email": "  "}),
        found("  ", "metadata"),
    ),
    (
        "browser call cannot borrow a dialed number",
        "phoneNumber",
        BROWSER,
        JobMetadata(dialed_number=NUMBER),
        missing(NoIdentity.IDENTITY_MISSING),
    ),
    (
        "email from dispatch metadata",
        "email",
        BROWSER,
        JobMetadata(identities={"email": "ada@example.com"}),
        found("ada@example.com", "metadata"),
    ),
    (
        "email on a phone call still needs the integration (or the trunk's attribute)",
        "email",
        INBOUND_CALLER,
        NONE,
        missing(NoIdentity.ATTRIBUTE_MISSING),
    ),
    (
        "literal dotted field name",
        "contact.email",
        BROWSER,
        JobMetadata(identities={"contact.email": "a@b.c", "contact": "x"}),
        found("a@b.c", "metadata"),
    ),
    (
        "dotted key is not a path",
        "contact.email",
        BROWSER,
        JobMetadata(identities={"contact": "a@b.c"}),
        missing(NoIdentity.IDENTITY_MISSING),
    ),
    (
        "customerId kept byte-for-byte",
        "customerId",
        BROWSER,
        JobMetadata(identities={"customerId": " Åsa\u00a0#7 "}),
        found(" Åsa\u00a0#7 ", "metadata"),
    ),
    (
        "empty identity is missing",
        "customerId",
        BROWSER,
        JobMetadata(identities={"customerId": ""}),
        missing(NoIdentity.IDENTITY_MISSING),
    ),
    (
        "malformed metadata",
        "email",
        BROWSER,
        JobMetadata(problem=MetadataProblem.NOT_JSON),
        missing(NoIdentity.METADATA_INVALID),
    ),
    (
        "identity too long for memory",
        "customerId",
        BROWSER,
        JobMetadata(identities={"customerId": "x" * 501}),
        missing(NoIdentity.IDENTITY_INVALID),
    ),
]


@pytest.mark.parametrize(
    ("key", "caller", "metadata", "identity"),
    [pytest.param(k, c, m, i, id=name) for name, k, c, m, i in RESOLVE_CASES],
)
def test_resolve_identity(
    key: str | None, caller: Caller | None, metadata: JobMetadata, identity: Identity
) -> None:
    """The identity key picks exactly one trusted source, or names why there is none."""
    assert resolve_identity(key, caller, metadata) == identity


PARSE_CASES: list[tuple[str, str | None, JobMetadata]] = [
    ("absent", None, JobMetadata()),
    ("empty", "", JobMetadata()),
    (
        "identities and dialed number",
        '{"identities": {"email": "a@b.c", "contact.email": " x "}, "dialed_number": "+1 5"}',
        JobMetadata(identities={"email": "a@b.c", "contact.email": " x "}, dialed_number="+1 5"),
    ),
    ("other fields ignored", '{"agent": "support"}', JobMetadata()),
    ("not JSON", "{nope", JobMetadata(problem=MetadataProblem.NOT_JSON)),
    ("not an object", '["a"]', JobMetadata(problem=MetadataProblem.NOT_OBJECT)),
    ("absurdly nested", "[" * 100_000, JobMetadata(problem=MetadataProblem.NOT_JSON)),
    (
        "identities not an object",
        '{"identities": ["a"]}',
        JobMetadata(problem=MetadataProblem.IDENTITIES_NOT_OBJECT),
    ),
    (
        "identity not a string",
        '{"identities": {"customerId": 12345}}',
        JobMetadata(problem=MetadataProblem.IDENTITY_NOT_STRING),
    ),
    (
        "dialed number not a string",
        '{"dialed_number": 34600111222}',
        JobMetadata(problem=MetadataProblem.DIALED_NUMBER_NOT_STRING),
    ),
]


@pytest.mark.parametrize(
    ("raw", "metadata"), [pytest.param(r, m, id=name) for name, r, m in PARSE_CASES]
)
def test_parse_job_metadata(raw: str | None, metadata: JobMetadata) -> None:
    """Job metadata parses into identities and a dialed number, or names its problem."""
    assert parse_job_metadata(raw) == metadata
