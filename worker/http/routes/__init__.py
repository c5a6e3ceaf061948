"""The API routes over memory, documents, sessions, voice and the ops log, one module per
resource, and the OpenAPI document built from every room's route table (`openapi`).

The face the app uses: `ROUTES` (in this order in the router and the OpenAPI document), the app
keys `create_app` fills, and `openapi`.
"""

from __future__ import annotations

from worker.http.routes import (
    activity,
    customer_add,
    customer_export,
    customer_reads,
    customers,
    documents,
    extraction,
    health,
    openapi,
    ops,
    ops_stream,
    overview,
    prompts,
    retention,
    search,
    sessions,
    settings,
    voice,
)
from worker.http.routes.customer_export import EXPORT_SLOTS, ExportSlots
from worker.http.routes.health import SEARCH, SearchSeen
from worker.http.routes.ops_stream import OPS_STREAMS, OpsStreams, stop_streams
from worker.http.routes.voice import DISPATCHER
from worker.http.server.context import Route

ROUTES: tuple[Route, ...] = (
    *health.ROUTES,
    *settings.ROUTES,
    *retention.ROUTES,
    *customers.ROUTES,
    *customer_add.ROUTES,
    *customer_export.ROUTES,
    *customer_reads.ROUTES,
    *search.ROUTES,
    *extraction.ROUTES,
    *prompts.ROUTES,
    *activity.ROUTES,
    *voice.ROUTES,
    *ops.ROUTES,
    *ops_stream.ROUTES,
    *overview.ROUTES,
    *sessions.ROUTES,
    *documents.ROUTES,
)

__all__ = [
    "DISPATCHER",
    "EXPORT_SLOTS",
    "OPS_STREAMS",
    "ROUTES",
    "SEARCH",
    "ExportSlots",
    "OpsStreams",
    "SearchSeen",
    "openapi",
    "stop_streams",
]
