"""What a voice job will decide about memory for a room or call it has not opened yet, said to
whoever starts it (`POST /api/voice/rooms`, `POST /api/voice/calls`, `caller-memory dial`).

The agent's bound identity key comes from its stored settings; the caller (a browser, or none
yet for a call still dialing) and the dispatch metadata are resolved by the job's own rule
(`lifecycle.identity.resolve_identity`), so the answer is the job's decision, read early. A
call goes out whatever the database does: settings that cannot be read are `enabled: false`
with the job's own reason, `settings_unavailable` (the job reads them again when the callee
answers).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TypeVar

import asyncpg

from lifecycle.identity import resolve_identity
from memory.contract import Unavailable
from memory.store import DB_ERRORS, Queryable, StoredSettings, load_settings
from sip.caller import Caller
from sip.job_metadata import parse_job_metadata
from worker.http.server.answers import MemoryOutlook

T = TypeVar("T")
Bound = Callable[[Awaitable[T]], Awaitable[T]]
CLOSE_SECONDS = 1.0
UNREADABLE = "settings_unavailable"
"""The job's own reason when it cannot read the agent's settings."""


def outlook_of(stored: StoredSettings, caller: Caller | None, metadata: str) -> MemoryOutlook:
    """The job's decision for this caller (None: still dialing) and dispatch metadata."""
    key = None if stored.binding is None else stored.binding.identity_key
    identity = resolve_identity(key, caller, parse_job_metadata(metadata))
    return MemoryOutlook(
        identity_key=key,
        enabled=identity.user_id is not None,
        reason=None if identity.reason is None else identity.reason.value,
    )


def unreadable() -> MemoryOutlook:
    """A call's outlook while the agent's settings cannot be read."""
    return MemoryOutlook(identity_key=None, enabled=False, reason=UNREADABLE)


async def read_outlook(
    db: Queryable, bound: Bound[StoredSettings], agent_id: str, caller: Caller | None, metadata: str
) -> MemoryOutlook:
    """`outlook_of` the agent's stored settings, read within `bound` (failures raise)."""
    return outlook_of(await bound(load_settings(db, agent_id)), caller, metadata)


async def call_outlook(
    db: Queryable, bound: Bound[StoredSettings], agent_id: str, metadata: str
) -> MemoryOutlook:
    """An outbound call's outlook (no caller yet); `unreadable()` when the settings cannot be
    read now."""
    try:
        return await read_outlook(db, bound, agent_id, None, metadata)
    except (Unavailable, *DB_ERRORS):
        return unreadable()


async def call_outlook_at(
    url: str | None, agent_id: str, metadata: str, seconds: float
) -> MemoryOutlook:
    """`call_outlook` over one connection to `url` (None: no database known), all within
    `seconds`: what `caller-memory dial` says beside the call it started."""
    if url is None:
        return unreadable()
    conn: asyncpg.Connection | None = None
    try:
        async with asyncio.timeout(seconds):
            conn = await asyncpg.connect(url, statement_cache_size=0)
            return await call_outlook(conn, _as_is, agent_id, metadata)
    except (*DB_ERRORS, ValueError):  # ValueError: a URL asyncpg cannot parse
        return unreadable()
    finally:
        if conn is not None:
            with contextlib.suppress(*DB_ERRORS):
                await conn.close(timeout=CLOSE_SECONDS)


async def _as_is(work: Awaitable[T]) -> T:
    return await work
