"""The settings snapshot taken once when a room opens: one statement (a job's also checks the
capability: `lifecycle.opening`).

If the settings cannot be read, the call goes on without memory rather than failing. An agent
whose identity key is declared only in code (an agent attached outside this worker, whose
start-up never offered it) offers it on its first call: the snapshot shows no binding, the key
is offered once, and the snapshot is read again.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import asyncpg
import structlog

from memory.contract import MemoryFailure
from memory.settings import CallSettings, CodeDefaults
from memory.store import Queryable, load_call_settings, offer_code_bindings

log = structlog.get_logger(__name__)


SettingsRead = Callable[[], Awaitable[CallSettings]]
"""A read of the agent's call settings that does more in the same round trip (a job's first
statement also checks the capability: `memory.store.MemoryStore.call_settings`)."""


async def take_snapshot(
    db: Queryable, agent_id: str, code: CodeDefaults, read: SettingsRead | None = None
) -> CallSettings | None:
    """The agent's effective settings and binding (by `read` when given), or None when they
    cannot be read."""
    try:
        if read is not None:
            return await read()
        return await load_call_settings(db, agent_id, code)
    except MemoryFailure as failure:
        log.warning("call.settings_unavailable", agent_id=agent_id, error_code=failure.code)
        return None


def key_to_offer(settings: CallSettings | None, code: CodeDefaults) -> str | None:
    """The code-declared identity key to offer: only when nothing is bound yet."""
    if settings is None or settings.binding is not None:
        return None
    return code.identity_key


async def bound_snapshot(
    pool: asyncpg.Pool, agent_id: str, code: CodeDefaults, *, first: SettingsRead | None = None
) -> CallSettings | None:
    """The snapshot, after offering the code's identity key if the agent has no binding yet;
    `first`: the first read, when it is not the plain settings read."""
    settings = await take_snapshot(pool, agent_id, code, first)
    if not await offered_key(pool, agent_id, code, settings):
        return settings
    return await take_snapshot(pool, agent_id, code)


async def offered_key(
    pool: asyncpg.Pool, agent_id: str, code: CodeDefaults, settings: CallSettings | None
) -> bool:
    """Offer the code's identity key when nothing is bound yet; True: offered, read again."""
    if (key := key_to_offer(settings, code)) is None:
        return False
    try:
        await offer_code_bindings(pool, {agent_id: key})
    except MemoryFailure as failure:
        log.warning("call.binding_unavailable", agent_id=agent_id, error_code=failure.code)
        return False
    return True
