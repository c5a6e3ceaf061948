"""Text as Postgres can keep it: NUL and lone surrogates escaped at the store boundary.

Postgres `text` and `jsonb` hold neither NUL nor a lone surrogate (UTF-8 has no form for one),
yet a model may write either. Every place that stores text a model wrote passes it through
`stored_text` (or `stored_json` for a JSON value, every string and key inside) and every place
that reads it back through `read_text` (`read_json`), so what was said comes back exactly.

The escape is one character, U+10FFFF (a noncharacter: no text should carry it), followed by
a tag: `0` for NUL, `u` and four hex digits for a lone surrogate, `e` for the escape character
itself. Text without any of the three is stored unchanged, so every row written before this
escape reads back as it was (unless it held U+10FFFF followed by a tag, which nothing writes).
"""

from __future__ import annotations

import re
from typing import Any, Final

ESCAPE: Final = "\U0010ffff"
_NEEDS = re.compile("[\x00\ud800-\udfff\U0010ffff]")
_ESCAPED = re.compile(f"{ESCAPE}(?:(0)|u([0-9a-f]{{4}})|(e))")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\x00":
        return f"{ESCAPE}0"
    if char == ESCAPE:
        return f"{ESCAPE}e"
    return f"{ESCAPE}u{ord(char):04x}"


def _unescape(match: re.Match[str]) -> str:
    nul, surrogate, escape = match.groups()
    if nul is not None:
        return "\x00"
    if escape is not None:
        return ESCAPE
    return chr(int(surrogate, 16))


def stored_text(text: str) -> str:
    """`text` as a Postgres `text` value can hold it (unchanged when nothing needs escaping)."""
    return _NEEDS.sub(_escape, text) if _NEEDS.search(text) else text


def read_text(text: str) -> str:
    """The text `stored_text` was given."""
    return _ESCAPED.sub(_unescape, text) if ESCAPE in text else text


def stored_json(value: Any) -> Any:
    """A JSON value with every string (keys included) passed through `stored_text`."""
    if isinstance(value, str):
        return stored_text(value)
    if isinstance(value, list):
        return [stored_json(v) for v in value]
    if isinstance(value, dict):
        return {stored_text(k): stored_json(v) for k, v in value.items()}
    return value


def read_json(value: Any) -> Any:
    """The JSON value `stored_json` was given."""
    if isinstance(value, str):
        return read_text(value)
    if isinstance(value, list):
        return [read_json(v) for v in value]
    if isinstance(value, dict):
        return {read_text(k): read_json(v) for k, v in value.items()}
    return value
