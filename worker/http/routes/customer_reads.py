"""Who has read one person's memory, newest first.

    POST /api/memory/customers/{agentId}/reads   {"userId": "+34 611 22 33 44", "limit"?: 50}

Scope `memory:read`. Each record names who read (the API key's name, the job, `cli`), when, the
channel, the route or tool, and the counts it returned (`memory.store._reads`). Listing the
reads is not itself recorded: it shows no memory, only who looked.
"""

from __future__ import annotations

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field

from memory.contract import requests
from memory.store import DEFAULT_READS, MAX_READS, reads_of
from worker.http.server import answers
from worker.http.server.context import POOL, Route, agent_of, respond
from worker.http.server.request_body import parse_body, read_json

PATH = "/api/memory/customers/{agentId}/reads"


class ReadsBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    user_id: str = Field(alias="userId")  # validated as the memory API does
    limit: int = Field(DEFAULT_READS, ge=1, le=MAX_READS)


async def list_reads(request: web.Request) -> web.Response:
    agent = agent_of(request, request.match_info["agentId"])
    body = parse_body(ReadsBody, await read_json(request))
    user_id = requests.user_id(body.user_id)
    found = await reads_of(request.app[POOL], agent.name, user_id, body.limit)
    return respond(answers.Reads.of(agent.name, user_id, found).wire())


ROUTES = (
    Route(
        "POST",
        PATH,
        list_reads,
        "memory:read",
        agents="one",
        body=ReadsBody,
        answers=((200, answers.Reads),),
        summary="Who read one customer's memory: when, channel, route, counts (newest first)",
    ),
)
