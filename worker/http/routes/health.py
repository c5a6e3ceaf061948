"""The one open route: a health check that proves the database answers, within a deadline.

A stalled or unreachable database gives 503 `degraded` at the deadline at the latest; the probe
itself is abandoned to the background (`infra.deadline`), never waited for. A healthy answer
also says how search over facts ranks on this database and, when lexical only, why: read once
per process (at start-up by `python -m worker.http`, else by the first health check).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from aiohttp import web

from infra.deadline import Deadline, Late, within
from memory.search import SearchAvailability, read_search_availability
from memory.store import DB_ERRORS
from worker.http.server import answers
from worker.http.server.context import DATABASE_DEADLINE, POOL, Route, respond


@dataclass(slots=True)
class SearchSeen:
    """The process's one reading of search availability (None until read)."""

    value: SearchAvailability | None = None


SEARCH = web.AppKey("search_availability", SearchSeen)


async def _probe(request: web.Request) -> SearchAvailability | None:
    seen = request.app.get(SEARCH)
    if seen is None or seen.value is not None:
        await request.app[POOL].fetchval("select 1")
        return None if seen is None else seen.value
    seen.value = await read_search_availability(request.app[POOL])
    return seen.value


async def health(request: web.Request) -> web.Response:
    deadline = Deadline.after(request.app[DATABASE_DEADLINE])
    try:
        search = await within(deadline, _probe(request), step="health")
    except Late:
        return _degraded("timeout")
    except DB_ERRORS:
        return _degraded("unreachable")
    body: dict[str, Any] = {"status": "ok", "database": "ok"}
    if search is not None:
        body |= {"search": search.mode, "searchReason": search.reason}
    return respond(body)


def _degraded(database: str) -> web.Response:
    return respond({"status": "degraded", "database": database}, status=503)


ROUTES = (
    Route(
        "GET",
        "/healthz",
        health,
        "public",
        deadline="own",
        answers=((200, answers.Health), (503, answers.Health)),
        summary="Health: the database answers within its deadline; how search ranks here",
    ),
)
