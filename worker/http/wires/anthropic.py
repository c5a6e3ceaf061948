"""`POST /v1/messages`: an Anthropic Messages wire over a catalog agent.

`model` names the agent, `metadata.user_id` supplies `customerId`, and the identity and session
headers are every wire's (`worker.http.wires.turn_headers`). This module only reads Anthropic's
body (`worker.http.wires.anthropic_body`) into a `chat.TurnRequest` and writes Anthropic's
answer: the turn itself (settings, customer, memory tools, session, bounded tool loop) is
`chat.ChatTurns`, shared by every chat wire (`worker.http.wires.turns`). With `stream: true` the
answer travels as Anthropic's server-sent events as the model writes it
(`worker.http.wires.stream`). The key comes as `x-api-key`, as Anthropic's clients send it, or
as a bearer key. Errors on this path use Anthropic's error shape (`worker.http.server.errors`).
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from chat import TurnResult
from worker.http.server.answers import AnthropicError, WireAnswer
from worker.http.server.chat_answers import AnthropicMessage, AnthropicText, AnthropicToolUse
from worker.http.server.chat_events import (
    BlockDelta,
    BlockStart,
    BlockStop,
    InputDelta,
    MessageDelta,
    MessageStart,
    MessageStop,
    TextDelta,
)
from worker.http.server.context import Route, respond, wire_json
from worker.http.server.request_body import parse_body, read_json
from worker.http.wires.anthropic_body import MessagesBody
from worker.http.wires.stream import stream_turn
from worker.http.wires.turn_headers import identities_of, session_of
from worker.http.wires.turns import chat_turns, turn_request


async def messages(request: web.Request) -> web.StreamResponse:
    body = parse_body(MessagesBody, await read_json(request))
    identities = identities_of(request, body.user_id(), "metadata.user_id")
    session = session_of(request)
    said = body.chat_messages()
    turn = turn_request(request, body.model, said, identities, session, body.options())
    if body.stream:
        return await stream_turn(request, turn, Events(body.model))
    result = await chat_turns(request).take(turn)
    return respond(AnthropicMessage.of(body.model, result).wire())


def _sse(name: str, body: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {wire_json(body)}\n\n".encode()


def _event(event: WireAnswer) -> bytes:
    """An event named as its `type`."""
    body = event.wire()
    return _sse(str(body["type"]), body)


@dataclass(frozen=True, slots=True)
class Events:
    """Anthropic's stream: `message_start`, one text block (`content_block_start`, a
    `content_block_delta` per text delta, `content_block_stop`), `message_delta` with the stop
    reason and the turn's tokens, `message_stop`; a failure after the start is an `error`."""

    model: str
    ident: str = field(default_factory=lambda: f"msg_{uuid.uuid4().hex}")

    def opening(self) -> bytes:
        block = AnthropicText(type="text", text="")
        start = BlockStart(type="content_block_start", index=0, content_block=block)
        return _event(MessageStart.of(self.ident, self.model)) + _event(start)

    def delta(self, text: str) -> bytes:
        delta = TextDelta(type="text_delta", text=text)
        return _event(BlockDelta(type="content_block_delta", index=0, delta=delta))

    def closing(self, result: TurnResult) -> bytes:
        return (
            _event(BlockStop(type="content_block_stop", index=0))
            + self._held(result)
            + _event(MessageDelta.of(result))
            + _event(MessageStop(type="message_stop"))
        )

    def _held(self, result: TurnResult) -> bytes:
        """A held call as a second block: its start, its input as one JSON delta, its stop."""
        if result.held is None:
            return b""
        call = AnthropicToolUse.of(result.held)
        opened = AnthropicToolUse(type="tool_use", id=call.id, name=call.name, input={})
        start = BlockStart(type="content_block_start", index=1, content_block=opened)
        partial = InputDelta(type="input_json_delta", partial_json=wire_json(call.input))
        return (
            _event(start)
            + _event(BlockDelta(type="content_block_delta", index=1, delta=partial))
            + _event(BlockStop(type="content_block_stop", index=1))
        )

    def failure(self, body: dict[str, Any]) -> bytes:
        return _sse("error", body)


ROUTES = (
    Route(
        "POST",
        "/v1/messages",
        messages,
        "chat",
        agents="one",
        deadline="own",  # model requests outlast the database deadline; database steps bounded
        body=MessagesBody,
        answers=((200, AnthropicMessage),),
        summary="A text turn with an agent (Anthropic Messages; the key also as x-api-key)",
        api_key_header=True,
        errors=AnthropicError,
    ),
)
