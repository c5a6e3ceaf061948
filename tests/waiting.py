"""Waiting in a test for a condition: poll it until it holds, within a bound made for a busy
machine (a wait, never a measurement: on a quiet machine the condition holds long before)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

T = TypeVar("T")

BUSY_MACHINE_SECONDS = 30.0
"""How long a test waits for something that takes milliseconds on a quiet machine."""


async def eventually(
    probe: Callable[[], Awaitable[T | None]],
    what: str,
    within: float = BUSY_MACHINE_SECONDS,
    every: float = 0.05,
) -> T:
    """The first truthy value `probe()` returns; TimeoutError naming `what` after `within` s."""
    deadline = time.monotonic() + within
    while True:
        if value := await probe():
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{what}: not within {within} s")
        await asyncio.sleep(every)
