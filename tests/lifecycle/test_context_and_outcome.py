"""Pure pieces of the call: the call outcome (the memory block is in test_memory_block)."""

from __future__ import annotations

import pytest

from lifecycle.outcome import call_outcome


@pytest.mark.parametrize(
    ("close", "shutdown", "expected"),
    [
        ("participant_disconnected", None, "caller_hung_up"),
        ("user_initiated", "room disconnected", "agent_ended"),
        ("error", None, "error"),
        ("job_shutdown", None, "job_shutdown"),
        (None, "parent process shutdown", "worker_drain"),
        (None, "job crashed", "job_shutdown"),
        (None, None, "ended"),
    ],
)
def test_outcome_codes(close: str | None, shutdown: str | None, expected: str) -> None:
    assert call_outcome(close, shutdown) == expected
