"""How the web process listens: read deadlines and a cap on concurrent connections.

aiohttp has no header read timeout of its own, but its keep-alive timer serves as one: it
starts when a connection opens (and again after each response) and closes the connection if no
complete request head has arrived by then, whatever trickled in meanwhile. The body deadline is
applied where a body is read (`request_body.read_json`, after authentication, so an
unauthenticated client never makes the process buffer a body). The connection cap is a listening
site (aiohttp's `BaseSite` extension point) whose protocol factory answers one fixed 503 and
closes when the cap is reached, instead of letting connections pile up. aiohttp's own error
lines go through `worker.http.server.server_log`, which keeps the kind of error and drops what the
client sent.

In production run the web process behind a reverse proxy (docs/deployment.md) which buffers
requests and holds slow clients itself; these limits are the process's own floor.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from typing import Final

from aiohttp import web

from callmemory import environment
from callmemory.environment import default
from chat.identities import MAX_HEADER_BYTES
from worker.http.server.access_log import AccessLogger
from worker.http.server.server_log import server_log

MAX_BODY_BYTES: Final = 1024**2  # aiohttp's default client_max_size, stated
FIELD_SLACK_BYTES: Final = 4096
MAX_FIELD_BYTES: Final = len("x-stackbone-identities: ") + MAX_HEADER_BYTES + FIELD_SLACK_BYTES
"""aiohttp's `max_field_size` (8190 by default): the largest valid identities header fits, and
one up to 4 KiB past it still reaches the route, whose 400 names the rule. Past that aiohttp
answers its own 400. The request line keeps aiohttp's `max_line_size` (8190): it is not a
header field."""
LINGER_SECONDS: Final = 2.0
"""After an answer, how long body bytes nobody read are drained before the connection closes
(aiohttp's `lingering_time`, 10 s by default): a late body is never waited for long."""


@dataclass(frozen=True, slots=True)
class ServerLimits:
    header_timeout_seconds: float = default("WEB_HEADER_TIMEOUT_SECONDS")
    """From connection open (or the previous response) to a complete request head."""
    body_timeout_seconds: float = default("WEB_BODY_TIMEOUT_SECONDS")
    """For a route to receive the whole body (at most 1 MiB)."""
    max_connections: int = default("WEB_MAX_CONNECTIONS")
    """Open connections, idle keep-alive ones included; past it a new one gets 503."""
    max_ops_streams: int = default("WEB_MAX_OPS_STREAMS")
    """Open ops streams (`GET /api/memory/ops/stream`); past it a new one gets 503."""
    max_field_bytes: int = MAX_FIELD_BYTES
    """One header line (name and value); see `MAX_FIELD_BYTES`."""
    max_exports: int = default("WEB_MAX_EXPORTS")
    """Exports streaming at once (`POST /api/memory/customers/{agentId}/export`), each holding
    a pooled connection; past it a new one gets 429."""


def server_limits(settings: environment.Environment) -> ServerLimits:
    return ServerLimits(
        header_timeout_seconds=settings.web_header_timeout_seconds,
        body_timeout_seconds=settings.web_body_timeout_seconds,
        max_connections=settings.web_max_connections,
        max_ops_streams=settings.web_max_ops_streams,
        max_field_bytes=MAX_FIELD_BYTES,
        max_exports=settings.web_max_exports,
    )


LIMITS = web.AppKey("server_limits", ServerLimits)

_BUSY_BODY: Final = json.dumps(
    {
        "error": {
            "code": "server_busy",
            "message": "too many open connections; retry shortly",
            "field": None,
        }
    }
).encode()
BUSY_RESPONSE: Final = (
    b"HTTP/1.1 503 Service Unavailable\r\n"
    b"Server: caller-memory\r\n"
    b"Content-Type: application/json\r\n"
    b"Cache-Control: no-store\r\n"
    b"X-Content-Type-Options: nosniff\r\n"
    b"Retry-After: 1\r\n"
    b"Connection: close\r\n"
    b"Content-Length: " + str(len(_BUSY_BODY)).encode() + b"\r\n\r\n" + _BUSY_BODY
)


class _Busy(asyncio.Protocol):
    """A connection past the cap: one fixed 503, then closed; nothing of it is read."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.WriteTransport)
        transport.write(BUSY_RESPONSE)
        transport.close()


class CappedTCPSite(web.BaseSite):
    """A TCP site that serves at most `max_connections` connections at once."""

    def __init__(
        self, runner: web.BaseRunner, host: str, port: int, *, max_connections: int
    ) -> None:
        super().__init__(runner)
        self._host = host
        self._port = port
        self._max_connections = max_connections
        self.bound_port = port

    @property
    def name(self) -> str:
        return f"http://{self._host}:{self.bound_port}"

    async def start(self) -> None:
        await super().start()
        server = self._runner.server
        assert server is not None

        def protocol() -> asyncio.BaseProtocol:
            if len(server.connections) >= self._max_connections:
                return _Busy()
            return server()

        loop = asyncio.get_running_loop()
        self._server = await loop.create_server(
            protocol, self._host, self._port, backlog=self._backlog, reuse_address=True
        )
        self.bound_port = self._server.sockets[0].getsockname()[1]


def make_runner(app: web.Application) -> web.AppRunner:
    """The runner for `app` with the header deadline of its limits; `start_site` then listens."""
    return web.AppRunner(
        app,
        keepalive_timeout=app[LIMITS].header_timeout_seconds,
        max_field_size=app[LIMITS].max_field_bytes,
        lingering_time=LINGER_SECONDS,
        access_log_class=AccessLogger,
        logger=server_log(),
    )


async def start_site(runner: web.AppRunner, host: str, port: int) -> CappedTCPSite:
    limits = runner.app[LIMITS]
    site = CappedTCPSite(runner, host, port, max_connections=limits.max_connections)
    await site.start()
    return site
