"""Validation of what callers hand to the memory API, before any model call or write.

Pure functions over plain values. Each failure is an `InvalidRequest` naming the field and the
rule it broke; user content never appears in a message.
"""

from __future__ import annotations

import math
import zoneinfo
from collections.abc import Mapping, Sequence
from datetime import datetime
from functools import cache
from typing import cast, get_args

from memory.contract import _limits as limits
from memory.contract._errors import InvalidRequest
from memory.contract._models import CallMetadata, Role, Utterance
from memory.contract._strict_json import FORBIDDEN_RULE, forbidden_character

_ROLES: frozenset[str] = frozenset(get_args(Role))
_CALL_KEYS = frozenset(
    {
        "started_at",
        "duration_seconds",
        "outcome",
        "run_id",
        "channel",
        "session_id",
        "key",
        "job_id",
        "first_turn",
    }
)
_MESSAGE_KEYS = frozenset({"role", "content", "name", "tool_call_id", "tool_calls"})


def _fail(field: str, rule: str) -> InvalidRequest:
    return InvalidRequest(f"{field}: {rule}", field=field)


def _text(value: object, field: str, *, max_chars: int, min_chars: int = 1) -> str:
    if not isinstance(value, str):
        raise _fail(field, "must be a string")
    if forbidden_character(value):
        # Postgres text cannot hold NUL; a lone surrogate (`"\ud800"` in JSON) has no UTF-8 form
        raise _fail(field, FORBIDDEN_RULE)
    if len(value) < min_chars:
        raise _fail(field, f"must have at least {min_chars} character(s)")
    if len(value) > max_chars:
        raise _fail(field, f"must have at most {max_chars} characters")
    return value


def agent_id(value: object) -> str:
    """An agent id: a non-empty string, kept exactly as given."""
    return _text(value, "agent_id", max_chars=limits.MAX_AGENT_ID_CHARS)


def user_id(value: object) -> str:
    """A user id: opaque, non-empty, stored byte-for-byte (whitespace, Unicode and `+` kept)."""
    return _text(value, "user_id", max_chars=limits.MAX_USER_ID_CHARS)


def instructions(value: object) -> str | None:
    if value is None:
        return None
    return _text(
        value,
        "instructions",
        min_chars=limits.MIN_INSTRUCTIONS_CHARS,
        max_chars=limits.MAX_INSTRUCTIONS_CHARS,
    )


TIME_ZONE_RULE = "must be an IANA time zone name such as Europe/Madrid"
_HOST_ZONES = frozenset({"localtime", "Factory"})  # the host's own zone, a placeholder


@cache
def _zones() -> frozenset[str]:
    return frozenset(zoneinfo.available_timezones()) - _HOST_ZONES


def time_zone(value: object, field: str = "time_zone") -> str | None:
    """An agent's time zone: None, or a name of the IANA database that zoneinfo can load."""
    if value is None:
        return None
    name = _text(value, field, max_chars=limits.MAX_TIME_ZONE_CHARS)
    if name not in _zones():
        raise _fail(field, TIME_ZONE_RULE)
    return name


