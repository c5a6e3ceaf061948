"""A chat turn streamed to its client as the conversation model writes it, in a wire's shape.

The wire gives a `StreamShape`: the bytes that open the stream, carry one text delta, close it
with the turn's finish and usage, and report a failure. The stream opens with the first text
delta (the tool rounds run before it), so a turn that fails before any text answers with the
wire's JSON error and status like a plain turn. A failure after it is a last event in the wire's
error shape. A client that goes away mid-stream makes the next write fail: the model's stream
is closed (its request ends), the turn keeps nothing and its session is released.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Protocol

import structlog
from aiohttp import web

from chat import TurnRequest, TurnResult
from worker.http.server.errors import UNEXPECTED, error_body, translate, wire_of
from worker.http.wires.turns import chat_turns

log = structlog.get_logger(__name__)


class StreamShape(Protocol):
    def opening(self) -> bytes: ...

    def delta(self, text: str) -> bytes: ...

    def closing(self, result: TurnResult) -> bytes: ...

    def failure(self, body: dict[str, Any]) -> bytes: ...


class TurnStream:
    """The response, prepared on first use."""

    def __init__(self, request: web.Request, shape: StreamShape) -> None:
        self.request, self.shape = request, shape
        self.response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )

    async def begin(self) -> None:
        if not self.response.prepared:
            await self.response.prepare(self.request)
            await self.response.write(self.shape.opening())

    async def relay(self, text: str) -> None:
        await self.send(self.shape.delta(text))

    async def send(self, data: bytes) -> None:
        """Write an event of the wire's own (a tool's result) in the stream's order."""
        await self.begin()
        await self.response.write(data)

    async def end(self, last: bytes) -> None:
        await self.begin()
        await self.response.write(last)
        await self.response.write_eof()


async def stream_turn(
    request: web.Request, turn: TurnRequest, shape: StreamShape
) -> web.StreamResponse:
    turns = chat_turns(request)
    return await stream_run(request, shape, lambda stream: turns.take(turn, stream.relay))


async def stream_run(
    request: web.Request,
    shape: StreamShape,
    run: Callable[[TurnStream], Awaitable[TurnResult]],
) -> web.StreamResponse:
    """Stream one turn that `run` runs with the stream (a wire's turn, a continued one)."""
    stream = TurnStream(request, shape)
    try:
        result = await run(stream)
    except ConnectionError:
        if not stream.response.prepared:
            raise
        log.info("chat.stream_abandoned")  # the client went away
        return stream.response
    except Exception as exc:
        if not stream.response.prepared:
            raise  # answered as JSON by the error middleware
        problem = translate(exc)
        if problem is UNEXPECTED:
            log.error("chat.stream_failed", error_type=type(exc).__name__)
        await _quietly(stream.end(shape.failure(error_body(problem, wire_of(request.path)))))
        return stream.response
    await _quietly(stream.end(shape.closing(result)))
    return stream.response


async def _quietly(writing: Awaitable[None]) -> None:
    """The last write, to a client that may have gone meanwhile."""
    try:
        await writing
    except ConnectionError:
        log.info("chat.stream_abandoned")
