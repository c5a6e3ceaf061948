"""What counts as a usable phone identity, judged from the value's user part."""

from __future__ import annotations

import pytest
from livekit import rtc

from sip.caller import SIP_KIND, ParticipantFacts, judged_part, read_caller, usable_number

USABLE = [
    "+34600111222",
    "+34 600 111 222",
    " +34\u00a0600\u2011111 ",  # kept byte-for-byte, spaces and Unicode included
    "600",  # three digits: the shortest number
    "sip:+15550199@trunk.example.com",
    "sips:+15550199@trunk.example.com;transport=tls",
    "tel:+1-555-0199;ext=2",
    '"Ana" <sip:+15550199@pbx.example>',
    "+15550199@pbx.example",
    "+١٢٣٤٥",  # Arabic-Indic digits are decimal digits
]

NOT_A_NUMBER = [
    None,
    "",
    "   ",
    "+",
    "0",
    "00",
    "+1 ",
    "**",
    "#1",
    "anonymous",
    " UNAVAILABLE ",
    "Private Number",
    "no-caller-id",
    "Restricted 123",  # a marker with digits is still a marker
    "sip:anonymous@anonymous.invalid",
    "SIP:Anonymous@anonymous.invalid;tag=9",
    "anonymous@192.0.2.1",
    '"Anonymous" <sip:anonymous@anonymous.invalid>',
    "<sip:restricted@pbx.example>",
    "tel:withheld",
    "sip:0@pbx.example",  # the host holds digits, the user part does not
    "sip:@192.0.2.44",
]


@pytest.mark.parametrize("value", USABLE)
def test_usable_values_are_kept_byte_for_byte(value: str) -> None:
    assert usable_number(value) == value


@pytest.mark.parametrize("value", NOT_A_NUMBER)
def test_withheld_or_too_short_values_are_no_number(value: str | None) -> None:
    assert usable_number(value) is None


@pytest.mark.parametrize(
    ("value", "judged"),
    [
        ("sip:anonymous@anonymous.invalid", "anonymous"),
        ('"Ana" <sip:+1555@pbx;user=phone>', "+1555"),
        ("tel:+1555;ext=2", "+1555"),
        ("TEL:+1555", "+1555"),
        ("+1555@pbx", "+1555"),
        (" +34 600 ", "+34 600"),
        ("sip+34", "sip+34"),  # not a scheme without the colon
    ],
)
def test_judged_part(value: str, judged: str) -> None:
    assert judged_part(value) == judged


def test_withheld_uri_on_a_sip_participant_means_no_number() -> None:
    facts = ParticipantFacts(
        identity="sip_anon",
        kind=SIP_KIND,
        attributes={"sip.phoneNumber": "sip:anonymous@anonymous.invalid", "sip.ruleID": "r"},
    )
    caller = read_caller(facts)
    assert caller.is_sip and caller.phone_number is None and caller.withheld


def test_the_sip_kind_is_livekits() -> None:
    """`SIP_KIND` is written as a number (`sip.caller` loads without livekit): it is livekit's."""
    assert int(rtc.ParticipantKind.PARTICIPANT_KIND_SIP) == SIP_KIND
