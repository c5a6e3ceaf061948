"""A local OpenAI-compatible Chat Completions server with scripted replies.

It stands in for the model provider in tests: it speaks the real HTTP protocol (the service's
client talks to it unchanged), answers from a queue of scripted replies, and records every
request body it received.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web


@dataclass
class Reply:
    status: int = 200
    content: str | None = None
    raw_body: str | None = None
    delay: float = 0.0
    finish_reason: str = "stop"
    content_type: str = "application/json"
    """The Content-Type of a `raw_body` reply."""
    drop: bool = False
    """Close the connection without answering."""
    tool_calls: list[dict[str, Any]] | None = None
    """Chat Completions tool calls (`call_tool` builds them) answered instead of text."""
    cut_after: int | None = None
    """Streamed answers: close the connection after this many deltas (a model failing
    mid-answer)."""
    pace: float = 0.0
    """Streamed answers (`stream: true`): seconds before each delta, so a client can be seen
    receiving the first one before the model finished."""
    on_request: Callable[[], None] | None = None
    """Called when the request this reply answers arrives (a test stalls its database there)."""
    hold: asyncio.Event | None = None
    """Answered only once this event is set (after `delay`): the test acts while the request
    waits, instead of racing a fixed delay. Set it from the model server's loop."""


@dataclass
class ModelServer:
    replies: deque[Reply] = field(default_factory=deque)
    requests: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)
    """The headers of each Chat Completions request, in order."""
    received_at: list[float] = field(default_factory=list)
    """When each Chat Completions request arrived (`time.monotonic()`), in order."""
    # /v1/embeddings: deterministic vectors unless a scripted failure is queued
    answered_at: list[float] = field(default_factory=list)
    """When each Chat Completions answer was handed to the transport (`time.monotonic()`)."""
    streams_cut: int = 0
    """Streamed answers whose client went away before the last delta."""
    stream_pace: float = 0.0
    """The pace of every streamed answer whose reply sets none."""
    embedding_requests: list[dict[str, Any]] = field(default_factory=list)
    embedding_failures: deque[Reply] = field(default_factory=deque)
    embedding_delay: float = 0.0  # seconds before every successful embeddings answer
    embeddings_answered: int = 0  # successful embeddings answers sent
    embed: Callable[[str, int], list[float]] | None = None
    """What makes a text's vector of the asked dimensions (None: `bag_of_words`)."""
    _runner: web.AppRunner | None = None
    url: str = ""

    async def start(self) -> str:
        app = web.Application()
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_post("/v1/embeddings", self._embeddings)
        self._runner = web.AppRunner(app)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.url = f"http://127.0.0.1:{port}/v1"
        return self.url

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()

    def answer(
        self, operations: list[dict[str, Any]] | None = None, summary: str = "A call."
    ) -> None:
        """Queue a well-formed memory answer."""
        self.replies.append(
            Reply(content=json.dumps({"operations": operations or [], "summary": summary}))
        )

    def answer_text(self, content: str | None, **kw: Any) -> None:
        self.replies.append(Reply(content=content, **kw))

    def call_tool(self, name: str, arguments: dict[str, Any] | str | None = None) -> None:
        """Queue an answer that calls one tool (`arguments` as a dict, or raw text)."""
        raw = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
        call = {
            "id": f"call_{len(self.replies)}_{name}",
            "type": "function",
            "function": {"name": name, "arguments": raw},
        }
        self.replies.append(Reply(tool_calls=[call], finish_reason="tool_calls"))

    def fail(self, status: int = 500, *, delay: float = 0.0) -> None:
        self.replies.append(Reply(status=status, delay=delay))

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        self.headers.append(dict(request.headers))
        self.received_at.append(time.monotonic())
        reply = self.replies.popleft() if self.replies else Reply(status=599)
        if reply.on_request is not None:
            reply.on_request()
        if reply.delay:
            await asyncio.sleep(reply.delay)
        if reply.hold is not None:
            await reply.hold.wait()
        if reply.drop:
            assert request.transport is not None
            request.transport.close()
            raise ConnectionResetError("scripted connection drop")
        if reply.raw_body is not None:
            return web.Response(
                status=reply.status,
                body=reply.raw_body.encode("utf-8", "surrogatepass"),
                headers={"Content-Type": reply.content_type},
            )
        if reply.status != 200:
            error = {"error": {"message": "scripted failure", "type": "server_error", "code": None}}
            return web.json_response(error, status=reply.status)
        if body.get("stream"):
            return await self._stream(request, body, reply)
        self.answered_at.append(time.monotonic())
        return web.json_response(
            {
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", ""),
                "choices": [
                    {
                        "index": 0,
                        "message": _message(reply),
                        "finish_reason": reply.finish_reason,
                    }
                ],
                "usage": USAGE,
            }
        )

    async def _stream(
        self, request: web.Request, body: dict[str, Any], reply: Reply
    ) -> web.StreamResponse:
        """The answer as Chat Completions chunks, one delta at a time at the reply's pace."""
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)
        ident, pace = f"chatcmpl-{len(self.requests)}", reply.pace or self.stream_pace
        usage = (body.get("stream_options") or {}).get("include_usage")
        try:
            for sent, delta in enumerate(_deltas(reply)):
                if pace:
                    await asyncio.sleep(pace)
                if sent == reply.cut_after:
                    assert request.transport is not None
                    request.transport.close()
                    return response
                await response.write(_chunk(ident, body, delta))
            await response.write(_chunk(ident, body, {}, reply.finish_reason))
            if usage:
                await response.write(_chunk(ident, body, None, usage=USAGE))
            self.answered_at.append(time.monotonic())
            await response.write(b"data: [DONE]\n\n")
            await response.write_eof()
        except ConnectionError:  # the client went away mid-stream
            self.streams_cut += 1
        return response

    def fail_embedding(self, status: int = 500, *, delay: float = 0.0) -> None:
        """The next embeddings request fails (or answers `raw_body` via `answer_embedding_raw`)."""
        self.embedding_failures.append(Reply(status=status, delay=delay))

    def answer_embedding_raw(self, body: str) -> None:
        self.embedding_failures.append(Reply(raw_body=body))

    async def _embeddings(self, request: web.Request) -> web.Response:
        body = await request.json()
        self.embedding_requests.append(body)
        if self.embedding_failures:
            reply = self.embedding_failures.popleft()
            if reply.delay:
                await asyncio.sleep(reply.delay)
            if reply.raw_body is not None:
                return web.Response(text=reply.raw_body, content_type="application/json")
            error = {"error": {"message": "scripted failure", "type": "server_error", "code": None}}
            return web.json_response(error, status=reply.status)
        if self.embedding_delay:
            await asyncio.sleep(self.embedding_delay)
        texts = body["input"] if isinstance(body["input"], list) else [body["input"]]
        dimensions = int(body.get("dimensions", 512))
        embed = self.embed
        if embed is None:
            vectors = [bag_of_words(t, dimensions) for t in texts]
        else:  # a real model: off the event loop
            vectors = await asyncio.to_thread(lambda: [embed(t, dimensions) for t in texts])
        self.embeddings_answered += 1
        return web.json_response(
            {
                "object": "list",
                "data": [
                    {"object": "embedding", "index": i, "embedding": v}
                    for i, v in enumerate(vectors)
                ],
                "model": body.get("model", ""),
                "usage": {"prompt_tokens": len(texts), "total_tokens": len(texts)},
            }
        )


