"""Why a call ended, decided from what happened in order, as the outcome on its call record.

Three kinds of fact arrive while a call ends, and none is enough alone:

- the SIP caller left the room, with LiveKit's disconnect reason (`rtc.DisconnectReason` name);
- the session closed, with its `CloseReason` value;
- the job shut down, with the job runner's reason (the `reason` of `ctx.shutdown(reason)`,
  "parent process shutdown" for a worker stop or drain, "room disconnected", "job crashed").

livekit's job runner closes the primary session (`user_initiated`) *before* it runs the job's
shutdown callbacks, so a `user_initiated` close says only "closed by code in this job": the job
runner on the way to a shutdown whose reason is still to come, or the agent ending the call.
The decision therefore walks the facts in order and lets the first decisive one win; a
`user_initiated` or `job_shutdown` close is not decisive and waits for the job's reason.

Which disconnect reasons close the session by themselves (livekit-agents 1.8.x, RoomIO with
`close_on_disconnect=True`, `DEFAULT_CLOSE_ON_DISCONNECT_REASONS`): `CLIENT_INITIATED`,
`ROOM_DELETED` and `USER_REJECTED`. Every other reason (`SIP_TRUNK_FAILURE`, `MEDIA_FAILURE`,
`CONNECTION_TIMEOUT`, `USER_UNAVAILABLE`, `PARTICIPANT_REMOVED`, `SERVER_SHUTDOWN`, ...) leaves
the session open waiting for the participant to rejoin, which a phone caller never does; so a
SIP participant leaving with any reason is decisive here, and `lifecycle.closing` closes the
session itself. A browser participant is left to RoomIO: its closing reasons arrive as a
`participant_disconnected` close, and with other reasons it may rejoin.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Final


class Outcome(StrEnum):
    """The outcome codes stored on call records."""

    CALLER_HUNG_UP = "caller_hung_up"
    AGENT_ENDED = "agent_ended"
    JOB_SHUTDOWN = "job_shutdown"
    WORKER_DRAIN = "worker_drain"
    ERROR = "error"
    JOB_LOST = "job_lost"  # the job died before its save; the sweeper saved its journal
    SAVE_INTERRUPTED = "save_interrupted"  # the job died during its save; nothing was saved


@dataclass(frozen=True, slots=True)
class CallerLeft:
    """The SIP caller's participant disconnected; `reason` is an `rtc.DisconnectReason` name."""

    reason: str


@dataclass(frozen=True, slots=True)
class SessionClosed:
    """The session's `close` event; `reason` is a `CloseReason` value."""

    reason: str


@dataclass(frozen=True, slots=True)
class JobShutdown:
    """A job shutdown callback ran with this reason."""

    reason: str


EndFact = CallerLeft | SessionClosed | JobShutdown

CLOSING_DISCONNECT_REASONS: Final = frozenset({"CLIENT_INITIATED", "ROOM_DELETED", "USER_REJECTED"})
"""Disconnect reasons on which RoomIO closes the session itself (livekit-agents 1.8.x)."""
_REMOVED_BY_SERVICE: Final = frozenset(
    {"ROOM_DELETED", "ROOM_CLOSED", "PARTICIPANT_REMOVED", "SERVER_SHUTDOWN"}
)
_NOT_DECISIVE_CLOSES: Final = frozenset({"user_initiated", "job_shutdown", "task_completed"})
WORKER_SHUTDOWN_REASON: Final = "parent process shutdown"
JOB_CRASHED_REASON: Final = "job crashed"
_BY_SHUTDOWN_REASON: Final = {
    WORKER_SHUTDOWN_REASON: Outcome.WORKER_DRAIN,
    JOB_CRASHED_REASON: Outcome.ERROR,
    # livekit's EndCallTool shuts the job down with the session's close reason
    "user_initiated": Outcome.AGENT_ENDED,
    "task_completed": Outcome.AGENT_ENDED,
    "participant_disconnected": Outcome.CALLER_HUNG_UP,
    "error": Outcome.ERROR,
}


def decide(facts: Sequence[EndFact]) -> Outcome | None:
    """The outcome the first decisive fact gives, or None while it cannot be known yet."""
    closed = False
    for fact in facts:
        outcome = _decisive(fact, closed=closed)
        if outcome is not None:
            return outcome
        closed = closed or isinstance(fact, SessionClosed)
    return None


def final_outcome(facts: Sequence[EndFact]) -> Outcome:
    """The outcome once no more facts will be waited for.

    A session closed by code in the job with no job shutdown following it was closed by the
    agent side (`session.shutdown()` / `aclose()` in agent code).
    """
    decided = decide(facts)
    if decided is not None:
        return decided
    if _closes(facts) & {"user_initiated", "task_completed"}:
        return Outcome.AGENT_ENDED
    return Outcome.JOB_SHUTDOWN


def caller_outcome(reason: str) -> Outcome:
    """What a caller's disconnect reason says about how the call ended."""
    if reason in _REMOVED_BY_SERVICE:
        return Outcome.JOB_SHUTDOWN
    if reason == "AGENT_ERROR":
        return Outcome.ERROR
    return Outcome.CALLER_HUNG_UP


def shutdown_outcome(reason: str) -> Outcome:
    """What a job shutdown reason says; any other reason is a deliberate job shutdown."""
    return _BY_SHUTDOWN_REASON.get(reason, Outcome.JOB_SHUTDOWN)


def _decisive(fact: EndFact, *, closed: bool) -> Outcome | None:
    if isinstance(fact, CallerLeft):
        # a caller leaving after the session closed did not end the call
        return None if closed else caller_outcome(fact.reason)
    if isinstance(fact, SessionClosed):
        if fact.reason in _NOT_DECISIVE_CLOSES:
            return None
        return Outcome.ERROR if fact.reason == "error" else Outcome.CALLER_HUNG_UP
    return shutdown_outcome(fact.reason)


def _closes(facts: Iterable[EndFact]) -> set[str]:
    return {f.reason for f in facts if isinstance(f, SessionClosed)}
