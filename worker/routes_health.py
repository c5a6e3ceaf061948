"""The one open route: a health check that also proves the database answers."""

from __future__ import annotations

import asyncpg
from aiohttp import web

from worker.routes_context import POOL, Route, respond

_DB_ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, TimeoutError)
TIMEOUT_SECONDS = 2.0


async def health(request: web.Request) -> web.Response:
    try:
        await request.app[POOL].fetchval("select 1", timeout=TIMEOUT_SECONDS)
    except _DB_ERRORS:
        return respond({"status": "unavailable", "database": "unreachable"}, status=503)
    return respond({"status": "ok", "database": "ok"})


ROUTES = (Route("GET", "/healthz", health, "public"),)
