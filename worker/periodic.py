"""A held background task that runs one pass every interval, for the life of a block.

The composition's upkeep (the ops log's retention, the recovery of abandoned document ingests)
runs this way in whichever process hosts it. A pass handles its own expected failures; the
task's own end (a bug) is retrieved and logged by type. At the block's end the task is cancelled
and awaited, before the pool it uses is closed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

import structlog

log = structlog.get_logger(__name__)


async def _every(one_pass: Callable[[], Awaitable[object]], interval_seconds: float) -> None:
    while True:
        await one_pass()
        await asyncio.sleep(interval_seconds)


@contextlib.asynccontextmanager
async def running_every(
    name: str, interval_seconds: float, one_pass: Callable[[], Awaitable[object]]
) -> AsyncIterator[asyncio.Task[None]]:
    """`one_pass` at once, then every `interval_seconds`, while the block runs."""
    task = asyncio.create_task(_every(one_pass, interval_seconds), name=name)

    def retrieve(done: asyncio.Task[None]) -> None:
        if not done.cancelled() and (error := done.exception()) is not None:
            log.error("periodic.crashed", task=name, error_type=type(error).__name__)

    task.add_done_callback(retrieve)
    try:
        yield task
    finally:
        task.cancel()
        await asyncio.wait({task})  # its failure, if any, was retrieved and logged
