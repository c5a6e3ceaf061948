"""Phone numbers out of room names, before a room name is logged or traced.

LiveKit names the room of an inbound call after its caller under the individual dispatch rule
(`dispatchRuleIndividual`, the one docs/deployment.md sets up): `<roomPrefix>_<number>_<random>`,
the number being the SIP `From` user, the same value as the participant's `sip.phoneNumber`
attribute (E.164 such as `+34600111222`, or a provider's digits without the `+`). The callee
rule names rooms after the dialed number the same way. `mask_numbers` replaces each such number
with `NUMBER_MASK` and keeps the rest, so the prefix and LiveKit's random suffix still tell two
rooms apart.

What counts as a number: a `+` and 7 to 15 digits (E.164's most), which may be broken by the
visual separators a tel URI allows (space, `-`, `.`, parentheses); or a standalone run of 7 to
15 digits, not touching a letter or another digit. Shorter runs (a year, a counter) stay, and
so do digits inside a random token (`test-5e01234567ab`): a hex or base62 id is not a number.
An 8-digit date stamp (`20261207`) standing alone is masked: privacy wins that tie.
"""

from __future__ import annotations

import re

NUMBER_MASK = "[number]"

_WITH_PLUS = r"\+[ (]{0,2}\d(?:[ .()\-]{0,2}\d){6,14}(?!\d)"
_STANDALONE = r"(?<![A-Za-z0-9])\d{7,15}(?![A-Za-z0-9])"
_NUMBER = re.compile(f"{_WITH_PLUS}|{_STANDALONE}")


def mask_numbers(name: str) -> str:
    """`name` with every phone-number-like run replaced by `NUMBER_MASK`, the rest untouched."""
    return _NUMBER.sub(NUMBER_MASK, name)
