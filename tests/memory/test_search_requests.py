"""Search request validation (a table over the pure validator) and RRF fusion."""

from __future__ import annotations

import logging

import pytest

from memory.api import Memory
from memory.contract._errors import InvalidRequest
from memory.search._models import SearchHit
from memory.search._ranking import RRF_K, fuse
from memory.search._requests import MAX_QUERY_CHARS, search_request
from testkit.model_server import ModelServer
from tests.memory.search_helpers import remember, semantic

__all__ = ["semantic"]  # fixture

OK = {"agent_id": "support", "query_text": "cat", "user_id": None, "k_value": 10}


@pytest.mark.parametrize(
    ("changes", "field", "rule"),
    [
        ({"agent_id": ""}, "agent_id", "at least 1"),
        ({"agent_id": "a" * 201}, "agent_id", "at most 200"),
        ({"query_text": 5}, "query", "must be a string"),
        ({"query_text": "   "}, "query", "must not be blank"),
        ({"query_text": "a\x00b"}, "query", "NUL"),
        ({"query_text": "a" * (MAX_QUERY_CHARS + 1)}, "query", "at most 500"),
        ({"query_text": "?!¿"}, "query", "letter or a digit"),
        ({"user_id": ""}, "user_id", "at least 1"),
        ({"user_id": 34}, "user_id", "must be a string"),
        ({"user_id": "u" * 501}, "user_id", "at most 500"),
        ({"k_value": 0}, "k", "between 1 and 50"),
        ({"k_value": 51}, "k", "between 1 and 50"),
        ({"k_value": True}, "k", "must be an integer"),
        ({"k_value": 5.0}, "k", "must be an integer"),
        ({"mode_value": "fuzzy"}, "mode", "one of lexical, semantic, hybrid, identifier"),
        ({"mode_value": "identifier", "user_id": "u1"}, "user_id", "omitted in identifier"),
    ],
)
def test_invalid_requests_name_the_field_and_rule(
    changes: dict[str, object], field: str, rule: str
) -> None:
    args = {**OK, "mode_value": "hybrid", **changes}
    with pytest.raises(InvalidRequest) as raised:
        search_request(**args)
    assert raised.value.field == field and rule in raised.value.message


@pytest.mark.parametrize(
    "changes",
    [
        {"query_text": "a" * MAX_QUERY_CHARS},
        {"k_value": 50},
        {"k_value": 1},
        {"query_text": "+", "mode_value": "identifier"},  # any fragment of an id
        {"user_id": "u" * 500},
    ],
)
def test_requests_at_the_limits_are_accepted(changes: dict[str, object]) -> None:
    search_request(**{**OK, "mode_value": "hybrid", **changes})


@pytest.mark.pgvector
async def test_the_api_answers_an_envelope_and_never_logs_the_query_or_user(
    semantic: Memory, model_server: ModelServer, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    await remember(semantic, model_server, "+34 611 222 333", "Wants a quote for solar panels.")
    for mode in ("lexical", "semantic", "hybrid"):
        result = await semantic.search("support", "solar panels quote", "+34 611 222 333", 5, mode)
        assert result.error is None and result.data is not None and result.data.items
    assert (await semantic.search("support", "611 222", mode="identifier")).data
    bad = await semantic.search("support", "x", k=51)
    assert bad.data is None and bad.error is not None
    assert (bad.error.code, bad.error.field) == ("memory_invalid_request", "k")
    text = "\n".join(f"{r.getMessage()} {vars(r)!r}" for r in caplog.records)
    for secret in ("solar", "611 222", "+34 611 222 333"):
        assert secret not in text
    events = [vars(r) for r in caplog.records if r.getMessage() == "memory.search"]
    assert [e["mode"] for e in events] == ["lexical", "semantic", "hybrid", "identifier"]


def _hit(name: str) -> SearchHit:
    return SearchHit("c", name, name, 0.0)


@pytest.mark.parametrize(
    ("lexical", "semantic_list", "k", "expected"),
    [
        ("abc", "", 3, "abc"),
        ("", "xyz", 2, "xy"),
        ("ab", "ba", 2, "ab"),  # equal fused scores: first appearance (lexical) wins
        ("abc", "cxy", 4, "cabx"),  # in both lists beats first in one; b, x tie
        ("a", "a", 1, "a"),
    ],
)
def test_reciprocal_rank_fusion(lexical: str, semantic_list: str, k: int, expected: str) -> None:
    fused = fuse([[_hit(c) for c in lexical], [_hit(c) for c in semantic_list]], k)
    assert "".join(h.id or "" for h in fused) == expected


def test_fused_scores_are_the_sum_of_reciprocal_ranks() -> None:
    fused = fuse([[_hit("a"), _hit("b")], [_hit("b")]], 2)
    assert [(h.id, h.score) for h in fused] == [
        ("b", round(1 / (RRF_K + 2) + 1 / (RRF_K + 1), 6)),
        ("a", round(1 / (RRF_K + 1), 6)),
    ]
