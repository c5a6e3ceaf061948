"""Response headers every answer of the web process carries, set in one signal handler.

JSON answers hold memory and settings: browsers and proxies must not cache them
(`Cache-Control: no-store`) nor guess another type for them (`nosniff`). The `Server` header
names the service without the aiohttp and Python versions. The test-call page adds its own
Content-Security-Policy and referrer policy (`worker.http.console.call_page`).

Responses aiohttp writes before a request reaches the application (a malformed request line,
oversized headers) do not pass through the signal; behind the reverse proxy recommended in the
docs/deployment.md the proxy answers those.
"""

from __future__ import annotations

from typing import Final

from aiohttp import web

SERVER: Final = "caller-memory"
JSON_HEADERS: Final = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}


async def set_response_headers(_: web.Request, response: web.StreamResponse) -> None:
    """`on_response_prepare` handler: runs for every response the application answers."""
    response.headers["Server"] = SERVER
    response.headers.setdefault("X-Content-Type-Options", "nosniff")
    if response.content_type == "application/json":
        response.headers.update(JSON_HEADERS)


def install(app: web.Application) -> None:
    app.on_response_prepare.append(set_response_headers)
