"""What every route module shares: typed app state, the route table entry, JSON out (a request's
body is read by `worker.http.server.request_body`).

A route is registered only through `Route`, which must name a scope (or say it is public), so no
route is open by accident, and what it reaches of the agents (`AgentReach`), so no route forgets
a key that reaches only some agents: an `{agentId}` in the path is checked here before the
handler, other routes resolve agents only through `agent_of` and `reachable_agents`.

The wrapper authenticates and authorizes before the handler runs and
leaves the caller's key on the request for the activity log; a route that reads JSON refuses
another `Content-Type` there (415), and its failures leave in its family's codes
(`worker.http.server.families`). Then the handler runs inside the
app's database deadline (`infra.deadline`): past it the answer is 503 `memory_unavailable` at
once, and the handler's database work is abandoned to the background. A route that also waits
on another service (LiveKit, a model) says `deadline="own"` and bounds each database step with
`bounded` (or hands a call `database_bound`), so a slow service is never blamed on the database.
Routes never answer a failure themselves: they raise it (`unwrap` raises a memory envelope's
error as the failure the core raised) and `worker.http.server.errors` writes the one error answer.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from types import MappingProxyType
from typing import Any, Literal, TypeVar

import asyncpg
import structlog
from aiohttp import web
from pydantic import BaseModel

from infra.deadline import Bound, Deadline, Late, within
from memory.api import Memory
from memory.contract import (
    FAILURES,
    CursorExpired,
    ErrorInfo,
    MemoryFailure,
    Result,
    Unavailable,
    strict_json,
)
from memory.documents import RAG_FAILURES, Documents
from memory.store import DB_ERRORS
from worker.agent_directory import AgentDirectory, AgentEntry
from worker.catalog import Catalog, UnknownAgent
from worker.http.server.auth import (
    API_KEY_HEADER,
    ApiKey,
    Forbidden,
    Scope,
    authenticate,
    authorize,
)
from worker.http.server.families import Family, in_family
from worker.http.server.request_body import (
    read_body,
    require_json,
)

T = TypeVar("T")
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

POOL = web.AppKey("pool", asyncpg.Pool)
CATALOG = web.AppKey("catalog", Catalog)
DIRECTORY = web.AppKey("agent_directory", AgentDirectory)
API_KEYS: web.AppKey[tuple[ApiKey, ...]] = web.AppKey("api_keys")
MEMORY = web.AppKey("memory", Memory)
DOCUMENTS = web.AppKey("documents", Documents)  # the collections routes' and the wires' search_docs
DATABASE_DEADLINE = web.AppKey("database_deadline_seconds", float)
CALLER = web.RequestKey("caller", ApiKey)

log = structlog.get_logger(__name__)


AgentReach = Literal["one", "listing", "shared"]
"""What a guarded route touches of the agents, which decides what a key restricted to some agents
gets: `one`: one agent named in the path, query or body, resolved with `agent_of` (another agent
is the same 404 as an unknown one); `listing`: several agents, read through `reachable_agents`;
`shared`: state of every agent (shared extraction settings, document collections), refused to a
restricted key with 403. Public routes reach none (`None`)."""


@dataclass(frozen=True, slots=True)
class Route:
    method: str
    path: str
    handler: Handler
    scope: Scope | Literal["public"]
    deadline: Literal["route", "own"] = "route"  # "own": the handler bounds its database work
    # "optional": it serves without the database (an outbound call); a registry that cannot be
    # read leaves it the agents last read instead of a 503
    database: Literal["needed", "optional"] = "needed"
    # what it reaches of the agents: required of every guarded route (`_check_route`)
    agents: AgentReach | None = None
    # for the OpenAPI document (`worker.http.routes.openapi`): the model that validates the JSON
    # body,
    # the success answers by status (`worker.http.server.answers`), the query parameters it reads
    body: type[BaseModel] | None = None
    answers: tuple[tuple[int, type[BaseModel]], ...] = ()
    query: tuple[str, ...] = ()
    headers: tuple[tuple[str, str], ...] = ()  # request headers it reads: (name, what it is)
    answer_headers: tuple[tuple[str, str], ...] = ()  # headers of its success answers
    # error answers listed by status beside `default`: (status, when); 429 and 503 name Retry-After
    refusals: tuple[tuple[int, str], ...] = ()
    summary: str = ""
    description: str = ""
    upload: tuple[str, ...] = ()  # media types of a raw (non-JSON) request body
    download: tuple[str, ...] = ()  # media types of a raw 200 answer
    api_key_header: bool = False  # the key may also come as `x-api-key` (Anthropic's clients)
    errors: type[BaseModel] | None = None  # the error answer's model, if not the common one
    family: Family = "memory"  # whose codes its failures carry (`worker.http.server.families`)


class RouteTableError(ValueError):
    """A route's declaration contradicts itself; raised when the app is composed."""


def _check_route(route: Route) -> None:
    if (route.scope == "public") != (route.agents is None):
        raise RouteTableError(f"{route.method} {route.path}: a guarded route must name its agents")
    if "{agentId}" in route.path and route.agents != "one":
        raise RouteTableError(f"{route.method} {route.path}: an agent in the path reaches one")


