"""A TCP proxy between the browser and the app that a test can cut, as a network drop would.

Every connection is piped both ways; the request lines the browser sends are recorded (plain
HTTP on loopback). `cut()` aborts every open connection and refuses new ones until `restore()`.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

REQUEST_LINE = re.compile(rb"(?:GET|POST|PUT|DELETE) (\S+) HTTP/1\.1\r\n")
READ_BYTES = 65536


class CuttableProxy:
    def __init__(self, host: str, port: int) -> None:
        self._target = (host, port)
        self._links: set[asyncio.StreamWriter] = set()
        self.down = False
        self.paths: list[str] = []  # every request's path and query, in order
        self.port = 0

    async def _pipe(
        self, source: asyncio.StreamReader, sink: asyncio.StreamWriter, record: bool
    ) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            while data := await source.read(READ_BYTES):
                if record:
                    self.paths += [m.decode() for m in REQUEST_LINE.findall(data)]
                sink.write(data)
                await sink.drain()
        sink.close()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if self.down:
            writer.transport.abort()
            return
        up_reader, up_writer = await asyncio.open_connection(*self._target)
        self._links |= {writer, up_writer}
        try:
            await asyncio.gather(
                self._pipe(reader, up_writer, record=True), self._pipe(up_reader, writer, False)
            )
        finally:
            self._links -= {writer, up_writer}

    def cut(self) -> None:
        """Drop every connection now and refuse new ones."""
        self.down = True
        for writer in self._links:
            writer.transport.abort()

    def restore(self) -> None:
        self.down = False


@asynccontextmanager
async def proxy_to(host: str, port: int) -> AsyncIterator[CuttableProxy]:
    proxy = CuttableProxy(host, port)
    server = await asyncio.start_server(proxy._handle, "127.0.0.1", 0)
    proxy.port = server.sockets[0].getsockname()[1]
    async with server:
        yield proxy
        proxy.cut()
    await server.wait_closed()
