"""The identities map's rules: who a browser call, a chat turn or a LiveKit text session is about.

An integration names the person with an `identities` map: a browser call's `identities`, the
chat wire's `x-stackbone-identities` header, a LiveKit text participant's attributes. The same
rules check all three, so every broken rule is named (a 400 on the HTTP wires, a reason code in
a text session). Names are literal field names (`contact.email` is one field, never a path) and
values are opaque: both are kept byte-for-byte, whitespace and Unicode included. A browser
call's checked map travels to the worker only inside the dispatch metadata
(`sip.job_metadata`), which the server writes and no participant can change.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import ClassVar, Final

from memory.contract import FORBIDDEN_RULE, CodedError, forbidden_character

MAX_ENTRIES: Final = 32
MAX_NAME_CHARS: Final = 100
MAX_VALUE_CHARS: Final = 500
CUSTOMER_ID: Final = "customerId"
ESCAPED_CHARACTER_BYTES: Final = 12
"""The most one character takes in an ASCII JSON string: one beyond the BMP, as two `\\u`
escapes (`\\ud83d\\ude00`)."""


def _encoded(chars: int) -> int:
    return 2 + chars * ESCAPED_CHARACTER_BYTES  # the quotes and every character escaped


MAX_HEADER_BYTES: Final = (
    len("{}")
    + MAX_ENTRIES * (_encoded(MAX_NAME_CHARS) + len(": ") + _encoded(MAX_VALUE_CHARS))
    + len(", ") * (MAX_ENTRIES - 1)
)
"""The largest valid identities header: 32 names of 100 and values of 500 characters, each
character escaped, with JSON's usual `": "` and `", "` separators (`json.dumps`)."""
# Postgres text cannot hold NUL, and a lone surrogate (legal in a JSON escape) has no UTF-8 form
_NO_BAD_CHARACTERS = FORBIDDEN_RULE


class IdentitiesRule(StrEnum):
    """The rule an identities map broke; each one is its own 400."""

    NOT_OBJECT = "identities_not_object"
    TOO_MANY = "identities_too_many"
    NAME_EMPTY = "identity_name_empty"
    NAME_TOO_LONG = "identity_name_too_long"
    NAME_BAD_CHARACTER = "identity_name_bad_character"
    VALUE_NOT_STRING = "identity_value_not_string"
    VALUE_EMPTY = "identity_value_empty"
    VALUE_TOO_LONG = "identity_value_too_long"
    VALUE_BAD_CHARACTER = "identity_value_bad_character"
    CUSTOMER_ID_CONFLICT = "customer_id_conflict"


_MESSAGES: Mapping[IdentitiesRule, str] = {
    IdentitiesRule.NOT_OBJECT: "must be an object of name -> string value",
    IdentitiesRule.TOO_MANY: f"must have at most {MAX_ENTRIES} entries",
    IdentitiesRule.NAME_EMPTY: "names must have at least 1 character",
    IdentitiesRule.NAME_TOO_LONG: f"names must have at most {MAX_NAME_CHARS} characters",
    IdentitiesRule.NAME_BAD_CHARACTER: f"names {_NO_BAD_CHARACTERS}",
    IdentitiesRule.VALUE_NOT_STRING: "values must be strings",
    IdentitiesRule.VALUE_EMPTY: "values must have at least 1 character",
    IdentitiesRule.VALUE_TOO_LONG: f"values must have at most {MAX_VALUE_CHARS} characters",
    IdentitiesRule.VALUE_BAD_CHARACTER: f"values {_NO_BAD_CHARACTERS}",
    IdentitiesRule.CUSTOMER_ID_CONFLICT: "customerId differs from identities.customerId",
}


class InvalidIdentities(CodedError, ValueError):
    """An identities map (or the scalar customerId beside it) broke a rule (400)."""

    code: ClassVar[str] = "invalid_identities"

    def __init__(self, rule: IdentitiesRule, field: str) -> None:
        self.rule = rule
        super().__init__(f"{field}: {_MESSAGES[rule]} ({rule.value})", field=field)


def _check_name(name: str) -> None:
    # the field is named by position, never by the name itself: names can be user content
    if not name:
        raise InvalidIdentities(IdentitiesRule.NAME_EMPTY, "identities")
    if len(name) > MAX_NAME_CHARS:
        raise InvalidIdentities(IdentitiesRule.NAME_TOO_LONG, "identities")
    if _bad_characters(name):
        raise InvalidIdentities(IdentitiesRule.NAME_BAD_CHARACTER, "identities")


def _bad_characters(text: str) -> bool:
    return forbidden_character(text)


def check_value(value: object, field: str) -> str:
    """An identity value: a non-empty string of at most 500 characters, returned unchanged."""
    if not isinstance(value, str):
        raise InvalidIdentities(IdentitiesRule.VALUE_NOT_STRING, field)
    if not value:
        raise InvalidIdentities(IdentitiesRule.VALUE_EMPTY, field)
    if len(value) > MAX_VALUE_CHARS:
        raise InvalidIdentities(IdentitiesRule.VALUE_TOO_LONG, field)
    if _bad_characters(value):
        raise InvalidIdentities(IdentitiesRule.VALUE_BAD_CHARACTER, field)
    return value


def check_identities(raw: object) -> dict[str, str]:
    """The map unchanged, or `InvalidIdentities` naming the first rule it breaks."""
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise InvalidIdentities(IdentitiesRule.NOT_OBJECT, "identities")
    if len(raw) > MAX_ENTRIES:
        raise InvalidIdentities(IdentitiesRule.TOO_MANY, "identities")
    checked: dict[str, str] = {}
    for name, value in raw.items():
        if not isinstance(name, str):  # JSON keys are strings; a Python caller may differ
            raise InvalidIdentities(IdentitiesRule.NOT_OBJECT, "identities")
        _check_name(name)
        checked[name] = check_value(value, "identities")
    return checked


def merge_customer_id(identities: Mapping[str, str], customer_id: object) -> dict[str, str]:
    """Fold a scalar `customerId` into the map; a different map copy is a conflict."""
    merged = dict(identities)
    if customer_id is None:
        return merged
    scalar = check_value(customer_id, CUSTOMER_ID)
    present = merged.get(CUSTOMER_ID)
    if present is not None and present != scalar:
        raise InvalidIdentities(IdentitiesRule.CUSTOMER_ID_CONFLICT, CUSTOMER_ID)
    merged[CUSTOMER_ID] = scalar
    if len(merged) > MAX_ENTRIES:
        raise InvalidIdentities(IdentitiesRule.TOO_MANY, "identities")
    return merged
