"""The identities map rules, each at its boundary and one past it, and the metadata shape."""

from __future__ import annotations

import json

import pytest

from chat.identities import (
    MAX_ENTRIES,
    MAX_NAME_CHARS,
    MAX_VALUE_CHARS,
    IdentitiesRule,
    InvalidIdentities,
    check_identities,
    merge_customer_id,
)
from sip.job_metadata import browser_metadata, outbound_metadata, outbound_plan, parse_job_metadata

R = IdentitiesRule

ACCEPTED: list[tuple[str, object]] = [
    ("absent", None),
    ("empty object", {}),
    ("32 entries", {f"k{i}": "v" for i in range(MAX_ENTRIES)}),
    ("1-character name", {"e": "v"}),
    ("100-character name", {"n" * MAX_NAME_CHARS: "v"}),
    ("1-character value", {"email": "a"}),
    ("500-character value", {"email": "x" * MAX_VALUE_CHARS}),
    ("dotted name is literal", {"contact.email": "ada@example.com"}),
    ("path-like name", {"a/../b": "v", "$.x[0]": "v"}),
    ("case-distinct names", {"Email": "A", "email": "a"}),
    ("whitespace kept", {"customerId": "  42\t\n"}),
    ("whitespace-only value", {"customerId": " "}),
    ("non-ASCII kept", {"név": "Zoë 🎧", "contact.email": "josé@ejemplo.es"}),
    ("500 astral characters", {"emoji": "🎧" * MAX_VALUE_CHARS}),
]

REJECTED: list[tuple[str, object, IdentitiesRule]] = [
    ("a list", [["email", "a"]], R.NOT_OBJECT),
    ("a string", "email=a", R.NOT_OBJECT),
    ("33 entries", {f"k{i}": "v" for i in range(MAX_ENTRIES + 1)}, R.TOO_MANY),
    ("empty name", {"": "v"}, R.NAME_EMPTY),
    ("101-character name", {"n" * (MAX_NAME_CHARS + 1): "v"}, R.NAME_TOO_LONG),
    ("NUL in name", {"e\x00": "v"}, R.NAME_BAD_CHARACTER),
    ("empty value", {"email": ""}, R.VALUE_EMPTY),
    ("501-character value", {"email": "x" * (MAX_VALUE_CHARS + 1)}, R.VALUE_TOO_LONG),
    ("number value", {"customerId": 42}, R.VALUE_NOT_STRING),
    ("boolean value", {"vip": True}, R.VALUE_NOT_STRING),
    ("null value", {"email": None}, R.VALUE_NOT_STRING),
    ("object value", {"contact": {"email": "a"}}, R.VALUE_NOT_STRING),
    ("list value", {"email": ["a"]}, R.VALUE_NOT_STRING),
    ("NUL in value", {"email": "a\x00b"}, R.VALUE_BAD_CHARACTER),
    ("lone surrogate in value", {"email": "a\ud800"}, R.VALUE_BAD_CHARACTER),
]


class TestCheckIdentities:
    @pytest.mark.parametrize(("case", "raw"), ACCEPTED, ids=[c for c, _ in ACCEPTED])
    def test_accepted_maps_come_back_unchanged(self, case: str, raw: object) -> None:
        """A valid map is returned equal to the input, with every name and value untouched."""
        assert check_identities(raw) == (raw or {})

    @pytest.mark.parametrize(("case", "raw", "rule"), REJECTED, ids=[c for c, _, _ in REJECTED])
    def test_each_rule_is_named(self, case: str, raw: object, rule: IdentitiesRule) -> None:
        """A map that breaks a rule fails with that rule, named in the message."""
        with pytest.raises(InvalidIdentities) as caught:
            check_identities(raw)
        assert caught.value.rule is rule
        assert rule.value in caught.value.message
        assert caught.value.code == "invalid_identities"

    def test_message_never_quotes_names_or_values(self) -> None:
        """A rejected value or name stays out of the error message."""
        with pytest.raises(InvalidIdentities) as caught:
            check_identities({"secret-name": "x" * 501})
        assert "secret-name" not in caught.value.message
        assert "xxx" not in caught.value.message


class TestCustomerId:
    @pytest.mark.parametrize(
        ("identities", "scalar", "expected"),
        [
            ({}, None, {}),
            ({}, "c-1", {"customerId": "c-1"}),
            ({"customerId": "c-1"}, "c-1", {"customerId": "c-1"}),
            ({"email": "a"}, " c 1 ", {"email": "a", "customerId": " c 1 "}),
        ],
    )
    def test_scalar_joins_the_map(
        self, identities: dict[str, str], scalar: str | None, expected: dict[str, str]
    ) -> None:
        """A scalar customerId is the map's customerId, byte for byte."""
        assert merge_customer_id(identities, scalar) == expected

    @pytest.mark.parametrize(
        ("identities", "scalar", "rule"),
        [
            ({"customerId": "c-1"}, "c-2", R.CUSTOMER_ID_CONFLICT),
            ({"customerId": "c-1"}, "c-1 ", R.CUSTOMER_ID_CONFLICT),
            ({"customerId": "c-1"}, "C-1", R.CUSTOMER_ID_CONFLICT),
            ({}, 42, R.VALUE_NOT_STRING),
            ({}, "", R.VALUE_EMPTY),
            ({f"k{i}": "v" for i in range(MAX_ENTRIES)}, "c-1", R.TOO_MANY),
        ],
    )
    def test_conflicts_and_bad_scalars_fail(
        self, identities: dict[str, str], scalar: object, rule: IdentitiesRule
    ) -> None:
        """A scalar that differs from the map copy in any way, or is not a value, is a 400."""
        with pytest.raises(InvalidIdentities) as caught:
            merge_customer_id(identities, scalar)
        assert caught.value.rule is rule


class TestMetadata:
    @pytest.mark.parametrize("raw", [raw for _, raw in ACCEPTED if raw])
    def test_worker_reads_back_exactly_what_was_checked(self, raw: dict[str, str]) -> None:
        """The worker's parser recovers the identities byte for byte from browser metadata."""
        metadata = parse_job_metadata(browser_metadata(check_identities(raw)))
        assert metadata.problem is None
        assert dict(metadata.identities) == raw
        assert metadata.dialed_number is None
        for name, value in raw.items():
            assert metadata.identities[name].encode("utf-8") == value.encode("utf-8")

    def test_browser_metadata_has_no_dial_plan(self) -> None:
        """A browser room's metadata never asks the job to dial."""
        assert outbound_plan(browser_metadata({"email": "a"})) is None
        assert json.loads(browser_metadata({})) == {"identities": {}}

    def test_outbound_metadata_names_number_and_trunk(self) -> None:
        """Outbound metadata gives the worker the dialed number and the job its dial plan."""
        raw = outbound_metadata("+34600000000", "ST_abc")
        parsed = parse_job_metadata(raw)
        assert parsed.problem is None
        assert parsed.dialed_number == "+34600000000"
        assert parsed.identities == {}
        plan = outbound_plan(raw)
        assert plan is not None
        assert (plan.number, plan.trunk_id) == ("+34600000000", "ST_abc")

    @pytest.mark.parametrize(
        "raw",
        [None, "", "not json", "[]", '{"outbound": "ST_x"}', '{"outbound": {"trunk_id": "ST"}}'],
    )
    def test_no_plan_without_number_and_trunk(self, raw: str | None) -> None:
        """Metadata without both a number and a trunk is not an outbound call."""
        assert outbound_plan(raw) is None
