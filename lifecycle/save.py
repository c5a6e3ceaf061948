"""The one save of a call.

Whichever close path fires first (caller hang-up, the agent ending the call, job shutdown,
worker drain, a session error) starts the save; every later path awaits the same completion,
failure included. The save runs once and is never retried.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Literal

import structlog

from infra.deadline import Deadline, Late, within
from lifecycle.metrics import count_save

log = structlog.get_logger(__name__)

SaveStatus = Literal["saved", "skipped", "failed"]


@dataclass(frozen=True, slots=True)
class SaveReport:
    """How the save ended; `reason` is a code (memory error code or skip reason), never text."""

    status: SaveStatus
    reason: str | None = None
    trigger: str | None = None


class SharedSave:
    """Starts the save on the first trigger and hands every caller the same task."""

    def __init__(self, save: Callable[[str], Awaitable[SaveReport]], *, timeout: float) -> None:
        self._save = save
        self._timeout = timeout
        self._task: asyncio.Task[SaveReport] | None = None
        # the call's context (its room and job, bound for logs) whichever path triggers the save
        self._context = contextvars.copy_context()

    @property
    def started(self) -> bool:
        return self._task is not None

    def trigger(self, path: str) -> asyncio.Task[SaveReport]:
        """Start the save if no path has yet; safe to call from synchronous event callbacks."""
        if self._task is None:
            self._task = asyncio.create_task(
                self._run(path), name="call-save", context=self._context
            )
            self._task.add_done_callback(_retrieve_failure)
        return self._task

    async def wait(self, path: str) -> SaveReport:
        """Trigger (if first) and await the shared result; cancelling a waiter keeps the save."""
        return await asyncio.shield(self.trigger(path))

    async def _run(self, path: str) -> SaveReport:
        try:
            # like the greeting's deadline: a save stuck on a stalled server is abandoned to
            # the background at the timeout instead of holding the job until the server answers
            report = await within(Deadline.after(self._timeout), self._save(path), step="save")
        except Late:
            report = SaveReport("failed", "save_timeout", path)
        log.info("call.save_finished", status=report.status, reason=report.reason, trigger=path)
        count_save(report.status, report.reason)
        return report


def _retrieve_failure(task: asyncio.Task[SaveReport]) -> None:
    """Log a crashed save even when no close path is left to await it."""
    if not task.cancelled() and (error := task.exception()) is not None:
        log.error("call.save_crashed", error_type=type(error).__name__)
