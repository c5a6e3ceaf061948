"""`POST /v1/chat/completions`: an OpenAI-compatible chat wire over a catalog agent.

`model` names the agent. This module reads OpenAI's body (`worker.http.wires.openai_body`) and
the headers every wire reads (`worker.http.wires.turn_headers`) into a `chat.TurnRequest` and
writes OpenAI's answer; the turn itself (settings, customer, memory tools, session, bounded tool
loop) is `chat.ChatTurns`, shared with the other wires (`worker.http.wires.turns`). The answer
is OpenAI's completion, or with `stream: true` its server-sent chunks as the model writes the
answer, ending `data: [DONE]` (`worker.http.wires.stream`). Errors on this path use OpenAI's
error shape (`worker.http.server.errors`).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from chat import TurnResult
from worker.http.server import chat_answers
from worker.http.server.chat_events import ChatChunk, ChunkChoice, ChunkDelta, ChunkToolCall
from worker.http.server.context import Route, respond, wire_json
from worker.http.server.request_body import parse_body, read_json
from worker.http.wires.openai_body import ChatBody
from worker.http.wires.stream import stream_turn
from worker.http.wires.turn_headers import identities_of, session_of
from worker.http.wires.turns import chat_turns, turn_request


async def complete(request: web.Request) -> web.StreamResponse:
    body = parse_body(ChatBody, await read_json(request))
    messages = [m.model_dump(exclude_none=True) for m in body.messages]
    identities = identities_of(request, body.user)
    session = session_of(request)
    turn = turn_request(request, body.model, messages, identities, session, body.options())
    if body.stream:
        include_usage = body.stream_options is not None and body.stream_options.include_usage
        return await stream_turn(request, turn, _Chunks(body.model, include_usage))
    result = await chat_turns(request).take(turn)
    return respond(chat_answers.ChatCompletion.of(body.model, result).wire())


def _sse(body: dict[str, Any]) -> bytes:
    return f"data: {wire_json(body)}\n\n".encode()


@dataclass(frozen=True, slots=True)
class _Chunks:
    """OpenAI's server-sent chunks: the role, each text delta as the model writes it, the
    finish, usage if the client asked (`stream_options.include_usage`), then `[DONE]`."""

    model: str
    include_usage: bool
    ident: str = field(default_factory=lambda: f"chatcmpl-{uuid.uuid4().hex}")

    def _chunk(self, *choices: ChunkChoice) -> ChatChunk:
        return ChatChunk.of(self.ident, self.model, *choices)

    def opening(self) -> bytes:
        role = ChunkDelta(role="assistant", content="")
        return _sse(self._chunk(ChunkChoice.of(role)).wire())

    def delta(self, text: str) -> bytes:
        return _sse(self._chunk(ChunkChoice.of(ChunkDelta(content=text))).wire())

    def closing(self, result: TurnResult) -> bytes:
        last = b""
        done = self._chunk(ChunkChoice.of(ChunkDelta(), result.finish_reason))
        if result.held is not None:
            call = ChunkDelta(tool_calls=[ChunkToolCall.of(result.held)])
            last = _sse(self._chunk(ChunkChoice.of(call)).wire())
            done.stackbone = chat_answers.StackboneMember.of(result.held)
        last += _sse(done.wire())
        if self.include_usage:
            usage = self._chunk()
            usage.usage = chat_answers.ChatUsage.of(result)
            last += _sse(usage.wire())
        return last + b"data: [DONE]\n\n"

    def failure(self, body: dict[str, Any]) -> bytes:
        return _sse(body)


ROUTES = (
    Route(
        "POST",
        "/v1/chat/completions",
        complete,
        "chat",
        agents="one",
        deadline="own",  # model requests outlast the database deadline; database steps bounded
        body=ChatBody,
        answers=((200, chat_answers.ChatCompletion),),
        summary="A text turn with an agent (OpenAI Chat Completions)",
    ),
)
