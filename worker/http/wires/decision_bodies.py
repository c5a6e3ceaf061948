"""The decision routes' request (what a person decided). The answers are models in
`worker.http.server.answers` (still importable from here); the `stackbone` member a held turn
carries on the OpenAI and Anthropic wires is `worker.http.server.chat_answers.StackboneMember`."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints

from chat import Decision
from chat.held import MAX_MESSAGE_CHARS
from worker.http.server.answers.decisions import (
    Continued,
    DecisionItem,
    Decisions,
    PendingItem,
    TakenDecision,
)

__all__ = [
    "Continued",
    "DecisionBody",
    "DecisionItem",
    "Decisions",
    "PendingItem",
    "TakenDecision",
]


class DecisionBody(BaseModel):
    """`POST /api/chat/decisions/{decisionId}`: what a person decided."""

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)

    decision: Literal["approve", "edit", "reject"]
    arguments: dict[str, Any] | None = None
    message: (
        Annotated[str, StringConstraints(min_length=1, max_length=MAX_MESSAGE_CHARS)] | None
    ) = None
    stream: bool = False

    def decided(self) -> Decision:
        return Decision(self.decision, self.arguments, self.message)
