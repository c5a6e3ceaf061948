"""The pieces of the chat wires' streams, each one model that builds its JSON: OpenAI's
server-sent chunks and Anthropic's stream events, in each vendor's own snake_case names. The
stream as a whole is documented by its answer's model (`chat_answers`): these are not in the
OpenAPI document.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Literal, Self

from worker.http.server.answers.base import WireAnswer
from worker.http.server.chat_answers import (
    AnthropicText,
    AnthropicToolUse,
    AnthropicUsage,
    ChatUsage,
    HeldFunction,
    StackboneMember,
    StopReason,
    stop_reason,
)

if TYPE_CHECKING:
    from chat import PendingDecision, TurnResult


class ChunkToolCall(WireAnswer):
    """The held call in a chunk's delta (OpenAI's `tool_calls` item with its `index`)."""

    index: int
    id: str
    type: Literal["function"]
    function: HeldFunction

    @classmethod
    def of(cls, held: PendingDecision) -> Self:
        function = HeldFunction(name=held.tool, arguments=held.arguments)
        return cls(index=0, id=held.tool_call_id, type="function", function=function)


class ChunkDelta(WireAnswer):
    """What a chunk adds: the role (first), text, the held call; none on the finish chunk."""

    role: Literal["assistant"] | None = None
    content: str | None = None
    tool_calls: list[ChunkToolCall] | None = None


class ChunkChoice(WireAnswer):
    index: int
    delta: ChunkDelta
    finish_reason: str | None

    @classmethod
    def of(cls, delta: ChunkDelta, finish_reason: str | None = None) -> Self:
        return cls(index=0, delta=delta, finish_reason=finish_reason)


class ChatChunk(WireAnswer):
    """One of OpenAI's server-sent chunks (`chat.completion.chunk`)."""

    id: str
    object: Literal["chat.completion.chunk"]
    created: int
    model: str
    choices: list[ChunkChoice]
    usage: ChatUsage | None = None  # the last chunk's, if the client asked
    stackbone: StackboneMember | None = None  # the finish chunk's, if the turn held

    @classmethod
    def of(cls, ident: str, model: str, *choices: ChunkChoice) -> Self:
        created = int(time.time())
        kind: Literal["chat.completion.chunk"] = "chat.completion.chunk"
        return cls(id=ident, object=kind, created=created, model=model, choices=list(choices))


class StartedMessage(WireAnswer):
    """Anthropic's message as `message_start` opens it: no content yet, no stop reason."""

    id: str
    type: Literal["message"]
    role: Literal["assistant"]
    model: str
    content: list[AnthropicText]
    stop_reason: None
    stop_sequence: None
    usage: AnthropicUsage


class MessageStart(WireAnswer):
    type: Literal["message_start"]
    message: StartedMessage

    @classmethod
    def of(cls, ident: str, model: str) -> Self:
        usage = AnthropicUsage(input_tokens=0, output_tokens=0)
        message = StartedMessage(
            id=ident,
            type="message",
            role="assistant",
            model=model,
            content=[],
            stop_reason=None,
            stop_sequence=None,
            usage=usage,
        )
        return cls(type="message_start", message=message)


class BlockStart(WireAnswer):
    type: Literal["content_block_start"]
    index: int
    content_block: AnthropicText | AnthropicToolUse


class TextDelta(WireAnswer):
    type: Literal["text_delta"]
    text: str


class InputDelta(WireAnswer):
    type: Literal["input_json_delta"]
    partial_json: str


class BlockDelta(WireAnswer):
    type: Literal["content_block_delta"]
    index: int
    delta: TextDelta | InputDelta


class BlockStop(WireAnswer):
    type: Literal["content_block_stop"]
    index: int


class StopDelta(WireAnswer):
    stop_reason: StopReason
    stop_sequence: None


class MessageDelta(WireAnswer):
    """The stop reason and the turn's tokens (and a held turn's `stackbone` member)."""

    type: Literal["message_delta"]
    delta: StopDelta
    usage: AnthropicUsage
    stackbone: StackboneMember | None = None

    @classmethod
    def of(cls, result: TurnResult) -> Self:
        stop = StopDelta(stop_reason=stop_reason(result), stop_sequence=None)
        event = cls(type="message_delta", delta=stop, usage=AnthropicUsage.of(result))
        if result.held is not None:
            event.stackbone = StackboneMember.of(result.held)
        return event


class MessageStop(WireAnswer):
    type: Literal["message_stop"]
