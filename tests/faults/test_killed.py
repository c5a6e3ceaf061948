"""A server killed (SIGKILL to every Postgres process) while adds are writing, then restarted.

Every add answers an envelope, and every person ends with all of an add or none of it: the
fact, the call record and the revision bump together (an add that failed may still have
committed before the kill; an add that succeeded must have).
"""

from __future__ import annotations

import asyncio
import itertools

import asyncpg
import pytest

from infra.database import PoolTimeouts, close_pool, create_pool
from memory.api import Memory, open_memory
from memory.config import MemoryConfig
from memory.contract._envelope import Result
from memory.contract._models import AddOutcome
from memory.store._facts import MemoryStore
from testkit.model_server import ModelServer
from tests.faults.server import FaultServer

ROUNDS = 3
ADDS_PER_ROUND = 40
WORKERS = 8
KILL_AFTER_SAVED = 8
AGENT = "support"
S = "stackbone_platform"


async def _adds(memory: Memory, users: list[str], saved: asyncio.Event) -> list[tuple[str, object]]:
    """Adds from WORKERS concurrent callers; `saved` fires after KILL_AFTER_SAVED successes."""
    queue = list(users)
    results: list[tuple[str, object]] = []
    ok = itertools.count(1)

    async def worker() -> None:
        while queue:
            user = queue.pop()
            try:
                result: object = await memory.add("I like tea.", AGENT, user)
            except Exception as exc:  # an envelope leak: recorded, asserted below
                result = exc
            results.append((user, result))
            if isinstance(result, Result) and result.error is None and next(ok) >= KILL_AFTER_SAVED:
                saved.set()

    await asyncio.gather(*(worker() for _ in range(WORKERS)))
    return results


async def _person(pool: asyncpg.Pool, user: str) -> tuple[int, int, int]:
    facts = await pool.fetchval(f"select count(*) from {S}.memory_facts where user_id = $1", user)
    calls = await pool.fetchval(f"select count(*) from {S}.memory_calls where user_id = $1", user)
    revision = await pool.fetchval(
        f"select revision from {S}.memory_revisions where user_id = $1", user
    )
    return facts, calls, revision or 0


@pytest.mark.parametrize("round_", range(ROUNDS))
async def test_server_killed_mid_write_leaves_no_partial_write(
    fault_server: FaultServer,
    fault_db: str,
    model_server: ModelServer,
    memory_config: MemoryConfig,
    round_: int,
) -> None:
    timeouts = PoolTimeouts(command_seconds=2.0)
    pool = await create_pool(fault_db, min_size=1, max_size=WORKERS, timeouts=timeouts)
    memory = open_memory(MemoryStore(pool), memory_config)
    for _ in range(ADDS_PER_ROUND):
        model_server.answer([{"op": "add", "handle": None, "content": "Likes tea."}], "Tea.")
    users = [f"+34 {round_} {i}" for i in range(ADDS_PER_ROUND)]
    saved = asyncio.Event()
    adding = asyncio.ensure_future(_adds(memory, users, saved))
    enough = asyncio.ensure_future(saved.wait())
    await asyncio.wait({adding, enough}, timeout=30, return_when=asyncio.FIRST_COMPLETED)
    enough.cancel()
    fault_server.kill()
    results = await asyncio.wait_for(adding, 30)
    fault_server.start()
    await close_pool(pool, 1.0)
    pool = await create_pool(fault_db, min_size=1, max_size=2, timeouts=timeouts)
    try:
        people = {user: await _person(pool, user) for user in users}
    finally:
        await close_pool(pool, 1.0)
    leaked = [r for _, r in results if not isinstance(r, Result)]
    failed = [(u, r) for u, r in results if isinstance(r, Result) and r.error is not None]
    partial = [u for u, p in people.items() if p not in {(0, 0, 0), (1, 1, 1)}]
    lost = [
        u
        for u, r in results
        if isinstance(r, Result) and r.error is None and people[u] != (1, 1, 1)
    ]
    print(
        f"\nround {round_}: tried {len(results)}, saved {len(results) - len(failed) - len(leaked)},"
        f" failed {len(failed)} ({sorted({r.error.code for _, r in failed if r.error})}),"
        f" leaked {len(leaked)}, partial {len(partial)}, lost {len(lost)}"
    )
    assert len(results) == ADDS_PER_ROUND
    assert leaked == []  # every add answered an envelope
    assert partial == [] and lost == []
    assert failed, "the kill landed after every add had finished"
    assert all(
        isinstance(r, Result) and isinstance(r.data, AddOutcome)
        for u, r in results
        if (u, r) not in failed
    )
