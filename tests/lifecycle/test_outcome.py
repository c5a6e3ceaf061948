"""The outcome on a call record, from what happened in order (pure, a table)."""

from __future__ import annotations

import pytest
from livekit import rtc
from livekit.agents import CloseReason
from livekit.agents.voice.room_io.types import DEFAULT_CLOSE_ON_DISCONNECT_REASONS

from lifecycle.outcome import (
    CLOSING_DISCONNECT_REASONS,
    CallerLeft,
    EndFact,
    JobShutdown,
    Outcome,
    SessionClosed,
    caller_outcome,
    decide,
    final_outcome,
)

USER = SessionClosed("user_initiated")
DRAIN = JobShutdown("parent process shutdown")

TABLE: list[tuple[str, list[EndFact], Outcome | None, Outcome]] = [
    # (case, facts in arrival order, decided now, final)
    (
        "RoomIO closes on a hang-up",
        [SessionClosed("participant_disconnected")],
        Outcome.CALLER_HUNG_UP,
        Outcome.CALLER_HUNG_UP,
    ),
    (
        "SIP leg ends, any reason",
        [CallerLeft("SIP_TRUNK_FAILURE"), USER],
        Outcome.CALLER_HUNG_UP,
        Outcome.CALLER_HUNG_UP,
    ),
    (
        "hang-up, then the room goes",
        [
            CallerLeft("CLIENT_INITIATED"),
            SessionClosed("participant_disconnected"),
            JobShutdown("room disconnected"),
        ],
        Outcome.CALLER_HUNG_UP,
        Outcome.CALLER_HUNG_UP,
    ),
    (
        "caller removed by the service",
        [CallerLeft("ROOM_DELETED")],
        Outcome.JOB_SHUTDOWN,
        Outcome.JOB_SHUTDOWN,
    ),
    ("caller dropped by an agent error", [CallerLeft("AGENT_ERROR")], Outcome.ERROR, Outcome.ERROR),
    (
        "runner closes for ctx.shutdown()",
        [USER, JobShutdown("operator ended it")],
        Outcome.JOB_SHUTDOWN,
        Outcome.JOB_SHUTDOWN,
    ),
    ("runner closes for a worker stop", [USER, DRAIN], Outcome.WORKER_DRAIN, Outcome.WORKER_DRAIN),
    (
        "runner closes after a crash",
        [USER, JobShutdown("job crashed")],
        Outcome.ERROR,
        Outcome.ERROR,
    ),
    (
        "runner closes, the room went away",
        [USER, JobShutdown("room disconnected")],
        Outcome.JOB_SHUTDOWN,
        Outcome.JOB_SHUTDOWN,
    ),
    ("agent code closes, job keeps running", [USER], None, Outcome.AGENT_ENDED),
    (
        "EndCallTool: close, then ctx.shutdown(reason)",
        [USER, JobShutdown("user_initiated")],
        Outcome.AGENT_ENDED,
        Outcome.AGENT_ENDED,
    ),
    ("session error", [SessionClosed("error")], Outcome.ERROR, Outcome.ERROR),
    (
        "session error, then a worker stop",
        [SessionClosed("error"), DRAIN],
        Outcome.ERROR,
        Outcome.ERROR,
    ),
    (
        "a hang-up after the close ended nothing",
        [USER, CallerLeft("CLIENT_INITIATED"), DRAIN],
        Outcome.WORKER_DRAIN,
        Outcome.WORKER_DRAIN,
    ),
    (
        "shutdown callback before any close",
        [DRAIN, USER],
        Outcome.WORKER_DRAIN,
        Outcome.WORKER_DRAIN,
    ),
    (
        "the session's own shutdown close",
        [SessionClosed("job_shutdown")],
        None,
        Outcome.JOB_SHUTDOWN,
    ),
    (
        "dial failed: job ends itself",
        [JobShutdown("dial_busy")],
        Outcome.JOB_SHUTDOWN,
        Outcome.JOB_SHUTDOWN,
    ),
]


@pytest.mark.parametrize(("case", "facts", "now", "final"), TABLE, ids=[row[0] for row in TABLE])
def test_outcome_table(
    case: str, facts: list[EndFact], now: Outcome | None, final: Outcome
) -> None:
    assert decide(facts) == now
    assert final_outcome(facts) == final


def test_every_close_reason_is_handled() -> None:
    for reason in CloseReason:
        assert final_outcome([SessionClosed(reason.value)]) in set(Outcome)


@pytest.mark.parametrize("name", rtc.DisconnectReason.keys())
def test_every_sip_disconnect_reason_ends_the_call(name: str) -> None:
    """A SIP leg that ended never comes back: every reason is decisive."""
    assert decide([CallerLeft(name)]) == caller_outcome(name)
    expected = {
        "ROOM_DELETED": Outcome.JOB_SHUTDOWN,
        "ROOM_CLOSED": Outcome.JOB_SHUTDOWN,
        "PARTICIPANT_REMOVED": Outcome.JOB_SHUTDOWN,
        "SERVER_SHUTDOWN": Outcome.JOB_SHUTDOWN,
        "AGENT_ERROR": Outcome.ERROR,
    }.get(name, Outcome.CALLER_HUNG_UP)
    assert caller_outcome(name) == expected


def test_the_documented_closing_reasons_are_livekits() -> None:
    """RoomIO closes the session by itself only for these (livekit-agents 1.8.x)."""
    livekit = {rtc.DisconnectReason.Name(r) for r in DEFAULT_CLOSE_ON_DISCONNECT_REASONS}
    assert (
        livekit
        == CLOSING_DISCONNECT_REASONS
        == {"CLIENT_INITIATED", "ROOM_DELETED", "USER_REJECTED"}
    )
