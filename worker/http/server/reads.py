"""A read of one person's memory over HTTP leaves a record: who (the API key's name), the
channel (`http`), the route, and what was returned as counts (`memory.store._reads`).

The record is written after the answer is built; a record that cannot be written is logged
and the answer still goes (`Memory.note_read`).
"""

from __future__ import annotations

from aiohttp import web

from memory.store import Read
from worker.http.server.context import MEMORY, actor

CHANNEL = "http"


async def note_read(
    request: web.Request, agent_id: str, user_id: str, route: str, **returned: int
) -> None:
    """Record that the caller's key read `user_id`'s memory through `route`."""
    read = Read(agent_id, user_id, actor(request), CHANNEL, route, returned)
    await request.app[MEMORY].note_read(read)
