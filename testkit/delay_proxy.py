"""A TCP forwarder that puts a network between a client and a local Postgres: a round-trip delay.

    proxy = DelayProxy(server_url, rtt_ms=20)
    await proxy.start()
    url = proxy.url_for("mydb")     # what the service is given as DATABASE_URL
    proxy.rtt_ms = 5                # changed at any time: the next chunk sees the new delay
    proxy.turns_between(t0, t1)     # round trips clients began in that window
    proxy.turns_between(t0, t1, ports={50123})   # only those of these client ports
    await proxy.stop()

Every chunk read in either direction is written out half the round trip later, in order, so
pipelined messages are delayed once, not once each, as on a real link. A new connection costs
one extra round trip before its first bytes reach the server (TCP's handshake). Upstream is the
server's own address: its TCP port, or its Unix socket when the URL names a socket directory.

A round trip ("turn") is counted each time a client sends after having been answered (and on
its first bytes): a client that waits for every answer counts one per query, a pipelined batch
counts one. The times of every turn are kept, so a benchmark can count those before a moment.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

from testkit.pgbouncer import upstream, upstream_password

CHUNK = 65536


@dataclass
class _Stats:
    turns: list[float] = field(default_factory=list)  # time.monotonic() of each round trip
    connections: int = 0
    by_port: dict[int, list[float]] = field(default_factory=dict)  # the same, per client port


class DelayProxy:
    """Listens on 127.0.0.1; each accepted connection is forwarded to the server of `server_url`."""

    def __init__(self, server_url: str, rtt_ms: float = 0.0) -> None:
        self._host, self._port, self._user = upstream(server_url)
        self._password = upstream_password(server_url)
        self._socket = Path(self._host).is_dir()  # a socket directory, as libpq reads `host`
        self.rtt_ms = rtt_ms
        self.stats = _Stats()
        self.port = 0
        self._server: asyncio.Server | None = None
        self._pipes: set[asyncio.Task[None]] = set()

    @property
    def half_seconds(self) -> float:
        return self.rtt_ms / 2000

    def url_for(self, database: str) -> str:
        login = f"{quote(self._user, safe='')}:{quote(self._password, safe='')}"
        return f"postgresql://{login}@127.0.0.1:{self.port}/{database}"

    def turns_between(self, start: float, end: float, ports: set[int] | None = None) -> int:
        """Round trips begun in the window; `ports`: only on connections from those client
        ports (a benchmark's own processes' connections, `psutil` tells which are whose)."""
        if ports is None:
            return sum(1 for at in self.stats.turns if start <= at <= end)
        turns = (at for port in ports for at in self.stats.by_port.get(port, ()))
        return sum(1 for at in turns if start <= at <= end)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._accept, "127.0.0.1", 0)
        self.port = int(self._server.sockets[0].getsockname()[1])

    async def stop(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._pipes):
            task.cancel()
        await asyncio.gather(*self._pipes, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def _open_upstream(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if self._socket:
            return await asyncio.open_unix_connection(f"{self._host}/.s.PGSQL.{self._port}")
        return await asyncio.open_connection(self._host, self._port)

    def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.create_task(self._serve(reader, writer))
        self._pipes.add(task)
        task.add_done_callback(self._pipes.discard)

    async def _serve(self, client_r: asyncio.StreamReader, client_w: asyncio.StreamWriter) -> None:
        self.stats.connections += 1
        peer = client_w.get_extra_info("peername")
        link = _Link(self.stats, self.stats.by_port.setdefault(int(peer[1]), []))
        try:
            await asyncio.sleep(2 * self.half_seconds)  # the handshake's round trip
            server_r, server_w = await self._open_upstream()
        except (OSError, asyncio.CancelledError):
            client_w.close()
            raise
        try:
            await asyncio.gather(
                self._pipe(client_r, server_w, link, from_client=True),
                self._pipe(server_r, client_w, link, from_client=False),
            )
        finally:
            for writer in (client_w, server_w):
                writer.close()

    async def _pipe(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        link: _Link,
        *,
        from_client: bool,
    ) -> None:
        """Read chunks as they come; write each half a round trip after it was read."""
        queue: asyncio.Queue[tuple[float, bytes]] = asyncio.Queue()
        delivering = asyncio.create_task(_deliver(queue, writer))
        try:
            while chunk := await _read(reader):
                link.saw(from_client)
                queue.put_nowait((time.monotonic() + self.half_seconds, chunk))
        finally:
            queue.put_nowait((0.0, b""))  # end of stream, after what is queued
            with contextlib.suppress(ConnectionError):
                await delivering


@dataclass
class _Link:
    """One connection's direction of last traffic: a client chunk after an answer is a turn."""

    stats: _Stats
    mine: list[float]  # this connection's turns
    answered: bool = True

    def saw(self, from_client: bool) -> None:
        if from_client and self.answered:
            now = time.monotonic()
            self.stats.turns.append(now)
            self.mine.append(now)
        self.answered = not from_client


async def _read(reader: asyncio.StreamReader) -> bytes:
    with contextlib.suppress(ConnectionError):
        return await reader.read(CHUNK)
    return b""


async def _deliver(queue: asyncio.Queue[tuple[float, bytes]], writer: asyncio.StreamWriter) -> None:
    while True:
        due, chunk = await queue.get()
        if not chunk:
            if writer.can_write_eof():
                with contextlib.suppress(OSError):
                    writer.write_eof()
            return
        if (wait := due - time.monotonic()) > 0:
            await asyncio.sleep(wait)
        writer.write(chunk)
        await writer.drain()
