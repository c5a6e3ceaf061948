"""Every path that ends a call leads to the same single save.

- the session's `close` event (caller hang-up, the agent ending the call, a session error,
  and the job runner closing the session on job shutdown or worker drain) starts the save;
- a job shutdown callback awaits the same save, which keeps the job process alive until it
  ends (the worker's shutdown timeout is configured above the save timeout).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Callable, Coroutine
from datetime import UTC, datetime
from typing import Any

from livekit.agents import AgentSession, CloseEvent

from lifecycle.outcome import call_outcome
from lifecycle.plan import MemoryPlan
from lifecycle.save import SaveReport, SharedSave
from lifecycle.saving import CallScope, save_heard
from memory.api import Memory
from transcript.recorder import TranscriptRecorder

ShutdownRegistrar = Callable[[Callable[[str], Coroutine[Any, Any, None]]], None]

CLOSE_PREFIX = "close:"
SHUTDOWN_PREFIX = "shutdown:"


def shared_save(
    memory: Memory,
    plan: MemoryPlan,
    recorder: TranscriptRecorder,
    *,
    started_at: datetime,
    run_id: str,
    timeout: float,
) -> SharedSave:
    """The call's one save: the heard transcript, the outcome of the first close path."""

    async def save(path: str) -> SaveReport:
        if not plan.save or plan.user_id is None:
            return SaveReport("skipped", plan.reason or "save_off", path)
        scope = CallScope(
            plan.agent_id, plan.user_id, plan.instructions, started_at, run_id, plan.brief
        )
        report = await save_heard(
            memory,
            scope,
            recorder.transcript,
            ended_at=datetime.now(UTC),
            outcome=_outcome(path),
        )
        return SaveReport(report.status, report.reason, path)

    return SharedSave(save, timeout=timeout)


def _outcome(path: str) -> str:
    if path.startswith(CLOSE_PREFIX):
        return call_outcome(path.removeprefix(CLOSE_PREFIX))
    return call_outcome(None, path.removeprefix(SHUTDOWN_PREFIX))


def save_on_close(
    session: AgentSession[Any],
    register_shutdown: ShutdownRegistrar,
    save: SharedSave,
    *,
    then: Callable[[], Awaitable[None]] | None = None,
) -> None:
    """Wire the close event and the job shutdown callback to the one save.

    `then` runs after the save in the same callback (closing the job's pool): livekit runs
    shutdown callbacks concurrently, so a separate callback could close it mid-save.
    """

    def on_close(event: CloseEvent) -> None:
        save.trigger(CLOSE_PREFIX + event.reason.value)

    async def on_shutdown(reason: str) -> None:
        # a raising shutdown callback makes livekit cancel the others: never raise from here
        with contextlib.suppress(Exception):
            await save.wait(SHUTDOWN_PREFIX + reason)
        if then is not None:
            with contextlib.suppress(Exception):
                await then()

    session.on("close", on_close)
    register_shutdown(on_shutdown)
