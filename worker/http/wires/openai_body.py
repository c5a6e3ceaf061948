"""The body the OpenAI-compatible chat wire reads (`POST /v1/chat/completions`). Every refusal
is a 400 that names its field and rule. The body's `user` (OpenAI's own end-user field)
supplies `customerId` and nothing else; the headers every wire reads (identities, session)
are `worker.http.wires.turn_headers`, the message limits `chat.turn_request`'s.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from chat.turn_request import MAX_MESSAGE_CHARS, MAX_MESSAGES
from memory.contract import limits


class TextPart(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    type: Literal["text"]
    text: Annotated[str, StringConstraints(max_length=MAX_MESSAGE_CHARS)]


class ChatMessage(BaseModel):
    """A client message: system, developer, user or assistant text (client tools are not
    supported on this wire yet: the only tools are the server's memory tools)."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    role: Literal["system", "developer", "user", "assistant"]
    content: (
        Annotated[str, StringConstraints(max_length=MAX_MESSAGE_CHARS)]
        | Annotated[list[TextPart], Field(max_length=64)]
    )
    name: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None

    def text(self) -> str:
        if isinstance(self.content, str):
            return self.content
        return "".join(part.text for part in self.content)


class StreamOptions(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    include_usage: bool = False


class ChatBody(BaseModel):
    """`POST /v1/chat/completions`: `model` is an agent id of the catalog."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    model: Annotated[str, StringConstraints(min_length=1, max_length=limits.MAX_AGENT_ID_CHARS)]
    messages: Annotated[list[ChatMessage], Field(min_length=1, max_length=MAX_MESSAGES)]
    stream: bool = False
    stream_options: StreamOptions | None = None
    user: Any = None  # checked as an identity value (`chat.identities`)
    temperature: Annotated[float, Field(ge=0, le=2)] | None = None
    top_p: Annotated[float, Field(ge=0, le=1)] | None = None
    max_tokens: Annotated[int, Field(ge=1, le=1_000_000)] | None = None
    max_completion_tokens: Annotated[int, Field(ge=1, le=1_000_000)] | None = None
    n: Literal[1] | None = None

    def options(self) -> dict[str, Any]:
        """What the conversation model is also sent."""
        names = ("temperature", "top_p", "max_tokens", "max_completion_tokens")
        return {n: getattr(self, n) for n in names if getattr(self, n) is not None}
