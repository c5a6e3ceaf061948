"""Strict JSON decoding for text that enters from outside: request bodies and model answers.

Python's `json` accepts things a careful boundary must not: duplicate keys (the last one
silently wins), `NaN` and `Infinity`, numbers past a float's range (`1e999` becomes infinity),
integers of more digits than `int()` converts (a `ValueError` that does not name the value),
nesting deep enough to exhaust the interpreter's stack, and `\\ud800`-style escapes that
decode to lone surrogates (which have no UTF-8 form, so Postgres and every encoder downstream
reject them). `loads` refuses all of these with a
`JsonRejected` naming the rule and, where there is one, the path of the offending value.
Pure functions over plain values.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any, Final

MAX_DEPTH: Final = 32
"""Deepest nesting of arrays and objects accepted (the top-level value is depth 1)."""

# Postgres text cannot hold NUL, and a lone surrogate has no UTF-8 form
_FORBIDDEN = re.compile("[\x00\ud800-\udfff]")
FORBIDDEN_RULE: Final = "must not contain NUL or lone surrogate characters"


def forbidden_character(text: str) -> bool:
    """Whether `text` holds a NUL or a lone surrogate (a well-formed pair is one code point)."""
    return _FORBIDDEN.search(text) is not None


@dataclass(frozen=True, slots=True)
class JsonRejected(Exception):
    """Why a JSON text was refused; `path` names the value (`a.b[2]`), or is None."""

    rule: str
    path: str | None = None

    def __str__(self) -> str:
        return self.rule if self.path is None else f"{self.path}: {self.rule}"


class _Duplicate(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


MAX_INTEGER_DIGITS: Final = 4300
"""Longest integer accepted, in digits: the interpreter's own default limit for `int()`."""
NUMBER_RULE: Final = (
    f"must be a number of at most {MAX_INTEGER_DIGITS} digits, within a float's finite range"
)


@dataclass(frozen=True, slots=True)
class _OutOfRange:
    """Stands in the decoded tree for a number refused, so the walk can name its path."""


_OUT_OF_RANGE: Final = _OutOfRange()


def _integer(text: str) -> int | _OutOfRange:
    return int(text) if len(text.lstrip("-")) <= MAX_INTEGER_DIGITS else _OUT_OF_RANGE


def _float(text: str) -> float | _OutOfRange:
    value = float(text)
    return value if math.isfinite(value) else _OUT_OF_RANGE


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Duplicate(key)
        result[key] = value
    return result


def _constant(name: str) -> None:
    raise ValueError(name)


def loads(text: str, *, max_depth: int = MAX_DEPTH, model_text: bool = False) -> object:
    """Decode `text`, refusing duplicate keys, NaN/Infinity, deep nesting and bad characters.

    `model_text`: string values (never keys) may hold NUL and lone surrogates. A model's answer
    is what was said, kept exactly (escaped where it is stored, `memory.store.stored_text`).
    """
    try:
        value = json.loads(
            text,
            object_pairs_hook=_unique,
            parse_constant=_constant,
            parse_int=_integer,
            parse_float=_float,
        )
    except _Duplicate as dup:
        path = None if forbidden_character(dup.key) else dup.key
        raise JsonRejected("a key appears more than once in one object", path) from None
    except RecursionError:
        raise JsonRejected(f"must not nest deeper than {max_depth} levels") from None
    except ValueError:
        raise JsonRejected("must be valid JSON") from None
    _check_tree(value, max_depth, model_text)
    return value


def check_characters(value: object, root: str = "") -> None:
    """No string or key of `value` (found at `root`) holds NUL or a lone surrogate: for the
    parts of a body read with `model_text` that are the client's own words."""
    _check_tree(value, MAX_DEPTH, root=root)


def _check_tree(value: object, max_depth: int, model_text: bool = False, root: str = "") -> None:
    """Depth and characters of every key and string, iteratively (no recursion to exhaust)."""
    stack: list[tuple[object, str, int]] = [(value, root, 1)]
    while stack:
        node, path, depth = stack.pop()
        if isinstance(node, str):
            if not model_text and forbidden_character(node):
                raise JsonRejected(FORBIDDEN_RULE, path or None)
            continue
        if node is _OUT_OF_RANGE:
            raise JsonRejected(NUMBER_RULE, path or None)
        if not isinstance(node, dict | list):
            continue
        if depth > max_depth:
            raise JsonRejected(f"must not nest deeper than {max_depth} levels")
        if isinstance(node, list):
            items = [(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(node)]
            stack.extend(reversed(items))
            continue
        if any(forbidden_character(key) for key in node):
            raise JsonRejected(f"keys {FORBIDDEN_RULE}", path or None)
        members = [
            (item, f"{path}.{key}" if path else key, depth + 1) for key, item in node.items()
        ]
        stack.extend(reversed(members))


def utf8_json(value: object, **options: Any) -> str:
    """JSON text for a UTF-8 wire: characters as they are, except that a value holding a lone
    surrogate (a model may write one; UTF-8 has no form for it) is written all in `\\u`
    escapes, which carry it exactly. `options` are `json.dumps`'s (`indent`, `separators`)."""
    text = json.dumps(value, ensure_ascii=False, **options)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, **options)
    return text
