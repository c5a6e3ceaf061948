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

import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from chat import TurnResult
from worker.http.server import chat_answers
from worker.http.server.context import Route, respond, wire_json
from worker.http.server.request_body import parse_body, read_json
from worker.http.wires.decision_bodies import held_member
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
    return respond(_completion(body.model, await chat_turns(request).take(turn)))


def _dumps(value: Any) -> str:
    return wire_json(value)


def _usage(result: TurnResult) -> dict[str, int]:
    total = result.prompt_tokens + result.completion_tokens
    return {
        "prompt_tokens": result.prompt_tokens,
        "completion_tokens": result.completion_tokens,
        "total_tokens": total,
    }


def _held_call(result: TurnResult) -> dict[str, Any] | None:
    """The held call as OpenAI's `tool_calls` item (None: the turn did not park)."""
    held = result.held
    if held is None:
        return None
    function = {"name": held.tool, "arguments": held.arguments}
    return {"id": held.tool_call_id, "type": "function", "function": function}


def _completion(model: str, result: TurnResult) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": result.reply, "refusal": None}
    held = {} if result.held is None else {"stackbone": held_member(result.held)}
    if (call := _held_call(result)) is not None:
        message |= {"content": result.reply or None, "tool_calls": [call]}
    return held | {
        "id": f"chatcmpl-{uuid.uuid4().hex}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": result.finish_reason,
            }
        ],
        "usage": _usage(result),
    }


def _chunk(ident: str, model: str, choices: list[dict[str, Any]], **extra: Any) -> bytes:
    body = {
        "id": ident,
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "choices": choices,
        **extra,
    }
    return f"data: {_dumps(body)}\n\n".encode()


@dataclass(frozen=True, slots=True)
class _Chunks:
    """OpenAI's server-sent chunks: the role, each text delta as the model writes it, the
    finish, usage if the client asked (`stream_options.include_usage`), then `[DONE]`."""

    model: str
    include_usage: bool
    ident: str = field(default_factory=lambda: f"chatcmpl-{uuid.uuid4().hex}")

    def opening(self) -> bytes:
        role = {"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}
        return _chunk(self.ident, self.model, [role])

    def delta(self, text: str) -> bytes:
        choice = {"index": 0, "delta": {"content": text}, "finish_reason": None}
        return _chunk(self.ident, self.model, [choice])

    def closing(self, result: TurnResult) -> bytes:
        done = {"index": 0, "delta": {}, "finish_reason": result.finish_reason}
        last = b""
        if (call := _held_call(result)) is not None:
            delta = {"tool_calls": [{"index": 0, **call}]}
            last = _chunk(
                self.ident, self.model, [{"index": 0, "delta": delta, "finish_reason": None}]
            )
        extra = {} if result.held is None else {"stackbone": held_member(result.held)}
        last += _chunk(self.ident, self.model, [done], **extra)
        if self.include_usage:
            last += _chunk(self.ident, self.model, [], usage=_usage(result))
        return last + b"data: [DONE]\n\n"

    def failure(self, body: dict[str, Any]) -> bytes:
        return f"data: {_dumps(body)}\n\n".encode()


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
