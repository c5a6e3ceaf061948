"""The decision routes' shapes: the body a person sends, the answers, and the `stackbone`
member a held turn carries on the OpenAI and Anthropic wires. Names are the wire names."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints

from chat import Decision, DecisionRow, PendingDecision, ToolRun, TurnResult, run_json
from chat.held import MAX_MESSAGE_CHARS
from worker.http.server.chat_answers import RunDetail, ToolCallItem
from worker.http.server.context import timestamp

Body = dict[str, Any]


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


def held_member(pending: PendingDecision) -> Body:
    """The `stackbone` member of a held turn's answer on the OpenAI and Anthropic wires."""
    return {
        "decision": {
            "id": pending.id,
            "tool": pending.tool,
            "allowed": list(pending.allowed),
            "status": "pending",
        }
    }


def pending_body(pending: PendingDecision) -> Body:
    return {
        "id": pending.id,
        "agentId": pending.agent_id,
        "sessionId": pending.session_id,
        "sessionKey": pending.session_key,
        "toolCallId": pending.tool_call_id,
        "tool": pending.tool,
        "arguments": pending.arguments,
        "allowed": list(pending.allowed),
        "createdAt": timestamp(pending.created_at),
    }


def decision_body(row: DecisionRow) -> Body:
    return pending_body(row.pending) | {
        "status": row.status,
        "decision": row.decision,
        "failure": row.failure,
        "decidedAt": timestamp(row.decided_at),
    }


def _tool_result(run: list[ToolRun], call_id: str) -> Body | None:
    found = [r for r in run if r.id == call_id]
    return None if not found else run_json(found[0])


def continued_body(row: DecisionRow, decision: Decision, result: TurnResult) -> Body:
    """The answer to a decision: the continued turn."""
    return {
        "decisionId": row.pending.id,
        "status": {"approve": "approved", "edit": "edited", "reject": "rejected"}[decision.kind],
        "toolResult": _tool_result(result.run, row.pending.tool_call_id),
        "reply": result.reply,
        "finishReason": result.finish_reason,
        "held": None if result.held is None else pending_body(result.held),
        "run": run_body(result),
    }


def run_body(result: TurnResult) -> Body:
    """A turn's run detail (as the sessions route shows each turn's)."""
    return {
        "toolCalls": [run_json(r) for r in result.run],
        "promptTokens": result.prompt_tokens,
        "completionTokens": result.completion_tokens,
        "durationMs": result.duration_ms,
    }


class _Answer(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PendingItem(_Answer):
    id: str
    agentId: str
    sessionId: str
    sessionKey: str
    toolCallId: str
    tool: str
    arguments: str
    allowed: list[Literal["approve", "edit", "reject"]]
    createdAt: str


class TakenDecision(_Answer):
    kind: Literal["approve", "edit", "reject"]
    arguments: dict[str, Any] | None
    message: str | None


class DecisionItem(PendingItem):
    status: Literal["pending", "approved", "edited", "rejected"]
    decision: TakenDecision | None
    failure: str | None
    decidedAt: str | None


class Decisions(_Answer):
    decisions: list[DecisionItem]


class Continued(_Answer):
    decisionId: str
    status: Literal["approved", "edited", "rejected"]
    toolResult: ToolCallItem | None
    reply: str
    finishReason: str
    held: PendingItem | None
    run: RunDetail
