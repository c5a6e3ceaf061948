"""Held tools' decisions as the decision routes answer them and `caller-memory decisions ...`
prints them: a pending call, a decision with what was decided, the continued turn."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal, Self

from worker.http.server.answers.base import Answer, Stored, Timestamp
from worker.http.server.answers.sessions import RunDetail, ToolCallItem

if TYPE_CHECKING:
    from chat import Decision, DecisionRow, PendingDecision, TurnResult

_DONE = {"approve": "approved", "edit": "edited", "reject": "rejected"}


def _pending(pending: PendingDecision) -> dict[str, Any]:
    return {
        "id": pending.id,
        "agent_id": pending.agent_id,
        "session_id": pending.session_id,
        "session_key": pending.session_key,
        "tool_call_id": pending.tool_call_id,
        "tool": pending.tool,
        "arguments": pending.arguments,
        "allowed": list(pending.allowed),
        "created_at": pending.created_at,
    }


class PendingItem(Answer):
    id: str
    agent_id: str
    session_id: str
    session_key: str
    tool_call_id: str
    tool: str
    arguments: str
    allowed: list[Literal["approve", "edit", "reject"]]
    created_at: Timestamp

    @classmethod
    def of(cls, pending: PendingDecision) -> Self:
        return cls(**_pending(pending))


class TakenDecision(Answer):
    kind: Literal["approve", "edit", "reject"]
    arguments: dict[str, Any] | None
    message: str | None


class DecisionItem(PendingItem):
    status: Literal["pending", "approved", "edited", "rejected"]
    decision: Annotated[dict[str, Any], Stored(TakenDecision)] | None  # as it was stored
    failure: str | None
    decided_at: Timestamp | None
    identities: dict[str, str]  # whom the held turn acts for: the session's, stored with it
    user_id: str | None  # the customer under the agent's identity key (None: none named)
    user_message: str  # the customer's message that led to the held call

    @classmethod
    def of_row(cls, row: DecisionRow) -> Self:
        return cls(
            **_pending(row.pending),
            identities=row.turn.identities,
            user_id=row.turn.user_id,
            user_message=row.turn.user_message,
            status=row.status,
            decision=row.decision,
            failure=row.failure,
            decided_at=row.decided_at,
        )


class Decisions(Answer):
    decisions: list[DecisionItem]

    @classmethod
    def of(cls, rows: list[DecisionRow]) -> Self:
        return cls(decisions=[DecisionItem.of_row(r) for r in rows])


class Continued(Answer):
    """The answer to a decision: the continued turn."""

    decision_id: str
    status: Literal["approved", "edited", "rejected"]
    tool_result: ToolCallItem | None
    reply: str
    finish_reason: str
    held: PendingItem | None
    run: RunDetail

    @classmethod
    def of(cls, row: DecisionRow, decision: Decision, result: TurnResult) -> Self:
        call_id = row.pending.tool_call_id
        found = [ToolCallItem.of(r) for r in result.run if r.id == call_id]
        return cls(
            decision_id=row.pending.id,
            status=_DONE[decision.kind],
            tool_result=found[0] if found else None,
            reply=result.reply,
            finish_reason=result.finish_reason,
            held=None if result.held is None else PendingItem.of(result.held),
            run=RunDetail.of(result),
        )
