"""The plain rules behind the job-process logs: lost calls, call events, livekit's content."""

from __future__ import annotations

import logging

import pytest

from infra.logs import REDACTED, ContentScrubber
from worker.job_watch import LastCallEvents, is_call_event, lost_call


@pytest.mark.parametrize(
    ("exit_code", "lost"), [(0, False), (None, False), (-9, True), (1, True), (255, True)]
)
def test_a_job_process_that_did_not_exit_cleanly_lost_its_call(
    exit_code: int | None, lost: bool
) -> None:
    assert lost_call(exit_code) is lost


def test_call_events_are_remembered_per_job_and_forgotten_once_read() -> None:
    last = LastCallEvents()
    for event, job in [
        ("call.memory_plan", "a"),
        ("memory.extraction", "a"),
        ("call.lost", "a"),
        ("call.ended", "b"),
        ("process exiting", "b"),
    ]:
        last.handle(logging.makeLogRecord({"msg": event, "job_id": job}))
    last.handle(logging.makeLogRecord({"msg": "call.ended"}))  # no job: not a job's event
    assert (last.pop("a"), last.pop("b"), last.pop("a")) == ("call.memory_plan", "call.ended", None)
    assert not is_call_event("call.lost") and not is_call_event(None)


def test_livekit_content_fields_are_blanked_and_nothing_else() -> None:
    record = logging.makeLogRecord(
        {"msg": "conversation_item_added", "lk.pii.text": "Hello +34600111222", "role": "user"}
    )
    assert ContentScrubber().filter(record)
    assert vars(record)["lk.pii.text"] == REDACTED and vars(record)["role"] == "user"
