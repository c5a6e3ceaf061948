"""The plain rules behind the job-process logs: lost calls, call events, livekit's content."""

from __future__ import annotations

import logging
import signal

import pytest

from infra.logs import REDACTED, ContentScrubber
from memory.store import HeardTurns
from worker.job_watch import (
    LastCallEvents,
    heard_fields,
    is_call_event,
    killed_by_livekit,
    lost_call,
)


@pytest.mark.parametrize(
    ("exit_code", "lost"), [(0, False), (None, False), (-9, True), (1, True), (255, True)]
)
def test_a_job_process_that_did_not_exit_cleanly_lost_its_call(
    exit_code: int | None, lost: bool
) -> None:
    assert lost_call(exit_code) is lost


@pytest.mark.parametrize(
    ("killed", "exit_code", "by_livekit"),
    [
        (True, -signal.SIGKILL, True),  # marked killed: livekit's SIGKILL
        (False, -signal.SIGUSR1, True),  # dead of the SIGUSR1 livekit's kill sends first
        (False, -signal.SIGKILL, False),  # someone else's SIGKILL (the OOM killer, a test)
        (False, 1, False),
    ],
)
def test_a_process_livekit_began_to_kill_was_killed_by_livekit(
    killed: bool, exit_code: int, by_livekit: bool
) -> None:
    assert killed_by_livekit(killed, exit_code) is by_livekit


def test_lost_calls_say_what_the_journal_held_or_why_not() -> None:
    assert heard_fields(HeardTurns(caller=2, agent=3), "none") == {
        "journal": "held",
        "caller_turns": 2,
        "agent_turns": 3,
    }
    for why in ("none", "unreadable", "off"):
        assert heard_fields(None, why) == {
            "journal": why,
            "caller_turns": None,
            "agent_turns": None,
        }


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
