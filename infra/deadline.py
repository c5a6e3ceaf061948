"""A deadline that returns on time, whatever the database does.

`asyncio.wait_for` waits for the task it cancels, and a cancelled asyncpg query first asks the
server to cancel it and waits for the answer before its connection goes back to the pool: on a
stalled server `wait_for(query, 0.35)` returns when the server wakes up. `within` runs the work
as a task of its own instead. At the deadline the caller gets `Late` at once; the task is
cancelled and held by an `Abandoned` holder until it ends in the background (asyncpg sends the
cancel and, past the pool's command timeout, terminates the connection), and how it ended is
retrieved and logged as a code.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import structlog

T = TypeVar("T")
log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class Deadline:
    """A point in `time.monotonic()` time."""

    at: float

    @classmethod
    def after(cls, seconds: float, *, start: float | None = None) -> Deadline:
        return cls((time.monotonic() if start is None else start) + seconds)

    def remaining(self) -> float:
        return max(0.0, self.at - time.monotonic())


class Bound(Protocol):
    """Bounds one step of a call: an HTTP route passes its database deadline this way, so each
    database step is bounded by it and a model's request keeps its own timeout (a failure then
    names whoever was late)."""

    def __call__(self, step: Awaitable[T], /) -> Awaitable[T]: ...


async def unbounded(step: Awaitable[T]) -> T:
    """The `Bound` that adds none."""
    return await step


class Late(Exception):
    """Work did not end before its deadline; `step` names what was still running."""

    def __init__(self, step: str) -> None:
        super().__init__(f"{step} did not finish before its deadline")
        self.step = step


class Abandoned:
    """Tasks given up at a deadline, held until they end; each ending is retrieved and logged."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Future[Any]] = set()

    def __len__(self) -> int:
        return len(self._tasks)

    def hold(self, task: asyncio.Future[Any], step: str, *, cancel: bool = True) -> None:
        """Keep `task` until it ends; `cancel=False` lets it finish (a write whose outcome
        must land whenever the database answers, never be half-cancelled)."""
        if cancel:
            task.cancel()
        self._tasks.add(task)
        task.add_done_callback(_ended(self._tasks, step))

    async def settle(self, within_seconds: float) -> bool:
        """Wait (bounded) until every held task ended; True when none is left."""
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=within_seconds)
        return not self._tasks


def _ended(tasks: set[asyncio.Future[Any]], step: str) -> Callable[[asyncio.Future[Any]], None]:
    def done(task: asyncio.Future[Any]) -> None:
        tasks.discard(task)
        if task.cancelled():
            ending, error = "cancelled", None
        else:
            error = task.exception()
            ending = "finished" if error is None else "failed"
        log.info(
            "deadline.abandoned_ended",
            step=step,
            ending=ending,
            error_type=None if error is None else type(error).__name__,
        )

    return done


ABANDONED = Abandoned()  # the process's holder; tests pass their own to observe it


async def within(
    deadline: Deadline,
    work: Awaitable[T],
    *,
    step: str,
    holder: Abandoned = ABANDONED,
    let_finish: bool = False,
) -> T:
    """The work's result, or `Late(step)` at the deadline without waiting for the work to stop.

    The work's own exceptions pass through. Cancelling the caller abandons the work the same way.
    `let_finish`: abandoned work is not cancelled but left to end on its own (a write that must
    land whole whenever the database answers; the pool's command timeout still bounds it).
    """
    task = asyncio.ensure_future(work)
    try:
        done, _ = await asyncio.wait({task}, timeout=deadline.remaining())
    except asyncio.CancelledError:
        holder.hold(task, step, cancel=not let_finish)
        raise
    if task in done:
        return task.result()
    holder.hold(task, step, cancel=not let_finish)
    raise Late(step)