def guarded(route: Route) -> Handler:
    """The route's handler behind authentication, its scope check and the database deadline."""
    _check_route(route)
    scope = route.scope

    async def handle(request: web.Request) -> web.StreamResponse:
        try:
            return await checked(request)
        except MemoryFailure as failure:  # the web layer's shared steps, in the family's codes
            raise in_family(failure, route.family) from None

    async def checked(request: web.Request) -> web.StreamResponse:
        if scope != "public":
            keys = request.app[API_KEYS]
            api_key = request.headers.get(API_KEY_HEADER) if route.api_key_header else None
            key = authenticate(keys, request.headers.get("Authorization"), api_key)
            authorize(key, scope)
            request[CALLER] = key
            if route.agents == "shared" and key.restricted:
                raise Forbidden(SHARED_REFUSED)
            if route.agents != "shared":
                await _read_registry(request, route.database == "optional")
            if (agent_id := request.match_info.get("agentId")) is not None:
                await find_agent(request, agent_id)  # before the handler: another is unknown
        if route.body is not None:  # a route that reads JSON reads nothing else
            require_json(request)
        if route.deadline == "own":
            return await route.handler(request)
        if request.can_read_body:
            await read_body(request)  # a slow upload is not the database's time (kept for later)
        return await bounded(request, route.handler(request))

    return handle


async def _read_registry(request: web.Request, optional: bool) -> None:
    """Registered agents, read again about once a second. A route that serves without the
    database keeps the agents last read when that read fails (and the read is not tried again
    for a second); any other route fails with it."""
    directory: AgentDirectory = request.app[DIRECTORY]
    try:
        await bounded(request, directory.refresh(request.app[POOL]))
    except (Unavailable, *DB_ERRORS) as failure:
        if not optional:
            raise
        directory.postpone()
        log.warning("web.agents_read_failed", error=type(failure).__name__)


async def bounded(request: web.Request, work: Awaitable[T]) -> T:
    """Database work of one request, within the app's deadline; past it `memory_unavailable`."""
    deadline = Deadline.after(request.app[DATABASE_DEADLINE])
    try:
        return await within(deadline, work, step="http")
    except Late:
        raise Unavailable("the database did not answer within the deadline") from None


def database_bound(request: web.Request) -> Bound:
    """`bounded` for this request, one database step at a time: what a route whose call also
    waits on a model (a search's query embedding) hands the call, so the database's steps are
    within the deadline and the model keeps its own timeout (a slow model is never blamed on the
    database, nor a frozen database waited for)."""

    def bound(step: Awaitable[T]) -> Awaitable[T]:
        return bounded(request, step)

    return bound


SHARED_REFUSED = (
    "this API key reaches only some agents; what all agents share needs a key that reaches all"
)


def reaches(request: web.Request, agent_id: str) -> bool:
    """Whether the caller's key reaches that agent id (registered or not)."""
    key = request.get(CALLER)
    return key is None or key.reaches(agent_id)


def agent_of(request: web.Request, agent_id: str) -> AgentEntry:
    """The registered agent of that id, if the caller's key reaches it; else `UnknownAgent`
    (404), the same answer whether the agent is not registered or not the key's."""
    key = request.get(CALLER)
    if key is not None and not key.reaches(agent_id):
        raise UnknownAgent()
    return request.app[DIRECTORY].get(agent_id)


def code_instructions(request: web.Request, agent: AgentEntry) -> str | None:
    """The conversation instructions in the code of an agent `agent_of` gave (None: its
    definition is not loaded in this process)."""
    if not agent.loaded:
        return None
    instructions: str = request.app[DIRECTORY].definition(agent.name).instructions
    return instructions


async def find_agent(request: web.Request, agent_id: str) -> AgentEntry:
    """`agent_of`, reading the registry again first when the agent is not known yet (a worker
    may have registered it since the last read)."""
    directory: AgentDirectory = request.app[DIRECTORY]
    if not directory.knows(agent_id):
        await bounded(request, directory.refresh(request.app[POOL], max_age=0))
    return agent_of(request, agent_id)


def reachable_agents(request: web.Request) -> list[AgentEntry]:
    """The registered agents, in registration order, that the caller's key reaches."""
    key = request.get(CALLER)
    directory: AgentDirectory = request.app[DIRECTORY]
    return [agent for agent in directory.entries() if key is None or key.reaches(agent.name)]


async def forget_agent(request: web.Request, agent: AgentEntry) -> bool:
    """Remove a reachable agent from the registry (never its memory) and read it again."""
    removed: bool = await request.app[DIRECTORY].remove(request.app[POOL], agent.name)
    return removed


def restricted_to(request: web.Request) -> list[str] | None:
    """The ids of the reachable agents when the key is restricted; None when it reaches all."""
    key = request.get(CALLER)
    if key is None or not key.restricted:
        return None
    return [agent.name for agent in reachable_agents(request)]


def actor(request: web.Request) -> str:
    """Who is calling, by API key name (never the key itself)."""
    return request[CALLER].name


_KNOWN: list[type[MemoryFailure]] = [MemoryFailure, *FAILURES, *RAG_FAILURES]
_FAILURES: Mapping[str, type[MemoryFailure]] = MappingProxyType(
    {
        failure.code: failure
        for failure in _KNOWN
        if failure is not CursorExpired  # it carries its cursor: never in an envelope
    }
)


def failure_of(error: ErrorInfo) -> MemoryFailure:
    """An envelope's error as the typed failure the memory core raised (an unknown code: base)."""
    return _FAILURES.get(error.code, MemoryFailure)(error.message, field=error.field)


def unwrap(result: Result[T]) -> T:
    """The envelope's data; its error is raised as the same failure a store raises directly."""
    if result.error is not None:
        raise failure_of(result.error)
    assert result.data is not None
    return result.data


def timestamp(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def respond(body: Mapping[str, Any], status: int = 200) -> web.Response:
    return web.json_response(body, status=status, dumps=wire_json)


def wire_json(value: Any, **options: Any) -> str:
    """JSON text for a response (`memory.contract.strict_json.utf8_json`: a lone surrogate a
    model wrote travels as its `\\u` escape)."""
    return strict_json.utf8_json(value, **options)
