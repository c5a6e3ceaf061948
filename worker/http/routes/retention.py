"""How long an agent keeps each kind of record, over HTTP: read it, change some kinds.

    GET /api/memory/settings/{agentId}/retention               (config:read)
    PUT /api/memory/settings/{agentId}/retention  {"calls": 90, "ops": null}   (config:write)

A kind not named in a PUT keeps its days; null keeps that kind until it is deleted. The
activity log records who changed which kinds (`retention.calls`, ...), never the values. The
retention pass (`worker.ops_retention`) applies it; facts are never a kind
(`memory.settings._retention`).
"""

from __future__ import annotations

import structlog
from aiohttp import web

from memory.settings import RetentionBody, parse_retention
from memory.store import load_retention, save_retention
from worker.http.server import answers
from worker.http.server.context import POOL, Route, actor, agent_of, respond
from worker.http.server.request_body import read_json

log = structlog.get_logger(__name__)
PATH = "/api/memory/settings/{agentId}/retention"


async def get_retention(request: web.Request) -> web.Response:
    agent = agent_of(request, request.match_info["agentId"])
    retention = await load_retention(request.app[POOL], agent.name)
    return respond(answers.RetentionSettings.of(agent.name, retention).wire())


async def put_retention(request: web.Request) -> web.Response:
    agent = agent_of(request, request.match_info["agentId"])
    update = parse_retention(await read_json(request))
    saved = await save_retention(request.app[POOL], agent.name, update, actor(request))
    log.info("memory.retention_saved", agent_id=agent.name, fields=list(update.field_names()))
    return respond(answers.RetentionSettings.of(agent.name, saved).wire())


_ANSWER = ((200, answers.RetentionSettings),)
ROUTES = (
    Route(
        "GET",
        PATH,
        get_retention,
        "config:read",
        agents="one",
        answers=_ANSWER,
        summary="How long each kind of record is kept",
    ),
    Route(
        "PUT",
        PATH,
        put_retention,
        "config:write",
        agents="one",
        body=RetentionBody,
        answers=_ANSWER,
        summary="Change how long some kinds of record are kept (days, or null: until deleted)",
        description=(
            "Call records, chat sessions (with their turns and decisions), ops events, read"
            " records and journals of calls never saved: 1..36,500 days each, or null. Facts"
            " are never removed by age: they stay until the person or the model deletes them."
        ),
    ),
)
