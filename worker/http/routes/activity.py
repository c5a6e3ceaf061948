"""The settings activity log over HTTP: who changed which field names of which agent, and when.

Entries never hold values, so instruction and guidance text cannot leak through this route.
"""

from __future__ import annotations

from aiohttp import web

from memory.store import list_activity
from worker.http.server import answers
from worker.http.server.context import POOL, Route, agent_of, respond, restricted_to
from worker.http.server.integers import optional_integer

PATH = "/api/memory/activity"
DEFAULT_LIMIT = 50
MAX_LIMIT = 500


def parse_limit(value: str | None) -> int:
    """The `limit` query parameter: an integer in 1..500, 50 when absent."""
    return optional_integer(value, "limit", DEFAULT_LIMIT, 1, MAX_LIMIT)


async def get_activity(request: web.Request) -> web.Response:
    """Newest first; `agentId` narrows to one agent, otherwise shared changes are included
    (for a key that reaches every agent)."""
    agent_id = request.query.get("agentId")
    if agent_id is not None:
        agent_id = agent_of(request, agent_id).name
    limit = parse_limit(request.query.get("limit"))
    # a key that reaches only some agents sees their entries only, no shared change
    entries = await list_activity(request.app[POOL], agent_id, limit, restricted_to(request))
    return respond(answers.Activity(entries=[answers.ActivityItem.of(e) for e in entries]).wire())


ROUTES = (
    Route(
        "GET",
        PATH,
        get_activity,
        "config:read",
        agents="listing",
        answers=((200, answers.Activity),),
        query=("agentId", "limit"),
        summary="Settings changes, newest first (field names only)",
    ),
)
