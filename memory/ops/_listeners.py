"""In-process listeners of `memory.ops` events: called after the write, never able to break it.

A listener is a plain function or a coroutine function taking the event. A raising listener is
logged (its exception type only) and the others still run; a coroutine listener runs as a task
held here until it ends, its failure retrieved and logged the same way.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import structlog

from memory.ops._event import TOPIC, OpsEvent

log = structlog.get_logger(__name__)

DRAIN_SECONDS = 2.0
Listener = Callable[[OpsEvent], Awaitable[None] | None]


class Listeners:
    """The listeners of one memory object, by event name (only `memory.ops` events exist)."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._tasks: set[asyncio.Task[Any]] = set()

    def on(self, event: str, listener: Listener) -> None:
        if event not in ("ops", TOPIC):
            raise ValueError(f"event: unknown event {event!r}, expected 'ops'")
        self._listeners.append(listener)

    def off(self, event: str, listener: Listener) -> None:
        if listener in self._listeners:
            self._listeners.remove(listener)

    def emit(self, event: OpsEvent) -> None:
        for listener in tuple(self._listeners):
            try:
                result = listener(event)
            except Exception as error:
                log.error("memory.ops_listener_failed", error_type=type(error).__name__)
                continue
            if inspect.isawaitable(result):
                self._hold(result)

    async def drain(self, grace_seconds: float = DRAIN_SECONDS) -> None:
        """Wait (at most `grace_seconds`) for the coroutine listeners still running; the ones
        left then are cancelled."""
        if not self._tasks:
            return
        _, late = await asyncio.wait(tuple(self._tasks), timeout=grace_seconds)
        for task in late:
            task.cancel()

    def _hold(self, awaitable: Awaitable[None]) -> None:
        async def run() -> None:
            await awaitable

        task = asyncio.create_task(run(), name="memory-ops-listener")
        self._tasks.add(task)
        task.add_done_callback(self._done)

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and (error := task.exception()) is not None:
            log.error("memory.ops_listener_failed", error_type=type(error).__name__)
