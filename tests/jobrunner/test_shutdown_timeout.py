"""A job whose save is stuck, under the worker's shutdown timeout.

livekit gives a job process `shutdown_process_timeout` to finish once the worker stops it,
then kills it (PROCESS executor; a THREAD job cannot be killed and is only reported). The
worker sets that timeout above the save's whole bound, so a stuck save ends as a failure of
its own, nothing half-written, and the job exits before livekit would give up on it.
"""

from __future__ import annotations

import logging
import time

import asyncpg
import pytest
import structlog.testing

from callmemory.config import SHUTDOWN_PROCESS_TIMEOUT_MARGIN
from lifecycle.closing import SETTLE_SECONDS
from testkit.job_runner import FakeCallSide, call_records, dispatch, job_server
from testkit.mock_room import SIP, MockRoom, participant
from testkit.model_server import ModelServer
from worker.agent import build_server

SHORT_SAVE = 1.5


def test_the_job_outlives_every_bound_of_its_save() -> None:
    server = build_server("support", SHORT_SAVE, lambda models: None)  # type: ignore[arg-type,return-value]
    assert SHUTDOWN_PROCESS_TIMEOUT_MARGIN > SETTLE_SECONDS
    assert server._shutdown_process_timeout == SHORT_SAVE + SHUTDOWN_PROCESS_TIMEOUT_MARGIN


async def test_a_stuck_save_fails_by_itself_before_the_shutdown_timeout(
    job_env: None,
    *,
    monkeypatch: pytest.MonkeyPatch,
    room: MockRoom,
    side: FakeCallSide,
    model_server: ModelServer,
    pool: asyncpg.Pool,
    database_url: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setenv("STACKBONE_MEMORY_TIMEOUT_SECONDS", "1")
    monkeypatch.setenv("CALL_SAVE_TIMEOUT_SECONDS", str(SHORT_SAVE))
    room.join(participant("sip_caller", SIP, {"sip.phoneNumber": "+34600111222"}))
    model_server.answer([], "Never written.")
    blocker = await asyncpg.connect(database_url)
    tx = blocker.transaction()
    caplog.set_level(logging.ERROR, logger="livekit.agents")
    try:
        with structlog.testing.capture_logs() as logs:
            async with job_server(side, SHORT_SAVE) as server:
                await dispatch(server)
                await side.greeted()
                await tx.start()  # the call record's insert will wait behind this lock
                await blocker.execute(
                    "lock table stackbone_platform.memory_calls in exclusive mode"
                )
                stopping = time.monotonic()
            stopped = time.monotonic() - stopping  # the worker stop returned: the job ended
    finally:
        await tx.rollback()
        await blocker.close()
    saves = [e for e in logs if e["event"] == "call.save_finished"]
    assert [(e["status"], e["reason"]) for e in saves] == [("failed", "save_timeout")]
    assert len(model_server.requests) == 1 and await call_records(pool) == []
    assert stopped < SHORT_SAVE + SHUTDOWN_PROCESS_TIMEOUT_MARGIN
    assert "taking too much time" not in caplog.text  # livekit never gave up on the job
