"""Text that cannot be stored is an invalid request naming the field, before any I/O.

A lone surrogate (what a `"\\ud800"` JSON escape decodes to) has no UTF-8 form: asyncpg would
refuse to encode it and the caller would see a retryable-looking `memory_unavailable`.
"""

from __future__ import annotations

from typing import Any

import pytest

from memory.api import Memory
from memory.contract import _requests as requests
from memory.contract._envelope import Result
from memory.contract._errors import InvalidRequest
from testkit.model_server import ModelServer

LONE = ["\ud800", "a\udbffb", "\udc00", "x\udfff"]


@pytest.mark.parametrize("text", LONE)
async def test_lone_surrogates_in_ids_are_invalid_requests(
    memory: Memory, model_server: ModelServer, text: str
) -> None:
    results: list[tuple[Result[Any], str]] = [
        (await memory.recall("support", text), "user_id"),
        (await memory.delete_all("support", text), "user_id"),
        (await memory.add("hi", "support", text), "user_id"),
        (await memory.recall(text, "u1"), "agent_id"),
        (await memory.add("hi", text, "u1"), "agent_id"),
    ]
    for result, field in results:
        assert result.error is not None
        assert (result.error.code, result.error.field) == ("memory_invalid_request", field)
        assert "surrogate" in result.error.message
    assert model_server.requests == []


@pytest.mark.parametrize(
    ("call", "field"),
    [
        ({"content": "a\ud800"}, "content"),
        ({"content": [{"role": "user", "content": "\udc00"}]}, "content[0].content"),
        (
            {"content": [{"role": "user", "content": [{"type": "text", "text": "\ud800"}]}]},
            "content[0].content[0].text",
        ),
        ({"instructions": "keep \ud800"}, "instructions"),
        ({"call": {"outcome": "\ud800"}}, "call.outcome"),
        ({"call": {"run_id": "\udfff"}}, "call.run_id"),
    ],
)
async def test_lone_surrogates_in_add_fields_name_the_field(
    memory: Memory, model_server: ModelServer, call: dict[str, Any], field: str
) -> None:
    arguments: dict[str, Any] = {"content": "hi", "agent_id": "support", "user_id": "u1", **call}
    result = await memory.add(**arguments)
    assert result.error is not None
    assert (result.error.code, result.error.field) == ("memory_invalid_request", field)
    assert model_server.requests == []


def test_a_surrogate_pair_is_one_character_and_valid() -> None:
    assert requests.user_id("\U0001f600") == "\U0001f600"
    assert requests.user_id("\ud83d\ude00".encode("utf-16", "surrogatepass").decode("utf-16")) == (
        "\U0001f600"
    )
    with pytest.raises(InvalidRequest):
        requests.user_id("\ud83d")
