"""Idempotency keys of adds over HTTP (`memory_idempotency`, migration 0029).

One row per agent, person and key: a request claims the key by inserting it with its body's
digest and no answer, stores the answer once its add committed, or drops its claim when the add
failed (a retry runs again). Each step is one statement, so one short transaction, fine through
a transaction pooler. A claim is told apart from a later one of the same key by its
`created_at` (the claim's token), so a request whose stale claim was taken over changes nothing.
Rows older than the key's life are claimed again as new, and deleted in batches by the ops log's
retention pass (`expire_keys`); a person's rows go with `MemoryStore.delete_all`.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime

import asyncpg

from memory.contract import PersistFailed, Unavailable
from memory.store._db_errors import translated

_T = "stackbone_platform.memory_idempotency"
KEY_LIFE_SECONDS = 24 * 3600.0
"""How long a key's answer is kept (and the key refused for another body)."""
DEFAULT_BATCH = 1000


@dataclass(frozen=True, slots=True)
class KeyOf:
    """A key as it is scoped: the same key for another agent or person is another key."""

    agent_id: str
    user_id: str
    key: str


@dataclass(frozen=True, slots=True)
class Claimed:
    """This request holds the key: run the add. `token`: the claim's time, its identity."""

    token: datetime


@dataclass(frozen=True, slots=True)
class Found:
    """Another request holds or held the key: its body's digest and, once done, its answer."""

    body_digest: str
    answer: str | None


_CLAIM = f"""with claimed as (
    insert into {_T} as t (agent_id, user_id, key, body_digest)
    values ($1, $2, $3, $4)
    on conflict (agent_id, user_id, key) do update
        set body_digest = excluded.body_digest, answer = null, created_at = now()
        where t.created_at < now() - make_interval(secs => $5)
           or (t.answer is null and t.created_at < now() - make_interval(secs => $6))
    returning created_at
)
select true as mine, created_at, null::text as body_digest, null::text as answer from claimed
union all
select false, created_at, body_digest, answer from {_T}
 where agent_id = $1 and user_id = $2 and key = $3 and not exists (select from claimed)"""

_ANSWER = f"""update {_T} set answer = $5
    where agent_id = $1 and user_id = $2 and key = $3 and created_at = $4 and answer is null"""

_RELEASE = f"""delete from {_T}
    where agent_id = $1 and user_id = $2 and key = $3 and created_at = $4 and answer is null"""

_EXPIRE = f"""with doomed as (
    select agent_id, user_id, key from {_T}
    where created_at < now() - make_interval(secs => $1)
    order by created_at limit $2
    for update skip locked
), gone as (
    delete from {_T} t using doomed d
    where t.agent_id = d.agent_id and t.user_id = d.user_id and t.key = d.key
    returning 1
)
select count(*) from gone"""


def _scope(key: KeyOf) -> tuple[str, str, str]:
    return key.agent_id, key.user_id, key.key


async def claim_key(
    pool: asyncpg.Pool, key: KeyOf, body_digest: str, *, stale_after_seconds: float
) -> Claimed | Found | None:
    """Claim the key (a row older than its life, or a claim without an answer older than
    `stale_after_seconds`, is claimed again); else the row found. None: a claim committed
    while this statement ran and is not in its snapshot (a request running at the same time)."""
    async with translated(Unavailable, "idempotency key claim"):
        row = await pool.fetchrow(
            _CLAIM, *_scope(key), body_digest, KEY_LIFE_SECONDS, stale_after_seconds
        )
    if row is None:
        return None
    if row["mine"]:
        return Claimed(row["created_at"])
    return Found(row["body_digest"], row["answer"])


async def keep_answer(pool: asyncpg.Pool, key: KeyOf, claim: Claimed, answer: str) -> bool:
    """Store the answer under the claim; False when the claim is gone (erased, taken over)."""
    async with translated(PersistFailed, "idempotency answer"):
        status = await pool.execute(_ANSWER, *_scope(key), claim.token, answer)
    return bool(status.endswith(" 1"))


async def release_key(pool: asyncpg.Pool, key: KeyOf, claim: Claimed) -> None:
    """Drop the claim of a request whose add failed, so a retry runs again."""
    async with translated(PersistFailed, "idempotency release"):
        await pool.execute(_RELEASE, *_scope(key), claim.token)


async def expire_keys(
    pool: asyncpg.Pool,
    older_than_seconds: float = KEY_LIFE_SECONDS,
    *,
    batch: int = DEFAULT_BATCH,
    pause_seconds: float = 0.05,
) -> int:
    """Delete the keys older than their life, `batch` rows a statement until one comes back
    short (rows another pass holds are skipped); how many were deleted."""
    total = 0
    while True:
        async with translated(Unavailable, "idempotency retention"):
            deleted = int(await pool.fetchval(_EXPIRE, older_than_seconds, batch))
        total += deleted
        if deleted < batch:
            return total
        await asyncio.sleep(pause_seconds)
