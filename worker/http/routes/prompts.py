"""An agent's conversation instruction (prompt) over HTTP: read, save a draft, publish, reset.

The extraction guidance's pattern per agent: a draft runs only in the Playground; publishing
makes it what every new call and text turn runs (a call already open keeps the text it
snapshotted at room open); reset returns to the instructions in the agent's code. Every
change is in the activity log with the key's name, never the text.
"""

from __future__ import annotations

import structlog
from aiohttp import web

from memory.settings._prompt import PromptDraftBody, parse_prompt_draft
from memory.store import _prompts as prompts_store
from memory.store._prompts import StoredPrompt
from worker.agent_directory import AgentEntry
from worker.http.server.answers.prompts import AgentPrompt
from worker.http.server.context import (
    POOL,
    Route,
    actor,
    agent_of,
    code_instructions,
    respond,
)
from worker.http.server.request_body import read_json

log = structlog.get_logger(__name__)
PATH = "/api/memory/agents/{agentId}/prompt"


def _agent(request: web.Request) -> AgentEntry:
    return agent_of(request, request.match_info["agentId"])


def _answer(request: web.Request, agent: AgentEntry, stored: StoredPrompt) -> web.Response:
    code = code_instructions(request, agent)
    return respond(AgentPrompt.of(agent.name, stored, code).wire())


async def get_prompt(request: web.Request) -> web.Response:
    agent = _agent(request)
    return _answer(request, agent, await prompts_store.load_prompt(request.app[POOL], agent.name))


async def put_draft(request: web.Request) -> web.Response:
    agent = _agent(request)
    text = parse_prompt_draft(await read_json(request))
    pool, who = request.app[POOL], actor(request)
    saved = await prompts_store.save_prompt_draft(pool, agent.name, text, who)
    log.info("agent.prompt_draft_saved", agent_id=agent.name, chars=len(text))
    return _answer(request, agent, saved)


async def publish(request: web.Request) -> web.Response:
    agent = _agent(request)
    published = await prompts_store.publish_prompt(request.app[POOL], agent.name, actor(request))
    log.info("agent.prompt_published", agent_id=agent.name, code=published.published is None)
    return _answer(request, agent, published)


async def reset(request: web.Request) -> web.Response:
    agent = _agent(request)
    restored = await prompts_store.reset_prompt(request.app[POOL], agent.name, actor(request))
    log.info("agent.prompt_reset", agent_id=agent.name)
    return _answer(request, agent, restored)


_ANSWER = ((200, AgentPrompt),)
ROUTES = (
    Route(
        "GET",
        PATH,
        get_prompt,
        "config:read",
        agents="one",
        answers=_ANSWER,
        summary="The agent's prompt: draft, published text, the code's instructions",
    ),
    Route(
        "PUT",
        f"{PATH}/draft",
        put_draft,
        "config:write",
        agents="one",
        body=PromptDraftBody,
        answers=_ANSWER,
        summary="Save the prompt draft (only the Playground runs it)",
    ),
    Route(
        "POST",
        f"{PATH}/publish",
        publish,
        "config:write",
        agents="one",
        answers=_ANSWER,
        summary="Publish the draft: new calls and text turns run it",
    ),
    Route(
        "DELETE",
        PATH,
        reset,
        "config:write",
        agents="one",
        answers=_ANSWER,
        summary="Back to the instructions in the agent's code",
    ),
)
