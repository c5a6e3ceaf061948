"""The outcome stored on a call record, derived from how the call ended."""

from __future__ import annotations

# livekit-agents CloseReason values and job shutdown reasons -> short outcome codes
_OUTCOMES = {
    "participant_disconnected": "caller_hung_up",
    "user_initiated": "agent_ended",
    "task_completed": "agent_ended",
    "job_shutdown": "job_shutdown",
    "error": "error",
}


def call_outcome(close_reason: str | None, shutdown_reason: str | None = None) -> str:
    """A short outcome code: the session's close reason first, else the job's shutdown reason."""
    if close_reason in _OUTCOMES:
        return _OUTCOMES[close_reason]
    if shutdown_reason:
        return "worker_drain" if "shutdown" in shutdown_reason else "job_shutdown"
    return "ended"
