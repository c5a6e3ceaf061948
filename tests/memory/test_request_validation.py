"""Requests are validated before any model call or write, naming the field and the rule."""

from __future__ import annotations

from typing import Any

import asyncpg
import pytest

from memory.api import Memory
from memory.contract import _limits as limits
from testkit.model_server import ModelServer
from tests.memory.helpers import stored

OK_CONTENT = "I prefer email."


async def _add(memory: Memory, **overrides: Any) -> Any:
    args: dict[str, Any] = {
        "content": OK_CONTENT,
        "agent_id": "support",
        "user_id": "u1",
        "call": None,
        "instructions": None,
    }
    args.update(overrides)
    return await memory.add(**args)


REJECTED_ADDS = [
    ("agent_id", {"agent_id": ""}),
    ("agent_id", {"agent_id": None}),
    ("agent_id", {"agent_id": "a" * (limits.MAX_AGENT_ID_CHARS + 1)}),
    ("user_id", {"user_id": ""}),
    ("user_id", {"user_id": 42}),
    ("user_id", {"user_id": "x" * (limits.MAX_USER_ID_CHARS + 1)}),
    ("user_id", {"user_id": "nul\x00inside"}),
    ("content", {"content": ""}),
    ("content", {"content": "   \n"}),
    ("content", {"content": []}),
    ("content", {"content": 12}),
    ("content", {"content": "x" * (limits.MAX_TRANSCRIPT_CHARS + 1)}),
    ("content[0].role", {"content": [{"role": "robot", "content": "hi"}]}),
    ("content[0].content", {"content": [{"role": "user", "content": 5}]}),
    ("content[0].content[0]", {"content": [{"role": "user", "content": [{"type": "image_url"}]}]}),
    ("content[0].surprise", {"content": [{"role": "user", "content": "hi", "surprise": 1}]}),
    ("content[0]", {"content": ["just a string"]}),
    ("instructions", {"instructions": ""}),
    ("instructions", {"instructions": "x" * (limits.MAX_INSTRUCTIONS_CHARS + 1)}),
    ("instructions", {"instructions": ["list"]}),
    ("call", {"call": "yesterday"}),
    ("call.mood", {"call": {"mood": "happy"}}),
    ("call.started_at", {"call": {"started_at": "2026-10-26T09:00:00"}}),
    ("call.started_at", {"call": {"started_at": "not a date"}}),
    ("call.started_at", {"call": {"started_at": 1700000000}}),
    ("call.duration_seconds", {"call": {"duration_seconds": -0.5}}),
    ("call.duration_seconds", {"call": {"duration_seconds": float("nan")}}),
    ("call.duration_seconds", {"call": {"duration_seconds": True}}),
    ("call.duration_seconds", {"call": {"duration_seconds": "83"}}),
    ("call.duration_seconds", {"call": {"duration_seconds": 10**400}}),  # past a float's range
    ("call.outcome", {"call": {"outcome": "o" * (limits.MAX_OUTCOME_CHARS + 1)}}),
    ("call.outcome", {"call": {"outcome": ""}}),
    ("call.run_id", {"call": {"run_id": 7}}),
    ("call.run_id", {"call": {"run_id": "r" * (limits.MAX_RUN_ID_CHARS + 1)}}),
]


@pytest.mark.parametrize(("field", "overrides"), REJECTED_ADDS)
async def test_invalid_add_is_rejected_before_the_model(
    memory: Memory,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    field: str,
    overrides: dict[str, Any],
) -> None:
    """Each invalid add names its field, sends nothing to the model and writes nothing."""
    result = await _add(memory, **overrides)
    assert result.data is None and result.error is not None
    assert result.error.code == "memory_invalid_request"
    assert result.error.field == field
    assert field in result.error.message
    assert model_server.requests == []
    assert (await stored(pool, "support", "u1"))["revision"] is None


ACCEPTED_ADDS = [
    {"agent_id": "a" * limits.MAX_AGENT_ID_CHARS},
    {"user_id": "x" * limits.MAX_USER_ID_CHARS},
    {"instructions": "x"},
    {"instructions": "x" * limits.MAX_INSTRUCTIONS_CHARS},
    {"content": "x" * limits.MAX_TRANSCRIPT_CHARS},
    {"content": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]},
    {"content": [{"role": r, "content": "hi"} for r in ("system", "user", "assistant", "tool")]},
    {"call": {"started_at": "2026-10-26T09:00:00.000+00:00"}},
    {"call": {"started_at": "2026-10-26T09:00:00Z"}},
    {"call": {"duration_seconds": 0}},
    {"call": {"outcome": "o" * limits.MAX_OUTCOME_CHARS, "run_id": "r" * limits.MAX_RUN_ID_CHARS}},
]


@pytest.mark.parametrize("overrides", ACCEPTED_ADDS)
async def test_values_at_the_limit_are_accepted(
    memory: Memory, model_server: ModelServer, overrides: dict[str, Any]
) -> None:
    """Values exactly at each limit pass validation and reach the model once."""
    model_server.answer([], "Nothing new.")
    result = await _add(memory, **overrides)
    assert result.error is None, result.error
    assert len(model_server.requests) == 1


@pytest.mark.parametrize(
    ("calls", "ok"),
    [
        (0, True),
        (100, True),
        (5, True),
        (101, False),
        (-1, False),
        (True, False),
        (1.0, False),
        ("5", False),
        (None, False),
    ],
)
async def test_recall_calls_bounds(memory: Memory, calls: object, ok: bool) -> None:
    """calls is an integer 0..100; a bool, float or string is not."""
    result = await memory.recall("support", "u1", calls)
    if ok:
        assert result.error is None and result.data is not None
    else:
        assert result.data is None and result.error is not None
        assert (result.error.code, result.error.field) == ("memory_invalid_request", "calls")


@pytest.mark.parametrize(
    ("agent_id", "user_id", "field"),
    [("", "u", "agent_id"), ("a", "", "user_id"), ("a", 3, "user_id")],
)
async def test_delete_all_and_recall_validate_scope(
    memory: Memory, agent_id: object, user_id: object, field: str
) -> None:
    """recall and delete_all reject an invalid scope by field."""
    for result in (
        await memory.recall(agent_id, user_id),
        await memory.delete_all(agent_id, user_id),
    ):
        assert result.data is None and result.error is not None
        assert (result.error.code, result.error.field) == ("memory_invalid_request", field)
