"""A claimed session's lease, kept while the turn runs, and the turn stopped when it lapses.

The claim is short (`LEASE_SECONDS`) so that a turn that can no longer speak for its session (a
killed process, a database that stopped answering) frees it soon. While the turn runs, a held
task renews the lease every third of it. Each renewal is bounded by what is left of the lease,
counted from when the claim or the last renewal was sent (never later than the database
counts it), so the turn learns it lost the lease no later than the database frees it: the
turn is then cancelled and answers `Unavailable` (503) before any other claim can begin, and
the fencing token refuses whatever it might still try to write. Two turns never run on one
session at once.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Final

import structlog

from chat.config import DEFAULT_LEASE_SECONDS
from chat.session_claim import Claim, ClaimLost, renew
from infra.deadline import Deadline, Late, within
from memory.contract import MemoryFailure, Unavailable
from memory.store import Queryable

log = structlog.get_logger(__name__)
LEASE_SECONDS: Final = DEFAULT_LEASE_SECONDS
RETRY_SECONDS: Final = 0.25
"""How soon a failed renewal is tried again while the lease lasts."""


class _Keeper:
    def __init__(self, db: Queryable, held: Claim, lease_seconds: float) -> None:
        self.db, self.held, self.lease = db, held, lease_seconds
        self.expires = held.sent_at + lease_seconds
        self.lost: MemoryFailure | ClaimLost | None = None

    async def keep(self, turn: asyncio.Task[object]) -> None:
        wait = self.lease / 3
        while True:
            await asyncio.sleep(wait)
            left = self.expires - time.monotonic()
            if left <= 0:
                self._lose(turn, Unavailable("the session's lease could not be renewed in time"))
                return
            sent = time.monotonic()
            try:
                still = await within(
                    Deadline.after(left), renew(self.db, self.held, self.lease), step="chat.renew"
                )
            except (Late, MemoryFailure) as failure:
                code = "renew_late" if isinstance(failure, Late) else failure.code
                log.warning("chat.renew_failed", error_code=code)
                wait = RETRY_SECONDS
                continue
            if not still:
                self._lose(turn, ClaimLost())
                return
            self.expires, wait = sent + self.lease, self.lease / 3

    def _lose(self, turn: asyncio.Task[object], why: MemoryFailure | ClaimLost) -> None:
        log.warning("chat.lease_lost", error_code=why.code)
        self.lost = why
        turn.cancel()


@asynccontextmanager
async def kept_lease(
    db: Queryable, held: Claim | None, lease_seconds: float = LEASE_SECONDS
) -> AsyncIterator[None]:
    """Renew `held` while the block runs; a lapsed lease cancels the block and raises its
    reason (`Unavailable`, or `ClaimLost` when another turn took the session)."""
    turn = asyncio.current_task()
    if held is None or turn is None:
        yield
        return
    keeper = _Keeper(db, held, lease_seconds)
    task = asyncio.create_task(keeper.keep(turn), name="chat.lease")
    try:
        yield
    except asyncio.CancelledError:
        if keeper.lost is None:
            raise
        turn.uncancel()
        raise keeper.lost from None
    finally:
        await _stop(task, turn, keeper)


async def _stop(task: asyncio.Task[None], turn: asyncio.Task[object], keeper: _Keeper) -> None:
    """End the renewals; a cancel the keeper sent after the block ended is taken back (the
    record's fencing token decides whether the turn is kept)."""
    task.cancel()
    try:
        await asyncio.wait([task])
    except asyncio.CancelledError:
        if keeper.lost is None:
            raise
        turn.uncancel()
