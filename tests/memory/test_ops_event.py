"""The `memory.ops` event built from a write's outcome: pure, table-tested."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

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
