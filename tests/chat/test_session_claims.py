"""A session's claim (issue 31, defect 5): a short lease renewed while the turn runs, and a
fencing token so that a turn whose lease lapsed can never write after another turn took over."""

from __future__ import annotations

import asyncio
import time

import asyncpg
import pytest

from chat import (
    Claim,
    ClaimLost,
    SessionBusy,
    TurnRecord,
    address_of,
    claim,
    kept_lease,
    open_session,
    record,
    release,
)

ADDRESS = address_of("session", "support", "k", "customerId", {"customerId": "crm/1"})
SHORT = 1.0  # seconds: a lease that lapses within the test (renewed every third)


def _turn(reply: str) -> TurnRecord:
    said = [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": reply}]
    return TurnRecord(said, "Hi", reply, 1, 1, 1.0)


async def _claim_when_free(pool: asyncpg.Pool, within: float = 5.0) -> Claim:
    deadline = time.monotonic() + within
    while True:
        try:
            return await claim(pool, ADDRESS, 60)
        except SessionBusy:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.02)


async def test_a_lapsed_claim_is_taken_over_and_its_late_writes_change_nothing(
    pool: asyncpg.Pool,
) -> None:
    old = await claim(pool, ADDRESS, SHORT)
    with pytest.raises(SessionBusy):
        await claim(pool, ADDRESS, 60)  # the lease runs: one turn at a time
    new = await _claim_when_free(pool)  # the old turn stopped renewing: the lease lapsed
    assert new.token > old.token
    with pytest.raises(ClaimLost):
        await record(pool, old, _turn("late"))
    await release(pool, old)  # the old turn's release frees nothing
    with pytest.raises(SessionBusy):
        await claim(pool, ADDRESS, 60)
    await record(pool, new, _turn("kept"))
    _, turns = await open_session(pool, "support", ADDRESS.id)
    assert [t.reply for t in turns] == ["kept"]


async def test_a_running_turn_renews_its_lease(pool: asyncpg.Pool) -> None:
    lease = 2.0  # each renewal may take two thirds of it: 1.3 s on a loaded database, not 0.7 s
    held = await claim(pool, ADDRESS, lease)
    async with kept_lease(pool, held, lease):
        await asyncio.sleep(lease * 2)  # longer than the lease: renewals keep it
        with pytest.raises(SessionBusy):
            await claim(pool, ADDRESS, 60)
    await record(pool, held, _turn("kept"))


async def test_a_turn_whose_claim_was_taken_is_stopped(pool: asyncpg.Pool) -> None:
    held = await claim(pool, ADDRESS, SHORT)
    # another turn took the session (as it would after a lapse the holder did not notice)
    await pool.execute(
        "update stackbone_platform.chat_sessions set claim = claim + 1 where id = $1", ADDRESS.id
    )
    started = time.monotonic()
    with pytest.raises(ClaimLost):
        async with kept_lease(pool, held, SHORT):
            await asyncio.sleep(30)  # a model that would think for long
    assert time.monotonic() - started < 10  # stopped at the first renewal, not after the model
    assert asyncio.current_task().cancelling() == 0  # type: ignore[union-attr]
