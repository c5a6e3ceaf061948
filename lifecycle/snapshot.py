"""The settings snapshot taken once when a room opens: one database round trip.

If the settings cannot be read, the call goes on without memory rather than failing.
"""

from __future__ import annotations

import structlog

from memory.errors import MemoryFailure
from memory.settings import CallSettings, CodeDefaults
from memory.settings_store import Queryable, load_call_settings

log = structlog.get_logger(__name__)


async def take_snapshot(db: Queryable, agent_id: str, code: CodeDefaults) -> CallSettings | None:
    """The agent's effective settings and binding, or None when they cannot be read."""
    try:
        return await load_call_settings(db, agent_id, code)
    except MemoryFailure as failure:
        log.warning("call.settings_unavailable", agent_id=agent_id, error_code=failure.code)
        return None
