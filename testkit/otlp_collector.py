"""A local OTLP/HTTP trace collector: what an exporter pointed at it sent, as raw bodies.

async with otlp_collector() as (endpoint, received):
    ... OTEL_EXPORTER_OTLP_ENDPOINT=endpoint ...
spans = span_names(received)
"""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest


@asynccontextmanager
async def otlp_collector() -> AsyncIterator[tuple[str, list[bytes]]]:
    """Serves `POST /v1/traces` on a free local port; yields the endpoint and the bodies."""
    received: list[bytes] = []

    async def traces(request: web.Request) -> web.Response:
        received.append(await request.read())
        return web.Response(status=200, content_type="application/x-protobuf")

    app = web.Application()
    app.router.add_post("/v1/traces", traces)
    runner = web.AppRunner(app)
    await runner.setup()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = int(probe.getsockname()[1])
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        yield f"http://127.0.0.1:{port}", received
    finally:
        await runner.cleanup()


def span_names(received: list[bytes]) -> list[str]:
    """The names of every span in the bodies received, in order."""
    names: list[str] = []
    for body in received:
        request = ExportTraceServiceRequest.FromString(body)
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                names.extend(span.name for span in scope.spans)
    return names
