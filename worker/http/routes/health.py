"""The one open route: a health check that proves the database answers, within a deadline, and
says what works.

A stalled or unreachable database gives 503 `degraded` at the deadline at the latest; the probe
itself is abandoned to the background (`infra.deadline`), never waited for. Each check reads,
in one catalog statement, whether memory writes can succeed (the fact vectors writable, no
privilege missing on the schema or its tables): when not, 503 `degraded` with the `reason` and
its `fix` (`memory.search.REASONS`). `search` says what a search will actually do here: the
process's own reading (once, as searches read it) and the embedding model, with
`searchReason` and its `searchFix` when not by meaning.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiohttp import web

from infra.deadline import Deadline, Late, within
from memory.contract import MemoryFailure
from memory.search import (
    SearchAvailability,
    read_vector_facts,
    write_problem,
)
from memory.store import DB_ERRORS
from worker.http.server import answers
from worker.http.server.context import DATABASE_DEADLINE, MEMORY, POOL, Route, respond


@dataclass(slots=True)
class SearchSeen:
    """The start-up reading of search availability (kept for importers; `/healthz` asks the
    process's memory, whose searches read it the same way)."""

    value: SearchAvailability | None = None


SEARCH = web.AppKey("search_availability", SearchSeen)


@dataclass(frozen=True, slots=True)
class Seen:
    writes: str | None  # why memory writes fail (None: nothing known to stop them)
    search: SearchAvailability


async def _probe(request: web.Request) -> Seen:
    facts = await read_vector_facts(request.app[POOL])
    search = await request.app[MEMORY].search_availability()
    return Seen(write_problem(facts), search)


async def health(request: web.Request) -> web.Response:
    deadline = Deadline.after(request.app[DATABASE_DEADLINE])
    try:
        seen = await within(deadline, _probe(request), step="health")
    except Late:
        return _degraded("timeout")
    except (*DB_ERRORS, MemoryFailure):
        return _degraded("unreachable")
    # 503 `degraded` when memory writes cannot succeed
    status = 200 if seen.writes is None else 503
    return respond(answers.Health.seen(seen.writes, seen.search).wire(), status=status)


def _degraded(database: str) -> web.Response:
    return respond(answers.Health(status="degraded", database=database).wire(), status=503)


ROUTES = (
    Route(
        "GET",
        "/healthz",
        health,
        "public",
        deadline="own",
        answers=((200, answers.Health), (503, answers.Health)),
        summary="Health: the database answers within its deadline, memory writes can succeed;"
        " how search ranks here",
    ),
)
