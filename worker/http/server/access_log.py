"""One access line (and the request metrics) per request: method, route, status, size and
duration; no headers.

aiohttp's default access logger formats the request line and attaches every field, request
headers included, as extras. This one logs the matched route's pattern (never the raw path or
query string, so nothing a client put in a URL is repeated) under one static event name.
"""

from __future__ import annotations

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

from worker.http.server.metrics import observe_request

UNMATCHED = "unmatched"


class AccessLogger(AbstractAccessLogger):
    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        route = route_of(request)
        observe_request(request.method, route, response.status, time)
        self.logger.info(
            "http.access",
            extra={
                "method": request.method,
                "route": route,
                "status": response.status,
                "bytes": response.body_length,
                "duration_ms": round(time * 1000, 2),
            },
        )


def route_of(request: web.BaseRequest) -> str:
    """The pattern of the route that served the request, e.g. `/api/memory/settings/{agentId}`."""
    try:
        match_info = getattr(request, "match_info", None)
    except AssertionError:  # a malformed head aiohttp answered itself never reached routing
        return UNMATCHED
    route = getattr(match_info, "route", None)
    resource = getattr(route, "resource", None)
    return resource.canonical if resource is not None else UNMATCHED