def recall_calls(value: object) -> int:
    """How many call records recall returns: an integer (never a bool) in 0..100."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise _fail("calls", "must be an integer")
    if not limits.MIN_RECALL_CALLS <= value <= limits.MAX_RECALL_CALLS:
        raise _fail(
            "calls", f"must be between {limits.MIN_RECALL_CALLS} and {limits.MAX_RECALL_CALLS}"
        )
    return value


def transcript(content: object) -> tuple[Utterance, ...]:
    """A transcript string or OpenAI-shaped chat messages, as utterances."""
    if isinstance(content, str):
        text = _text(content, "content", max_chars=limits.MAX_TRANSCRIPT_CHARS)
        if not text.strip():
            raise _fail("content", "must not be blank")
        return (Utterance(role="user", text=text),)
    if not isinstance(content, Sequence) or isinstance(content, bytes | bytearray):
        raise _fail("content", "must be a string or a list of chat messages")
    if not content:
        raise _fail("content", "must not be an empty list")
    if len(content) > limits.MAX_MESSAGES:
        raise _fail("content", f"must have at most {limits.MAX_MESSAGES} messages")
    utterances = tuple(_message(item, f"content[{i}]") for i, item in enumerate(content))
    total = sum(len(u.text) for u in utterances)
    if total > limits.MAX_TRANSCRIPT_CHARS:
        raise _fail("content", f"must have at most {limits.MAX_TRANSCRIPT_CHARS} characters")
    if not any(u.text.strip() for u in utterances):
        raise _fail("content", "must contain some text")
    return utterances


def _message(item: object, field: str) -> Utterance:
    if not isinstance(item, Mapping):
        raise _fail(field, "must be an object with role and content")
    unknown = set(item) - _MESSAGE_KEYS
    if unknown:
        raise _fail(f"{field}.{sorted(map(str, unknown))[0]}", "is not a known message field")
    role = item.get("role")
    if role not in _ROLES:
        raise _fail(f"{field}.role", "must be one of system, user, assistant, tool")
    return Utterance(role=cast(Role, role), text=_message_text(item.get("content"), field))


def _message_text(content: object, field: str) -> str:
    if isinstance(content, str):
        return _text(
            content, f"{field}.content", min_chars=0, max_chars=limits.MAX_TRANSCRIPT_CHARS
        )
    if not isinstance(content, Sequence) or isinstance(content, bytes | bytearray):
        raise _fail(f"{field}.content", "must be a string or a list of text parts")
    texts = []
    for j, part in enumerate(content):
        part_field = f"{field}.content[{j}]"
        if (
            not isinstance(part, Mapping)
            or part.get("type") != "text"
            or set(part)
            != {
                "type",
                "text",
            }
        ):
            raise _fail(part_field, "must be a text part {type: 'text', text}")
        texts.append(
            _text(
                part["text"],
                f"{part_field}.text",
                min_chars=0,
                max_chars=limits.MAX_TRANSCRIPT_CHARS,
            )
        )
    return "".join(texts)


def call_metadata(value: object) -> CallMetadata:
    """Optional call metadata; unknown keys are rejected."""
    if value is None:
        return CallMetadata()
    if not isinstance(value, Mapping):
        raise _fail("call", "must be an object")
    unknown = set(value) - _CALL_KEYS
    if unknown:
        raise _fail(f"call.{sorted(map(str, unknown))[0]}", "is not a known call field")
    return CallMetadata(
        started_at=_started_at(value.get("started_at")),
        duration_seconds=_duration(value.get("duration_seconds")),
        outcome=_optional_text(value.get("outcome"), "call.outcome", limits.MAX_OUTCOME_CHARS),
        run_id=_optional_text(value.get("run_id"), "call.run_id", limits.MAX_RUN_ID_CHARS),
        channel=_optional_text(value.get("channel"), "call.channel", limits.MAX_CHANNEL_CHARS),
        session_id=_optional_text(
            value.get("session_id"), "call.session_id", limits.MAX_RUN_ID_CHARS
        ),
        key=_optional_text(value.get("key"), "call.key", limits.MAX_KEY_NAME_CHARS),
        job_id=_optional_text(value.get("job_id"), "call.job_id", limits.MAX_RUN_ID_CHARS),
        first_turn=_first_turn(value.get("first_turn")),
    )


def _first_turn(value: object) -> int:
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _fail("call.first_turn", "must be an integer >= 0")
    return value


def _started_at(value: object) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        parsed = value
    elif isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            raise _fail("call.started_at", "must be an ISO-8601 timestamp") from None
    else:
        raise _fail("call.started_at", "must be an ISO-8601 timestamp string")
    if parsed.utcoffset() is None:
        raise _fail("call.started_at", "must carry a UTC offset")
    return parsed


def _duration(value: object) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _fail("call.duration_seconds", "must be a number")
    try:  # an int past a float's range raises instead of being infinite
        seconds = float(value)
    except OverflowError:
        seconds = math.inf
    if not math.isfinite(seconds) or seconds < 0:
        raise _fail("call.duration_seconds", "must be a finite number >= 0")
    return seconds


def _optional_text(value: object, field: str, max_chars: int) -> str | None:
    if value is None:
        return None
    return _text(value, field, max_chars=max_chars)