USAGE = {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18}


def _deltas(reply: Reply) -> list[dict[str, Any]]:
    """The role, then the text a word at a time, or each tool call then its arguments in two
    halves (a client must join them)."""
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": ""}]
    deltas += [{"content": word} for word in re.findall(r"\S+\s*", reply.content or "")]
    for index, call in enumerate(reply.tool_calls or ()):
        function, raw = call["function"], call["function"]["arguments"]
        head = {"index": index, "id": call["id"], "type": "function"}
        deltas.append({"tool_calls": [head | {"function": {"name": function["name"]}}]})
        for part in (raw[: len(raw) // 2], raw[len(raw) // 2 :]):
            deltas.append({"tool_calls": [{"index": index, "function": {"arguments": part}}]})
    return deltas


def _chunk(
    ident: str,
    body: dict[str, Any],
    delta: dict[str, Any] | None,
    finish: str | None = None,
    **extra: Any,
) -> bytes:
    choices = [] if delta is None else [{"index": 0, "delta": delta, "finish_reason": finish}]
    chunk = {
        "id": ident,
        "object": "chat.completion.chunk",
        "created": 0,
        "model": body.get("model", ""),
        "choices": choices,
        **extra,
    }
    return f"data: {json.dumps(chunk)}\n\n".encode()


def _message(reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls is not None:
        message["tool_calls"] = reply.tool_calls
    return message


def bag_of_words(text: str, dimensions: int) -> list[float]:
    """A deterministic unit vector: each lower-cased word adds +-1 at a slot chosen by its hash,
    so texts sharing words are close and texts sharing none are (almost) orthogonal."""
    vector = [0.0] * dimensions
    for word in re.findall(r"\w+", text.lower()):
        digest = hashlib.sha256(word.encode()).digest()
        slot = int.from_bytes(digest[:4], "big") % dimensions
        vector[slot] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(v * v for v in vector)) or 1.0
    if not any(vector):
        vector[0] = 1.0
    return [v / norm for v in vector]
