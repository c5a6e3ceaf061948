"""The `memory.ops` event built from a write's outcome: pure, table-tested."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from memory.contract import UNKNOWN_SOURCE, OpNote, Source, Writer, source_json
from memory.contract._models import AppliedOp, PassContext, Written
from memory.ops._event import build_event, instant

T0 = datetime(2026, 12, 3, 7, 20, 0, 5, tzinfo=UTC)
T1 = T0 + timedelta(seconds=1)


def written(*applied: AppliedOp, log_id: int | None = 9) -> Written:
    return Written(facts=(), call=None, revision=4, applied=applied, log_id=log_id)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (T0, "2026-12-03T07:20:00.000005Z"),
        (
            datetime(2026, 12, 3, 9, 20, tzinfo=timezone(timedelta(hours=2))),
            "2026-12-03T07:20:00.000000Z",
        ),
        (None, None),
    ],
)
def test_instants_are_utc_with_microseconds(value: datetime | None, expected: str | None) -> None:
    assert instant(value) == expected


def test_an_update_names_the_version_it_supersedes() -> None:
    op = AppliedOp("update", "f1", "v2", "v1", T1, None, "Lives in Cusco.")
    event = build_event(
        written(op),
        PassContext("small-model", 812.5, turn=3, final=False, with_call=False),
        agent_id="front-desk",
        user_id="+34600111222",
        call_id="job-1",
    )
    assert event == {
        "id": 9,
        "agent_id": "front-desk",
        "contact": "+34600111222",
        "call_id": "job-1",
        "channel": "unknown",  # an op without a source: written before provenance
        "session_id": None,
        "turn": 3,
        "final": False,
        "ops": [
            {
                "op": "update",
                "id": "f1",
                "version": "v2",
                "supersedes": "v1",
                "valid_from": "2026-12-03T07:20:01.000005Z",
                "valid_to": None,
                "text": "Lives in Cusco.",
                "kind": None,
                "confidence": None,
                "evidence": None,
                "reason": None,
                "source": source_json(UNKNOWN_SOURCE),
            }
        ],
        "memory": {"revision": 4},
        "model": "small-model",
        "latency_ms": 812.5,
    }


@pytest.mark.parametrize(
    "outcome",
    [written(), written(AppliedOp("add", "f1", "v1", None, T0, None, "x"), log_id=None)],
    ids=["nothing applied", "no log row"],
)
def test_an_empty_pass_has_no_event(outcome: Written) -> None:
    context = PassContext("m", 1.0)
    assert build_event(outcome, context, agent_id="a", user_id="u", call_id=None) is None


def test_a_delete_closes_a_validity_and_carries_no_text() -> None:
    op = AppliedOp("delete", "f1", "v1", None, T0, T1)
    event = build_event(written(op), PassContext("m", 1.0), agent_id="a", user_id="u", call_id=None)
    assert event is not None
    assert event["ops"][0]["valid_to"] == "2026-12-03T07:20:01.000005Z"
    assert event["ops"][0]["text"] is None and event["final"] is True


def test_each_op_says_what_the_model_said_and_where_it_came_from() -> None:
    """The event carries the write's channel and session, and per op its kind, confidence,
    evidence, a delete's reason and its source."""
    source = Source(
        "chat", None, "sess-1", (2,), Writer("a", None, "ci"), "m", "email me", "contact", 0.8
    )
    note = OpNote("contact", 0.8, "email me", None, (2,))
    added = AppliedOp("add", "f2", "v2", None, T0, None, "Prefers email.", note, source)
    gone = OpNote(reason="moved away")
    deleted = AppliedOp("delete", "f1", "v1", None, T0, T1, None, gone, source)
    event = build_event(
        written(deleted, added), PassContext("m", 1.0), agent_id="a", user_id="u", call_id=None
    )
    assert event is not None
    assert (event["channel"], event["session_id"]) == ("chat", "sess-1")
    first, second = event["ops"]
    assert first["reason"] == "moved away" and first["evidence"] is None
    assert second["kind"] == "contact" and second["confidence"] == 0.8
    assert second["evidence"] == "email me" and second["reason"] is None
    assert second["source"]["writer"] == {"agent": "a", "job": None, "key": "ci"}
    assert second["source"]["turns"] == [2] and second["source"]["session_id"] == "sess-1"
