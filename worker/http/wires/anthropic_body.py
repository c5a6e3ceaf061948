"""What the Anthropic Messages wire reads and writes: its body, read strictly with the same limits
as the OpenAI wire's, and its answers: the message, and the server-sent events of a stream.

Only text travels: a message's content is a string or a list of text blocks (tool use, tool
results and images are refused, as the only tools are the server's memory tools). `system`
becomes a system message after the agent's instructions. `metadata.user_id` is Anthropic's own
end-user field and supplies `customerId` only, as `user` does on the OpenAI wire.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from chat import TurnResult
from chat.turn_request import MAX_MESSAGE_CHARS, MAX_MESSAGES
from memory.contract import limits
from worker.http.server.context import wire_json
from worker.http.wires.decision_bodies import held_member

MAX_BLOCKS = 64
Text = Annotated[str, StringConstraints(max_length=MAX_MESSAGE_CHARS)]


class TextBlock(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    type: Literal["text"]
    text: Text


def _blocks(value: object) -> object:
    """A string is one text block (so every refusal names one path: `content.N.text`)."""
    return [{"type": "text", "text": value}] if isinstance(value, str) else value


Content = Annotated[
    list[TextBlock],
    Field(max_length=MAX_BLOCKS),
    BeforeValidator(_blocks, json_schema_input_type=Text | list[TextBlock]),
]


def _text(content: Content) -> str:
    return "".join(b.text for b in content)


class Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    role: Literal["user", "assistant"]
    content: Content


class Metadata(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    user_id: Any = None  # checked as an identity value (`chat.identities`)


class MessagesBody(BaseModel):
    """`POST /v1/messages`: `model` is an agent id of the catalog."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    model: Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_AGENT_ID_CHARS)]
    max_tokens: Annotated[int, Field(ge=1, le=1_000_000)]
    messages: Annotated[list[Message], Field(min_length=1, max_length=MAX_MESSAGES)]
    system: Content | None = None
    metadata: Metadata | None = None
    stream: bool = False
    temperature: Annotated[float, Field(ge=0, le=1)] | None = None
    top_p: Annotated[float, Field(ge=0, le=1)] | None = None

    def chat_messages(self) -> list[dict[str, Any]]:
        """The new messages in Chat Completions' shape (what the turn and the session keep)."""
        system = [] if self.system is None else [{"role": "system", "content": _text(self.system)}]
        return [*system, *({"role": m.role, "content": _text(m.content)} for m in self.messages)]

    def user_id(self) -> object:
        return None if self.metadata is None else self.metadata.user_id

    def options(self) -> dict[str, Any]:
        """What the conversation model is also sent."""
        chosen = {"temperature": self.temperature, "top_p": self.top_p}
        # OpenAI's current name: its reasoning models refuse the older `max_tokens`
        limit = {"max_completion_tokens": self.max_tokens}
        return limit | {k: v for k, v in chosen.items() if v is not None}


def stop_reason(result: TurnResult) -> str:
    if result.held is not None:
        return "tool_use"
    return "max_tokens" if result.finish_reason == "length" else "end_turn"


def tool_input(arguments: str) -> dict[str, Any]:
    """A held call's arguments as a `tool_use` block's `input` (an object; arguments the model
    wrote that are not a JSON object travel as `{}`: the decision route shows them as written)."""
    try:
        value = json.loads(arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _held_block(result: TurnResult) -> dict[str, Any] | None:
    held = result.held
    if held is None:
        return None
    return {
        "type": "tool_use",
        "id": held.tool_call_id,
        "name": held.tool,
        "input": tool_input(held.arguments),
    }


def _held_member(result: TurnResult) -> dict[str, Any]:
    return {} if result.held is None else {"stackbone": held_member(result.held)}


def message(model: str, result: TurnResult, ident: str | None = None) -> dict[str, Any]:
    """Anthropic's message answer: one text block (and a held call's `tool_use` block), why it
    stopped, the tokens (and a held call's `stackbone` member)."""
    block = _held_block(result)
    text = [{"type": "text", "text": result.reply}] if block is None or result.reply else []
    return _held_member(result) | {
        "id": ident or f"msg_{uuid.uuid4().hex}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": text + ([] if block is None else [block]),
        "stop_reason": stop_reason(result),
        "stop_sequence": None,
        "usage": {"input_tokens": result.prompt_tokens, "output_tokens": result.completion_tokens},
    }


def _event(name: str, data: dict[str, Any]) -> bytes:
    return f"event: {name}\ndata: {wire_json(data)}\n\n".encode()


@dataclass(frozen=True, slots=True)
class Events:
    """Anthropic's stream: `message_start`, one text block (`content_block_start`, a
    `content_block_delta` per text delta, `content_block_stop`), `message_delta` with the stop
    reason and the turn's tokens, `message_stop`; a failure after the start is an `error`."""

    model: str
    ident: str = field(default_factory=lambda: f"msg_{uuid.uuid4().hex}")

    def opening(self) -> bytes:
        start = message(self.model, TurnResult(), self.ident) | {"content": [], "stop_reason": None}
        block = {
            "type": "content_block_start",
            "index": 0,
            "content_block": {"type": "text", "text": ""},
        }
        return _event("message_start", {"type": "message_start", "message": start}) + _event(
            "content_block_start", block
        )

    def delta(self, text: str) -> bytes:
        delta = {"type": "text_delta", "text": text}
        return _event(
            "content_block_delta", {"type": "content_block_delta", "index": 0, "delta": delta}
        )

    def closing(self, result: TurnResult) -> bytes:
        usage = {"input_tokens": result.prompt_tokens, "output_tokens": result.completion_tokens}
        delta = {"stop_reason": stop_reason(result), "stop_sequence": None}
        last = {"type": "message_delta", "delta": delta, "usage": usage} | _held_member(result)
        return (
            _event("content_block_stop", {"type": "content_block_stop", "index": 0})
            + self._held(result)
            + _event("message_delta", last)
            + _event("message_stop", {"type": "message_stop"})
        )

    def _held(self, result: TurnResult) -> bytes:
        """A held call as a second block: its start, its input as one JSON delta, its stop."""
        block = _held_block(result)
        if block is None:
            return b""
        start = {"type": "content_block_start", "index": 1, "content_block": block | {"input": {}}}
        partial = {"type": "input_json_delta", "partial_json": wire_json(block["input"])}
        delta = {"type": "content_block_delta", "index": 1, "delta": partial}
        return (
            _event("content_block_start", start)
            + _event("content_block_delta", delta)
            + _event("content_block_stop", {"type": "content_block_stop", "index": 1})
        )

    def failure(self, body: dict[str, Any]) -> bytes:
        return _event("error", body)
