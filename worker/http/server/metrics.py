"""The web process's Prometheus metrics, served on a port of their own.

`WEB_METRICS_PORT` (unset: off) opens a second listener on the web host answering
`GET /metrics` without authentication: keep that port on the private network (the API port
stays behind bearer keys). Requests are counted by route pattern and status, never by path.
"""

from __future__ import annotations

from typing import Final

from aiohttp import web
from prometheus_client import REGISTRY, Counter, Histogram
from prometheus_client.aiohttp import make_aiohttp_handler

from infra.prometheus_dir import ensure_multiprocess_dir
from memory.extraction import register_metrics

ensure_multiprocess_dir()  # before the first metric: see infra.prometheus_dir
register_metrics()  # the memory core's (an add loads them otherwise): shown from the start

PORT_VAR: Final = "WEB_METRICS_PORT"

REQUESTS: Final = Counter(
    "caller_memory_http_requests",
    "HTTP requests by method, route pattern and status.",
    ["method", "route", "status"],
)
REQUEST_SECONDS: Final = Histogram(
    "caller_memory_http_request_seconds",
    "Time to answer an HTTP request, by route pattern.",
    ["route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)


def observe_request(method: str, route: str, status: int, seconds: float) -> None:
    REQUESTS.labels(method=method, route=route, status=str(status)).inc()
    REQUEST_SECONDS.labels(route=route).observe(seconds)


def metrics_app() -> web.Application:
    """`GET /metrics` in Prometheus' text format, from this process's registry."""
    app = web.Application()
    app.router.add_get("/metrics", make_aiohttp_handler(REGISTRY))
    return app
