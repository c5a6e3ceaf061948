"""The ops log, live: one agent's `memory.ops` events as server-sent events, from a cursor on.

    GET /api/memory/ops/stream?agentId=front-desk&after=41       (scope memory:read)
    Last-Event-ID: 41                                            (a reconnect; wins over after)

Each event is `id: <event id>`, `event: op` and `data: <the event's JSON>` (the same object one
event is in `GET /api/memory/ops`), so a client that reconnects with the last id it saw gets
exactly what it missed, in order. The stream reads the ops log by cursor every `POLL_SECONDS`
through the pool (LISTEN/NOTIFY would not pass a transaction-mode PgBouncer); while nothing
happens a `: keep-alive` comment goes out every `HEARTBEAT_SECONDS`, so proxies keep it open.

Parameters, the cursor and the agent are checked, and the first page is read, before the stream
starts: a bad one is the ops route's 400, an expired cursor its 410. A database failure once
the stream runs ends it; the client reconnects and meets the failure as an answer. The stream
ends when the client goes or the app shuts down (`on_shutdown` wakes every stream), and at
most `WEB_MAX_OPS_STREAMS` run at once in a process: one more is a 503 `server_busy`.

The key travels in the `Authorization` header only (a browser reads the stream with `fetch`,
not `EventSource`), never in the query string, where it would end in access logs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final

import structlog
from aiohttp import web

from memory.contract import MemoryFailure
from memory.ops import OpsEvent
from memory.store import MAX_LIMIT, ops_after
from worker.http.routes.ops import cursor, parse_query
from worker.http.server import answers
from worker.http.server.context import POOL, Route, agent_of, bounded, wire_json
from worker.http.server.failures import StreamsFull

PATH: Final = "/api/memory/ops/stream"
POLL_SECONDS: Final = 1.0  # a constant: how soon an event written elsewhere is sent
HEARTBEAT_SECONDS: Final = 15.0
LAST_EVENT_ID: Final = "Last-Event-ID"
_PARAMS: Final = frozenset({"agentId", "after"})
_HEARTBEAT: Final = b": keep-alive\n\n"
log = structlog.get_logger(__name__)


@dataclass(slots=True)
class OpsStreams:
    """The process's open streams: how many may run, how they pace, and the stop for all."""

    limit: int
    poll_seconds: float = POLL_SECONDS
    heartbeat_seconds: float = HEARTBEAT_SECONDS
    open: int = 0
    stopping: asyncio.Event = field(default_factory=asyncio.Event)

    @contextmanager
    def slot(self) -> Iterator[None]:
        """One stream's place; past the limit `StreamsFull`."""
        if self.open >= self.limit:
            raise StreamsFull(self.limit)
        self.open += 1
        try:
            yield
        finally:
            self.open -= 1


OPS_STREAMS = web.AppKey("ops_streams", OpsStreams)


async def stop_streams(app: web.Application) -> None:
    """`on_shutdown`: every open stream ends now instead of holding the server's shutdown."""
    app[OPS_STREAMS].stopping.set()


def frame(event: OpsEvent) -> bytes:
    """One server-sent event (the JSON is one line: it holds no raw newline; a lone surrogate
    travels as its `\\u` escape, `wire_json`)."""
    data = wire_json(event, separators=(",", ":"))
    return f"id: {event['id']}\nevent: op\ndata: {data}\n\n".encode()


def start_cursor(query_after: int, last_event_id: str | None) -> int:
    """Where the stream starts: the `Last-Event-ID` of a reconnect, else `after`."""
    return query_after if last_event_id is None else cursor(last_event_id, LAST_EVENT_ID)


async def stream_ops(request: web.Request) -> web.StreamResponse:
    agent_id, after, _ = parse_query(request.query, _PARAMS)
    after = start_cursor(after, request.headers.get(LAST_EVENT_ID))
    agent = agent_of(request, agent_id).name
    streams = request.app[OPS_STREAMS]
    with streams.slot():
        first = await bounded(request, ops_after(request.app[POOL], agent, after, MAX_LIMIT))
        response = web.StreamResponse(headers={"Cache-Control": "no-store"})
        response.content_type = "text/event-stream"
        await response.prepare(request)
        try:
            await _run(request, response, streams, agent=agent, events=first, after=after)
            await response.write_eof()
        except ConnectionResetError:  # the client went while a frame was written
            pass
    return response


async def _run(
    request: web.Request,
    response: web.StreamResponse,
    streams: OpsStreams,
    *,
    agent: str,
    events: list[OpsEvent],
    after: int,
) -> None:
    """Send events as the log grows until the client goes, the app stops or the log fails."""
    loop = asyncio.get_running_loop()
    quiet_since = loop.time()
    while True:
        for event in events:
            await response.write(frame(event))
            after = event["id"]
        if events:
            quiet_since = loop.time()
        if len(events) < MAX_LIMIT and await _stopped(streams, request):
            return
        if loop.time() - quiet_since >= streams.heartbeat_seconds:
            await response.write(_HEARTBEAT)
            quiet_since = loop.time()
        try:
            events = await bounded(request, ops_after(request.app[POOL], agent, after, MAX_LIMIT))
        except MemoryFailure as failure:  # the reconnect meets it as an answer
            log.warning("ops_stream.read_failed", code=failure.code)
            return


async def _stopped(streams: OpsStreams, request: web.Request) -> bool:
    """Wait one poll interval; whether the stream must end (app stopping or client gone)."""
    try:
        async with asyncio.timeout(streams.poll_seconds):
            await streams.stopping.wait()
        return True
    except TimeoutError:
        transport = request.transport
        return transport is None or transport.is_closing()


ROUTES = (
    Route(
        "GET",
        PATH,
        stream_ops,
        "memory:read",
        agents="one",
        deadline="own",
        query=("agentId", "after"),
        answers=((200, answers.OpsEventItem),),  # the `data` of each event
        download=("text/event-stream",),
        summary="memory.ops events of one agent as server-sent events, from a cursor on",
    ),
)
