"""Keyset pages of the operator listings (sessions, decisions): the cursor and the page rule.

A listing is ordered newest first by a timestamp, then by id (ascending) among rows of the same
instant. A page is read with one row more than asked: when that row exists, the cursor of the
page's last row names where the next page starts (`after`: strictly past that row in the
listing's order). The cursor is opaque to clients: base64url text of the row's instant (in
microseconds since the Unix epoch, exactly as Postgres keeps it) and its id. A row added or
deleted between pages never shifts the next one (no offsets). Pure: no I/O.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final, TypeVar

from memory.contract import InvalidRequest, limits

MAX_CURSOR_CHARS: Final = 200
"""A cursor's length: what this module hands out is about 70 characters."""
MAX_CUSTOMER_CHARS: Final = limits.MAX_USER_ID_CHARS
"""A `customer` filter's length: a user id's, as the memory routes take it."""
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND: Final = timedelta(microseconds=1)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Cursor:
    """Where a page starts: after the row at `at` with id `id`."""

    at: datetime
    id: str


def _refused(field: str) -> InvalidRequest:
    return InvalidRequest(f"{field}: not a cursor this listing gave", field=field)


def encode_cursor(at: datetime, ident: str) -> str:
    micros = (at - _EPOCH) // _MICROSECOND
    raw = f"{micros}:{ident}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(
    text: str | None, check_id: Callable[[str], bool], field: str = "cursor"
) -> Cursor | None:
    """The cursor a client sent back (None: the first page); `InvalidRequest` naming `field`
    for anything this module did not hand out (`check_id`: the listing's id shape)."""
    if text is None:
        return None
    if not 1 <= len(text) <= MAX_CURSOR_CHARS or not text.isascii():
        raise _refused(field)
    try:
        raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode()
    except (binascii.Error, UnicodeDecodeError, ValueError):
        raise _refused(field) from None
    micros, _, ident = raw.partition(":")
    if not micros.lstrip("-").isdigit() or not check_id(ident):
        raise _refused(field)
    try:
        return Cursor(_EPOCH + int(micros) * _MICROSECOND, ident)
    except OverflowError:
        raise _refused(field) from None


def check_customer(value: str | None, field: str = "customer") -> str | None:
    """A `customer` filter: a user id as stored (byte for byte), 1 to 500 characters."""
    if value is None:
        return None
    if not 1 <= len(value) <= MAX_CUSTOMER_CHARS:
        rule = f"must have 1 to {MAX_CUSTOMER_CHARS} characters"
        raise InvalidRequest(f"{field}: {rule}", field=field)
    if "\x00" in value:
        raise InvalidRequest(f"{field}: must not contain NUL", field=field)
    return value


def page(
    rows: list[T], limit: int, key: Callable[[T], tuple[datetime, str]]
) -> tuple[list[T], str | None]:
    """The page of `rows` (read with `limit + 1`) and the next page's cursor (None: the last)."""
    if len(rows) <= limit:
        return rows, None
    kept = rows[:limit]
    return kept, encode_cursor(*key(kept[-1]))


def is_session_id(value: str) -> bool:
    return len(value) == 32 and all(c in "0123456789abcdef" for c in value)


def is_uuid(value: str) -> bool:
    parts = value.split("-")
    sizes = [len(p) for p in parts]
    hexes = all(c in "0123456789abcdef" for c in value.replace("-", ""))
    return sizes == [8, 4, 4, 4, 12] and hexes
