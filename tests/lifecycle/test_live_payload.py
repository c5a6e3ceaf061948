"""The `memory.ops` event on the room's data channel carries a fact a model wrote with a NUL or
a lone surrogate exactly (issue 31, defect 7): UTF-8 JSON, the lone surrogate as its escape."""

from __future__ import annotations

import json
from typing import Any

from lifecycle.live import payload
from memory.contract import strict_json

FACT = "Part\x00number \ud83d, ünïcode 😀"


def test_the_payload_is_utf_8_json_of_the_event_exactly() -> None:
    event: Any = {"id": 3, "ops": [{"op": "add", "text": FACT}]}
    assert json.loads(payload(event).decode("utf-8")) == event


def test_utf8_json_keeps_characters_unless_a_lone_surrogate_needs_its_escape() -> None:
    assert strict_json.utf8_json({"t": "ünïcode 😀\x00"}) == '{"t": "ünïcode 😀\\u0000"}'
    assert strict_json.utf8_json({"t": "\ud800"}) == '{"t": "\\ud800"}'
    assert strict_json.utf8_json([1], indent=2) == "[\n  1\n]"
