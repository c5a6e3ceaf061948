"""What the Anthropic Messages wire reads: its body, read strictly with the same limits as the
OpenAI wire's (its answers are models: `worker.http.server.chat_answers.AnthropicMessage` and
the stream's events in `worker.http.server.chat_events`).

Only text travels: a message's content is a string or a list of text blocks (tool use, tool
results and images are refused, as the only tools are the server's memory tools). `system`
becomes a system message after the agent's instructions. `metadata.user_id` is Anthropic's own
end-user field and supplies `customerId` only, as `user` does on the OpenAI wire.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, StringConstraints

from chat.turn_request import MAX_MESSAGE_CHARS, MAX_MESSAGES
from memory.contract import limits

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
