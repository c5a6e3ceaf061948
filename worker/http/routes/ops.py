"""The ops log over HTTP: one agent's `memory.ops` events after a cursor, oldest first.

    GET /api/memory/ops?agentId=front-desk&after=0&limit=100     (scope memory:read)

A consumer that was down keeps the last `id` it handled and asks for what came after it; the
ids only grow, so it catches up in order. The events hold fact text (that is what they are
for), so this route needs `memory:read` like the customer routes.
"""

from __future__ import annotations

from aiohttp import web
from multidict import MultiMapping

from memory.contract import InvalidRequest
from memory.store import DEFAULT_LIMIT, MAX_CURSOR, MAX_LIMIT, ops_after
from worker.http.server import answers
from worker.http.server.context import POOL, Route, agent_of, respond
from worker.http.server.integers import integer_in, optional_integer

PATH = "/api/memory/ops"
__all__ = ["MAX_CURSOR", "MAX_LIMIT", "ROUTES", "cursor", "parse_query"]
_PARAMS = frozenset({"agentId", "after", "limit"})


def cursor(value: str, name: str) -> int:
    """A cursor (an event id, 0 for the start) given as `name`; a bad one is a 400 naming it."""
    return integer_in(value, name, 0, MAX_CURSOR)


def parse_query(query: MultiMapping[str], params: frozenset[str] = _PARAMS) -> tuple[str, int, int]:
    """(agent id, cursor, limit) from the query, which may hold only `params`, each once; a bad
    one is a 400 naming the parameter."""
    for name in query:
        if name not in params:
            raise InvalidRequest(f"{name}: is not a known parameter", field=name)
        if len(query.getall(name)) > 1:
            raise InvalidRequest(f"{name}: must be given once", field=name)
    agent_id = query.get("agentId")
    if not agent_id:
        raise InvalidRequest("agentId: is required", field="agentId")
    after = optional_integer(query.get("after"), "after", 0, 0, MAX_CURSOR)
    return (
        agent_id,
        after,
        optional_integer(query.get("limit"), "limit", DEFAULT_LIMIT, 1, MAX_LIMIT),
    )


async def get_ops(request: web.Request) -> web.Response:
    agent_id, after, limit = parse_query(request.query)
    agent = agent_of(request, agent_id)
    events = await ops_after(request.app[POOL], agent.name, after, limit)
    cursor = events[-1]["id"] if events else after
    return respond(answers.OpsLog(agent_id=agent.name, events=events, next=cursor).wire())


ROUTES = (
    Route(
        "GET",
        PATH,
        get_ops,
        "memory:read",
        agents="one",
        answers=((200, answers.OpsLog),),
        query=("agentId", "after", "limit"),
        summary="memory.ops events of one agent after a cursor, oldest first",
    ),
)
