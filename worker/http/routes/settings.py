"""Per-agent memory settings over HTTP: read, partial save, reset one field or all of them.

Every answer has the same shape (agentId, overrides, value, origins, binding), so the Memory tab
can redraw from any response. Validation and resolution are `memory.settings`; storage is
`memory.store`; this module only translates between HTTP and those.
"""

from __future__ import annotations

import structlog
from aiohttp import web

from memory.settings import SettingsBody, parse_reset_field, parse_update
from memory.store import settings_store
from worker.agent_directory import AgentEntry
from worker.http.server import answers
from worker.http.server.context import (
    POOL,
    Route,
    actor,
    agent_of,
    forget_agent,
    reachable_agents,
    respond,
)
from worker.http.server.request_body import read_json

log = structlog.get_logger(__name__)
PATH = "/api/memory/settings/{agentId}"


def _agent(request: web.Request) -> AgentEntry:
    return agent_of(request, request.match_info["agentId"])


async def get_settings(request: web.Request) -> web.Response:
    agent = _agent(request)
    stored = await settings_store.load_settings(request.app[POOL], agent.name)
    return respond(answers.Settings.of(agent, stored).wire())


async def put_settings(request: web.Request) -> web.Response:
    agent = _agent(request)
    update = parse_update(await read_json(request))
    stored = await settings_store.save_settings(
        request.app[POOL], agent.name, update, actor(request)
    )
    log.info("memory.settings_saved", agent_id=agent.name, fields=list(update.field_names()))
    return respond(answers.Settings.of(agent, stored).wire())


async def delete_settings(request: web.Request) -> web.Response:
    agent = _agent(request)
    field = parse_reset_field(request.query.get("field"))
    stored = await settings_store.reset_settings(
        request.app[POOL], agent.name, field, actor(request)
    )
    log.info("memory.settings_reset", agent_id=agent.name, field=field or "all")
    return respond(answers.Settings.of(agent, stored).wire())


async def list_agents(request: web.Request) -> web.Response:
    """The registered agents (where declared, last seen, tools, collections) and each one's
    fixed identity key, for the console's picker and overview."""
    agents = []
    for agent in reachable_agents(request):
        stored = await settings_store.load_settings(request.app[POOL], agent.name)
        agents.append(answers.MemoryAgent.of(agent, stored.binding))
    return respond(answers.MemoryAgents(agents=agents).wire())


async def remove_agent(request: web.Request) -> web.Response:
    """Remove an agent from the registry; its memory, settings and sessions stay. A process
    that still declares it registers it again when it starts."""
    agent = _agent(request)
    removed = await forget_agent(request, agent)
    log.info("agents.removed", agent_id=agent.name, removed=removed)
    return respond(answers.AgentRemoved(agent_id=agent.name, removed=removed).wire())


_ANSWER = ((200, answers.Settings),)
ROUTES = (
    Route(
        "GET",
        "/api/memory/agents",
        list_agents,
        "config:read",
        agents="listing",
        answers=((200, answers.MemoryAgents),),
        summary="Registered agents: where declared, last seen, tools, identity keys",
    ),
    Route(
        "DELETE",
        "/api/memory/agents/{agentId}",
        remove_agent,
        "config:write",
        agents="one",
        answers=((200, answers.AgentRemoved),),
        summary="Remove an agent from the registry (its memory stays)",
    ),
    Route(
        "GET",
        PATH,
        get_settings,
        "config:read",
        agents="one",
        answers=_ANSWER,
        summary="Memory settings",
    ),
    Route(
        "PUT",
        PATH,
        put_settings,
        "config:write",
        agents="one",
        body=SettingsBody,
        answers=_ANSWER,
        summary="Save some fields; fix the identity key once",
    ),
    Route(
        "DELETE",
        PATH,
        delete_settings,
        "config:write",
        agents="one",
        answers=_ANSWER,
        query=("field",),
        summary="Reset one field, or all",
    ),
)
