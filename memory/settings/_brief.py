"""An agent's extraction brief: what is worth remembering and what must never be stored.

Two short lists in the business's own words (`remember`, `forget`), declared in code or saved
through the settings API like `instructions`. They reach the extraction request as trusted
policy (`memory.extraction` compiles them).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from memory.contract import FORBIDDEN_RULE, InvalidRequest, forbidden_character

MAX_BRIEF_ITEMS: Final = 20
MAX_BRIEF_ITEM_CHARS: Final = 200
BRIEF_FIELDS: Final = ("remember", "forget")


@dataclass(frozen=True, slots=True)
class Brief:
    """What to keep and what never to store; empty lists mean "no brief"."""

    remember: tuple[str, ...] = ()
    forget: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.remember or self.forget)


NO_BRIEF: Final = Brief()


def _fail(field: str, rule: str) -> InvalidRequest:
    return InvalidRequest(f"{field}: {rule}", field=field)


def _item_problem(item: object) -> str | None:
    if not isinstance(item, str):
        return "must be a string"
    if not item.strip():
        return "must not be blank"
    if len(item) > MAX_BRIEF_ITEM_CHARS:
        return f"must have at most {MAX_BRIEF_ITEM_CHARS} characters"
    if forbidden_character(item):
        return FORBIDDEN_RULE
    return None


def brief_items(value: object, field: str) -> tuple[str, ...]:
    """A list of 0..20 distinct non-blank strings of at most 200 characters, kept as given."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise _fail(field, "must be a list of strings")
    if len(value) > MAX_BRIEF_ITEMS:
        raise _fail(field, f"must have at most {MAX_BRIEF_ITEMS} items")
    for index, item in enumerate(value):
        if (problem := _item_problem(item)) is not None:
            raise _fail(f"{field}[{index}]", problem)
    items = tuple(str(item) for item in value)
    if len(set(items)) != len(items):
        raise _fail(field, "must not repeat an item")
    return items


def parse_brief(value: object) -> Brief | None:
    """`None`, a `Brief`, or a mapping with optional `remember` / `forget` lists."""
    if value is None or isinstance(value, Brief):
        return value
    if not isinstance(value, Mapping):
        raise _fail("brief", "must be an object with remember and forget lists")
    unknown = set(value) - set(BRIEF_FIELDS)
    if unknown:
        raise _fail("brief", "only remember and forget are allowed")
    return Brief(
        remember=brief_items(value.get("remember", []), "brief.remember"),
        forget=brief_items(value.get("forget", []), "brief.forget"),
    )
