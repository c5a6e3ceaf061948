"""Search one customer's memory, or every customer of an agent, for the Memory screen.

The query and the optional user id travel in the JSON body, never in the URL (access logs keep
URLs, and a `+` in a query string turns into a space).
"""

from __future__ import annotations

from aiohttp import web
from pydantic import BaseModel, ConfigDict, Field

from memory.search import DEFAULT_K, DEFAULT_MODE
from worker.http.server import answers
from worker.http.server.context import MEMORY, Route, agent_of, database_bound, respond, unwrap
from worker.http.server.reads import note_read
from worker.http.server.request_body import parse_body, read_json

PATH = "/api/memory/customers/{agentId}/search"


class SearchBody(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    # the memory API validates every value (limits, modes) and names the field
    query: str
    user_id: str | None = Field(default=None, alias="userId")
    k: int = DEFAULT_K
    mode: str = DEFAULT_MODE


async def search(request: web.Request) -> web.Response:
    agent = agent_of(request, request.match_info["agentId"])
    body = parse_body(SearchBody, await read_json(request))
    memory, database = request.app[MEMORY], database_bound(request)
    found = unwrap(
        await memory.search(
            agent.name, body.query, body.user_id, body.k, body.mode, database=database
        )
    )
    answer = answers.SearchResults.of(agent.name, body.user_id, found).wire()
    if body.user_id is not None:  # one person's search is a read of their memory
        await note_read(request, agent.name, body.user_id, "search", hits=len(found.items))
    return respond(answer)


ROUTES = (
    Route(
        "POST",
        PATH,
        search,
        "memory:read",
        agents="one",
        body=SearchBody,
        deadline="own",  # each database step within the deadline, the model's within its own
        answers=((200, answers.SearchResults),),
        summary="Search one customer or every customer of an agent",
    ),
)
