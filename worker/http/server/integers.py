"""Integers from untrusted text (query parameters, headers): the one parser the routes share.

Python's `int()` takes more than an HTTP parameter may hold: other scripts' digits (`str.isdigit`
also says yes to `²`, which `int()` then refuses), signs, underscores and surrounding spaces,
and it refuses a string of more than 4,300 digits with a `ValueError` that would reach the
client as a 500. `integer_in` accepts ASCII digits only, at most as many as the upper bound has
(leading zeros count), and answers anything else with the 400 that names the field and the
range. Pure: a plain string in, an integer or a typed failure out.
"""

from __future__ import annotations

import re
from typing import Final

from memory.contract import InvalidRequest

_DIGITS: Final = re.compile(r"[0-9]+")


def range_rule(low: int, high: int) -> str:
    return f"must be an integer from {low} to {high}"


def integer_in(value: str, name: str, low: int, high: int) -> int:
    """`value` as an integer of `low..high` (both >= 0); else `InvalidRequest` naming `name`."""
    if len(value) <= len(str(high)) and _DIGITS.fullmatch(value) is not None:
        number = int(value)
        if low <= number <= high:
            return number
    raise InvalidRequest(f"{name}: {range_rule(low, high)}", field=name)


def optional_integer(value: str | None, name: str, default: int, low: int, high: int) -> int:
    """`integer_in` for a parameter that may be absent (then `default`)."""
    return default if value is None else integer_in(value, name, low, high)
