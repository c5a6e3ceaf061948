"""Counts at a glance, per agent the key reaches.

    GET /api/memory/overview                                     (scope memory:read)

For each agent, in catalog order: how many people it remembers (distinct contacts with facts or
calls), its facts, the calls that started in the last day, and the memory passes that failed in
the last day with their count by error code. Counts only: no contact, no text. One statement
(`memory.store.overview`).
"""

from __future__ import annotations

from aiohttp import web

from memory.contract import InvalidRequest
from memory.store import overview
from worker.http.server import answers
from worker.http.server.context import POOL, Route, reachable_agents, respond

PATH = "/api/memory/overview"


async def get_overview(request: web.Request) -> web.Response:
    for name in request.query:
        raise InvalidRequest(f"{name}: is not a known parameter", field=name)
    agents = [agent.name for agent in reachable_agents(request)]
    counts = await overview(request.app[POOL], agents)
    return respond(answers.Overview(agents=[answers.AgentCounts.of(c) for c in counts]).wire())


ROUTES = (
    Route(
        "GET",
        PATH,
        get_overview,
        "memory:read",
        agents="listing",
        answers=((200, answers.Overview),),
        summary="People, facts, calls and failed saves of the last day, per agent",
    ),
)
