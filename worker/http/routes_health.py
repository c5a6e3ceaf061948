"""The one open route: a health check that proves the database answers, within a deadline.

A stalled or unreachable database gives 503 `degraded` at the deadline at the latest; the probe
itself is abandoned to the background (`infra.deadline`), never waited for.
"""

from __future__ import annotations

from aiohttp import web

from infra.deadline import Deadline, Late, within
from memory.store import DB_ERRORS
from worker.http import answers
from worker.http.routes_context import DATABASE_DEADLINE, POOL, Route, respond


async def health(request: web.Request) -> web.Response:
    deadline = Deadline.after(request.app[DATABASE_DEADLINE])
    try:
        await within(deadline, request.app[POOL].fetchval("select 1"), step="health")
    except Late:
        return _degraded("timeout")
    except DB_ERRORS:
        return _degraded("unreachable")
    return respond({"status": "ok", "database": "ok"})


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
        summary="Health: the database answers within its deadline",
    ),
)
