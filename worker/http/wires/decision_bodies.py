"""The decision routes' request (what a person decided) and the `stackbone` member a held turn
carries on the OpenAI and Anthropic wires. The answers are models in
`worker.http.server.answers` (still importable from here)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints

from chat import Decision, PendingDecision
from chat.held import MAX_MESSAGE_CHARS
from worker.http.server.answers.decisions import (
    Continued,
    DecisionItem,
    Decisions,
    PendingItem,
    TakenDecision,
)
from worker.http.server.chat_answers import StackboneMember

__all__ = [
    "Continued",
    "DecisionBody",
    "DecisionItem",
    "Decisions",
    "PendingItem",
    "TakenDecision",
    "held_member",
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


def held_member(pending: PendingDecision) -> dict[str, Any]:
    """The `stackbone` member of a held turn's answer on the OpenAI and Anthropic wires."""
    return StackboneMember.of(pending).wire()
