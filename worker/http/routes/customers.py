"""One customer's memory for the Memory screen: read facts and recent calls or the facts'
history, or erase them.

The user id travels in a JSON body, not in the URL: ids are opaque (a leading `+`, spaces, `/`,
any Unicode) and often phone numbers, and a URL would both mangle `+` into a space unless the
client encodes it and put the number into every access log on the way.
"""

from __future__ import annotations

import structlog
from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field

from memory.contract import DEFAULT_RECALL_CALLS
from worker.http.server import answers
from worker.http.server.context import MEMORY, Route, agent_of, respond, unwrap
from worker.http.server.reads import note_read
from worker.http.server.request_body import parse_body, read_json

log = structlog.get_logger(__name__)
PATH = "/api/memory/customers/{agentId}"


class RecallBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    user_id: str = Field(alias="userId")  # the memory API validates the value
    calls: int = DEFAULT_RECALL_CALLS


class PersonBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    user_id: str = Field(alias="userId")  # the memory API validates the value


async def recall(request: web.Request) -> web.Response:
    agent = agent_of(request, request.match_info["agentId"])
    body = parse_body(RecallBody, await read_json(request))
    memory = unwrap(await request.app[MEMORY].recall(agent.name, body.user_id, body.calls))
    answer = answers.CustomerMemory.of(agent.name, body.user_id, memory).wire()
    returned = {"facts": len(memory.facts), "calls": len(memory.calls)}
    await note_read(request, agent.name, body.user_id, "recall", **returned)
    return respond(answer)


async def history(request: web.Request) -> web.Response:
    agent = agent_of(request, request.match_info["agentId"])
    body = parse_body(PersonBody, await read_json(request))
    kept = unwrap(await request.app[MEMORY].history(agent.name, body.user_id))
    answer = answers.FactHistory.of(agent.name, body.user_id, kept).wire()
    await note_read(request, agent.name, body.user_id, "history", versions=len(kept.versions))
    return respond(answer)


async def delete_all(request: web.Request) -> web.Response:
    agent = agent_of(request, request.match_info["agentId"])
    body = parse_body(PersonBody, await read_json(request))
    outcome = unwrap(await request.app[MEMORY].delete_all(agent.name, body.user_id))
    log.info("memory.customer_erased", agent_id=agent.name, deleted=outcome.deleted)
    return respond(answers.Erased.of(agent.name, body.user_id, outcome).wire())


ROUTES = (
    Route(
        "POST",
        f"{PATH}/recall",
        recall,
        "memory:read",
        agents="one",
        body=RecallBody,
        answers=((200, answers.CustomerMemory),),
        summary="One customer's facts and recent calls",
    ),
    Route(
        "POST",
        f"{PATH}/history",
        history,
        "memory:read",
        agents="one",
        body=PersonBody,
        answers=((200, answers.FactHistory),),
        summary="Every version of one customer's facts",
    ),
    Route(
        "POST",
        f"{PATH}/delete-all",
        delete_all,
        "memory:delete",
        agents="one",
        body=PersonBody,
        answers=((200, answers.Erased),),
        summary="Erase one customer for one agent",
    ),
)
