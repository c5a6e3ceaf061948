"""The model's answer is validated completely, as a pure function, before anything is written."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memory.contract import _limits as limits
from memory.contract._errors import InvalidModelOutput
from memory.contract._models import Fact
from memory.contract._operations import duplicate_key, plan
from memory.extraction._request import handles_for
from tests.memory.helpers import add_op, delete_op, update_op

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def facts(*contents: str) -> dict[str, Fact]:
    return handles_for(
        [
            Fact(id=f"id-{i}", content=c, created_at=NOW, updated_at=NOW)
            for i, c in enumerate(contents)
        ]
    )


def answer(ops: list[dict[str, Any]], summary: str = "A call.") -> str:
    return json.dumps({"operations": ops, "summary": summary})


def test_plan_maps_handles_to_fact_ids() -> None:
    """Handles resolve to the stored ids; adds keep their order."""
    result = plan(
        answer(
            [
                delete_op("f1"),
                update_op("f2", "Prefers SMS."),
                add_op("Has a dog."),
                add_op("Likes tea."),
            ]
        ),
        facts("Lives in Madrid.", "Prefers email."),
    )
    assert result.deletes == ("id-0",)
    assert result.updates == (("id-1", "Prefers SMS."),)
    assert result.adds == ("Has a dog.", "Likes tea.")
    assert result.summary == "A call."


def test_empty_operations_keep_everything() -> None:
    result = plan(answer([]), facts("a", "b"))
    assert (result.deletes, result.updates, result.adds) == ((), (), ())


def test_duplicates_are_defined_by_normalised_text() -> None:
    """Case, Unicode compatibility forms and whitespace runs do not make a fact new."""
    assert duplicate_key("Prefers  EMAIL\n") == duplicate_key("prefers email")
    assert duplicate_key("ｃａｆé") == duplicate_key("café")
    assert duplicate_key("prefers email") != duplicate_key("prefers e-mail")


def _fifty() -> dict[str, Fact]:
    return facts(*(f"fact {i}" for i in range(limits.MAX_FACTS)))


BAD_ANSWERS = [
    ("not json", "{operations: []"),
    ("top-level list", "[]"),
    ("missing summary", json.dumps({"operations": []})),
    ("extra field", json.dumps({"operations": [], "summary": "s", "mood": "x"})),
    ("extra op field", answer([{**add_op("x"), "why": "because"}])),
    ("wrong op", answer([{"op": "merge", "handle": "f1", "content": "x"}])),
    ("summary not string", json.dumps({"operations": [], "summary": 3})),
    ("operations not list", json.dumps({"operations": {}, "summary": "s"})),
    ("content not string", answer([{"op": "add", "handle": None, "content": 5}])),
    ("unknown handle", answer([update_op("f9", "x")])),
    ("handle twice", answer([update_op("f1", "x"), delete_op("f1")])),
    ("add with handle", answer([{"op": "add", "handle": "f1", "content": "x"}])),
    ("delete with content", answer([{"op": "delete", "handle": "f1", "content": "x"}])),
    ("update without content", answer([{"op": "update", "handle": "f1", "content": None}])),
    ("blank add", answer([add_op("   ")])),
    ("fact too long", answer([add_op("x" * (limits.MAX_FACT_CHARS + 1))])),
    ("update too long", answer([update_op("f1", "x" * (limits.MAX_FACT_CHARS + 1))])),
    ("summary empty", answer([], summary="  ")),
    ("summary too long", answer([], summary="s" * (limits.MAX_SUMMARY_CHARS + 1))),
    ("duplicate of kept fact", answer([add_op("PREFERS  email")])),
    ("duplicate adds", answer([add_op("Has a dog."), add_op("has a dog.")])),
    ("null content", "null"),
]


@pytest.mark.parametrize(("why", "raw"), BAD_ANSWERS, ids=[w for w, _ in BAD_ANSWERS])
def test_invalid_answers_are_rejected(why: str, raw: str) -> None:
    with pytest.raises(InvalidModelOutput) as info:
        plan(raw, facts("Prefers email.", "Lives in Madrid."))
    assert info.value.code == "memory_invalid_model_output"


def test_no_content_is_rejected() -> None:
    with pytest.raises(InvalidModelOutput):
        plan(None, facts())


def test_fact_and_summary_at_their_limits_pass() -> None:
    result = plan(
        answer([add_op("x" * limits.MAX_FACT_CHARS)], summary="s" * limits.MAX_SUMMARY_CHARS),
        facts(),
    )
    assert len(result.adds[0]) == limits.MAX_FACT_CHARS


def test_fifty_facts_pass_and_fifty_one_fail() -> None:
    """The resulting memory may hold exactly 50 unique facts, not 51."""
    assert plan(answer([]), _fifty()).adds == ()
    with pytest.raises(InvalidModelOutput):
        plan(answer([add_op("one more")]), _fifty())
    replaced = plan(answer([delete_op("f1"), add_op("one more")]), _fifty())
    assert replaced.adds == ("one more",)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
operations = st.fixed_dictionaries(
    {
        "op": st.sampled_from(["add", "update", "delete", "other"]),
        "handle": st.none() | st.sampled_from(["f1", "f2", "f3", "f9", ""]),
        "content": st.none() | st.text(max_size=30) | st.just("x" * 501) | st.integers(),
    }
)
answers = (
    st.fixed_dictionaries(
        {
            "operations": st.lists(operations, max_size=6),
            "summary": st.text(max_size=5) | json_values,
        }
    )
    | json_values
)


@settings(max_examples=400, deadline=None)
@given(answers)
def test_any_answer_is_a_valid_plan_or_invalid_output(candidate: Any) -> None:
    """Whatever the model says, validation returns a consistent plan or InvalidModelOutput."""
    current = facts("Prefers email.", "Lives in Madrid.", "Has a dog.")
    try:
        result = plan(json.dumps(candidate), current)
    except InvalidModelOutput:
        return
    touched = set(result.deletes) | {i for i, _ in result.updates}
    assert len(touched) == len(result.deletes) + len(result.updates)
    assert touched <= {f.id for f in current.values()}
    kept = [f.content for f in current.values() if f.id not in touched]
    final = kept + [c for _, c in result.updates] + list(result.adds)
    assert len(final) <= limits.MAX_FACTS
    assert len({duplicate_key(c) for c in final}) == len(final)
    assert all(0 < len(c) <= limits.MAX_FACT_CHARS for c in final)
    assert 0 < len(result.summary) <= limits.MAX_SUMMARY_CHARS
