"""The chat wires' answers, each one model that builds the JSON the route writes and documents it:
OpenAI's completion and Anthropic's message, in each vendor's own snake_case names (no alias
generator: `WireAnswer`), and the `stackbone` member a held turn adds to either. Their streams'
pieces are in `chat_events`, the wires' error envelopes in `answers.errors`. The API's other
answers, a session's turns with their run detail among them, are in `answers`
(`ChatSession...`, `ToolCallItem` and `RunDetail` are still importable from here).
"""

from __future__ import annotations

import json
import time
import uuid
from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

from pydantic import PlainSerializer, WithJsonSchema

from worker.http.server.answers.base import WireAnswer
from worker.http.server.answers.sessions import (
    ChatSession,
    ChatSessionDeleted,
    ChatSessionItem,
    ChatSessions,
    ChatTurnItem,
    RunDetail,
    ToolCallItem,
)

if TYPE_CHECKING:
    from chat import PendingDecision, TurnResult

__all__ = [
    "AnthropicMessage",
    "AnthropicText",
    "AnthropicToolUse",
    "AnthropicUsage",
    "ChatChoice",
    "ChatCompletion",
    "ChatMessageAnswer",
    "ChatSession",
    "ChatSessionDeleted",
    "ChatSessionItem",
    "ChatSessions",
    "ChatTurnItem",
    "ChatUsage",
    "HeldFunction",
    "HeldToolCall",
    "PendingMember",
    "RunDetail",
    "StackboneMember",
    "ToolCallItem",
]


class PendingMember(WireAnswer):
    id: str
    tool: str
    allowed: list[Literal["approve", "edit", "reject"]]
    status: Literal["pending"]


class StackboneMember(WireAnswer):
    """What a held turn adds to a wire's answer: the pending decision."""

    decision: PendingMember

    @classmethod
    def of(cls, pending: PendingDecision) -> Self:
        allowed = list(pending.allowed)
        member = PendingMember(id=pending.id, tool=pending.tool, allowed=allowed, status="pending")
        return cls(decision=member)


class HeldFirst(WireAnswer):
    """A whole answer a held turn's `stackbone` member travels at the head of (as it always has;
    the document lists it last, and it is written only when the turn held)."""

    def wire(self) -> dict[str, Any]:
        body = super().wire()
        return body if "stackbone" not in body else {"stackbone": body.pop("stackbone")} | body


class HeldFunction(WireAnswer):
    name: str
    arguments: str


class HeldToolCall(WireAnswer):
    """The call a held turn parked on (OpenAI's `tool_calls` item)."""

    id: str
    type: Literal["function"]
    function: HeldFunction

    @classmethod
    def of(cls, held: PendingDecision) -> Self:
        function = HeldFunction(name=held.tool, arguments=held.arguments)
        return cls(id=held.tool_call_id, type="function", function=function)


class ChatMessageAnswer(WireAnswer):
    role: Literal["assistant"]
    content: str | None  # None: a held turn that wrote no text
    refusal: None
    tool_calls: list[HeldToolCall] | None = None

    @classmethod
    def of(cls, result: TurnResult) -> Self:
        if result.held is None:
            return cls(role="assistant", content=result.reply, refusal=None)
        calls = [HeldToolCall.of(result.held)]
        return cls(role="assistant", content=result.reply or None, refusal=None, tool_calls=calls)


FinishReason = Annotated[
    str,  # as the model gave it
    WithJsonSchema({"enum": ["stop", "length", "content_filter", "tool_calls"], "type": "string"}),
]


class ChatChoice(WireAnswer):
    index: int
    message: ChatMessageAnswer
    logprobs: None
    finish_reason: FinishReason


class ChatUsage(WireAnswer):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int

    @classmethod
    def of(cls, result: TurnResult) -> Self:
        prompt, completion = result.prompt_tokens, result.completion_tokens
        return cls(
            prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
        )


class ChatCompletion(HeldFirst):
    """OpenAI's completion object (with `stream: true`, its chunks as server-sent events)."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[ChatChoice]
    usage: ChatUsage
    stackbone: StackboneMember | None = None  # a held turn's pending decision

    @classmethod
    def of(cls, model: str, result: TurnResult) -> Self:
        message = ChatMessageAnswer.of(result)
        choice = ChatChoice(
            index=0, message=message, logprobs=None, finish_reason=result.finish_reason
        )
        answer = cls(
            id=f"chatcmpl-{uuid.uuid4().hex}",
            object="chat.completion",
            created=int(time.time()),
            model=model,
            choices=[choice],
            usage=ChatUsage.of(result),
        )
        if result.held is not None:
            answer.stackbone = StackboneMember.of(result.held)
        return answer


class AnthropicText(WireAnswer):
    type: Literal["text"]
    text: str


def _as_given(value: dict[str, object]) -> dict[str, object]:
    return value


ToolInput = Annotated[dict[str, object], PlainSerializer(_as_given)]
"""A held call's arguments, written as they were read (`json.loads`'s values, untouched)."""


def tool_input(arguments: str) -> dict[str, object]:
    """A held call's arguments as a `tool_use` block's `input` (an object; arguments the model
    wrote that are not a JSON object travel as `{}`: the decision route shows them as written)."""
    try:
        value = json.loads(arguments or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class AnthropicToolUse(WireAnswer):
    """A held call (the turn parked on it)."""

    type: Literal["tool_use"]
    id: str
    name: str
    input: ToolInput

    @classmethod
    def of(cls, held: PendingDecision) -> Self:
        given = tool_input(held.arguments)
        return cls(type="tool_use", id=held.tool_call_id, name=held.tool, input=given)


class AnthropicUsage(WireAnswer):
    input_tokens: int
    output_tokens: int

    @classmethod
    def of(cls, result: TurnResult) -> Self:
        return cls(input_tokens=result.prompt_tokens, output_tokens=result.completion_tokens)


StopReason = Literal["end_turn", "max_tokens", "tool_use"]


def stop_reason(result: TurnResult) -> StopReason:
    if result.held is not None:
        return "tool_use"
    return "max_tokens" if result.finish_reason == "length" else "end_turn"


class AnthropicMessage(HeldFirst):
    """Anthropic's message object (with `stream: true`, its server-sent events)."""

    id: str
    type: Literal["message"]
    role: Literal["assistant"]
    model: str
    content: list[AnthropicText | AnthropicToolUse]
    stop_reason: StopReason
    stop_sequence: None
    usage: AnthropicUsage
    stackbone: StackboneMember | None = None  # a held turn's pending decision

    @classmethod
    def of(cls, model: str, result: TurnResult, ident: str | None = None) -> Self:
        """One text block (and a held call's `tool_use` block), why it stopped, the tokens."""
        content: list[AnthropicText | AnthropicToolUse] = []
        if result.held is None or result.reply:
            content.append(AnthropicText(type="text", text=result.reply))
        if result.held is not None:
            content.append(AnthropicToolUse.of(result.held))
        answer = cls(
            id=ident or f"msg_{uuid.uuid4().hex}",
            type="message",
            role="assistant",
            model=model,
            content=content,
            stop_reason=stop_reason(result),
            stop_sequence=None,
            usage=AnthropicUsage.of(result),
        )
        if result.held is not None:
            answer.stackbone = StackboneMember.of(result.held)
        return answer
